;; Where a CSV's commas, quotes and line breaks are, 16 bytes at a time (WebAssembly SIMD): the
;; formula guard (guard.ts) jumps from one to the next instead of testing every byte in JavaScript;
;; and where the records that need nothing of the guard end, and their cells (`records`).
;; Compiled by `npm run wasm` into stops-wasm.ts (`npm run lint` fails when the two differ);
;; test/reports/csv/stops.test.ts holds what stops.ts finds to a byte-by-byte scan.
(module
  ;; Pages of 64 KiB: the input window (stops.ts: WINDOW, 64 KiB, and 16 bytes of padding), its
  ;; offsets (4 bytes each, at most one per input byte) and, from page 6, what `records` writes
  ;; (its count, then at most one entry per input byte and one per record).
  (memory (export "memory") 15)

  ;; Writes the offset (from $from) of every comma, quote, CR and LF in [$from, $to) as a u32 at
  ;; $out, in order, and returns how many. The 15 bytes past $to are read too: they must hold none
  ;; of the four.
  (func (export "stops") (param $from i32) (param $to i32) (param $out i32) (result i32)
    (local $at i32)
    (local $written i32)
    (local $mask i32)
    (local $bytes v128)
    (local.set $written (local.get $out))
    (local.set $at (local.get $from))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
        (local.set $bytes (v128.load align=1 (local.get $at)))
        ;; A bit per byte of the 16: set where the byte is one of the four.
        (local.set $mask
          (i8x16.bitmask
            (v128.or
              (v128.or
                (i8x16.eq (local.get $bytes) (i8x16.splat (i32.const 0x2c)))
                (i8x16.eq (local.get $bytes) (i8x16.splat (i32.const 0x22))))
              (v128.or
                (i8x16.eq (local.get $bytes) (i8x16.splat (i32.const 0x0d)))
                (i8x16.eq (local.get $bytes) (i8x16.splat (i32.const 0x0a)))))))
        ;; One offset per set bit, lowest first.
        (block $none
          (loop $bits
            (br_if $none (i32.eqz (local.get $mask)))
            (i32.store
              (local.get $written)
              (i32.add (i32.sub (local.get $at) (local.get $from)) (i32.ctz (local.get $mask))))
            (local.set $written (i32.add (local.get $written) (i32.const 4)))
            (local.set $mask (i32.and (local.get $mask) (i32.sub (local.get $mask) (i32.const 1))))
            (br $bits)))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $blocks)))
    (i32.shr_u (i32.sub (local.get $written) (local.get $out)) (i32.const 2)))

  ;; The length of the record delimiter of kind $kind (1: CRLF, 2: LF, 3: CR) at $at, a CR or an
  ;; LF with at least one byte after it before $to; 0 when that line break is cell text.
  (func $delimiter (param $at i32) (param $kind i32) (result i32)
    (local $byte i32)
    (local.set $byte (i32.load8_u (local.get $at)))
    (if (i32.eq (local.get $kind) (i32.const 2))
      (then (return (i32.eq (local.get $byte) (i32.const 0x0a)))))
    (if (i32.eq (local.get $kind) (i32.const 3))
      (then (return (i32.eq (local.get $byte) (i32.const 0x0d)))))
    (i32.shl
      (i32.and
        (i32.eq (local.get $byte) (i32.const 0x0d))
        (i32.eq (i32.load8_u (i32.add (local.get $at) (i32.const 1))) (i32.const 0x0a)))
      (i32.const 1)))

  ;; From $from, where a record starts, reads the records of [$from, $to) whose record delimiter
  ;; (of kind $kind, as for $delimiter) is before $to, and which the formula guard reads as CSV
  ;; does: no empty line, no quote inside a bare cell, nothing but a comma or the delimiter after
  ;; a closing quote. Writes, from $out + 4, an entry per cell, its end (the offset of the comma
  ;; or delimiter after it) × 16 plus its flags: 1 quoted, 2 holds a doubled quote, 8 holds a
  ;; comma, quote or line break (bare: a line break), 4 the guard writes it otherwise than it
  ;; came (it may start a formula, or its quotes come or go); and 0xFFFFFFFF after the last cell
  ;; of each record. At $out, how many entries. Returns the offset of the first record it did not
  ;; read. The 15 bytes past $to must hold no comma, quote or line break.
  (func (export "records") (param $from i32) (param $to i32) (param $kind i32) (param $out i32) (result i32)
    (local $record i32)
    (local $at i32)
    (local $written i32)
    (local $kept i32)
    (local $byte i32)
    (local $flags i32)
    (local $length i32)
    (local $bytes v128)
    (local $mask i32)
    (local.set $record (local.get $from))
    (local.set $written (i32.add (local.get $out) (i32.const 4)))
    (local.set $kept (local.get $written))
    (block $done
      (loop $records
        (local.set $at (local.get $record))
        (local.set $kept (local.get $written))
        (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
        ;; An empty line is skipped by the guard; a line break that starts a record is left to it.
        (local.set $byte (i32.load8_u (local.get $at)))
        (br_if $done (i32.or (i32.eq (local.get $byte) (i32.const 0x0d)) (i32.eq (local.get $byte) (i32.const 0x0a))))
        (loop $cells
          (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
          (local.set $byte (i32.load8_u (local.get $at)))
          (if (i32.eq (local.get $byte) (i32.const 0x22))
            (then
              (local.set $at (i32.add (local.get $at) (i32.const 1)))
              (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
              (local.set $byte (i32.load8_u (local.get $at)))
              (local.set $flags (i32.or (i32.const 1) (i32.shl (i32.or
                  (i32.or
                    (i32.or (i32.eq (local.get $byte) (i32.const 0x3d)) (i32.eq (local.get $byte) (i32.const 0x2b)))
                    (i32.or (i32.eq (local.get $byte) (i32.const 0x2d)) (i32.eq (local.get $byte) (i32.const 0x40))))
                  (i32.or
                    (i32.or (i32.eq (local.get $byte) (i32.const 0x09)) (i32.eq (local.get $byte) (i32.const 0x0d)))
                    (i32.eq (local.get $byte) (i32.const 0xef)))) (i32.const 2))))
              (block $closed
                (loop $quoted
                  (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
                  (local.set $byte (i32.load8_u (local.get $at)))
                  (if (i32.eq (local.get $byte) (i32.const 0x22))
                    (then
                      (br_if $done (i32.ge_u (i32.add (local.get $at) (i32.const 1)) (local.get $to)))
                      (br_if $closed (i32.ne (i32.load8_u (i32.add (local.get $at) (i32.const 1))) (i32.const 0x22)))
                      (local.set $flags (i32.or (local.get $flags) (i32.const 10)))
                      (local.set $at (i32.add (local.get $at) (i32.const 2)))
                      (br $quoted)))
                  (if (i32.or
                        (i32.or (i32.eq (local.get $byte) (i32.const 0x2c)) (i32.eq (local.get $byte) (i32.const 0x0d)))
                        (i32.eq (local.get $byte) (i32.const 0x0a)))
                    (then (local.set $flags (i32.or (local.get $flags) (i32.const 8)))))
                  (local.set $at (i32.add (local.get $at) (i32.const 1)))
                  (br $quoted)))
              ;; Quotes around nothing that needs them are dropped.
              (if (i32.eqz (i32.and (local.get $flags) (i32.const 8)))
                (then (local.set $flags (i32.or (local.get $flags) (i32.const 4)))))
              (local.set $at (i32.add (local.get $at) (i32.const 1)))
              (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
              (local.set $byte (i32.load8_u (local.get $at))))
            (else
              (local.set $flags (i32.const 0))
              ;; A CR that starts a cell ends the record after an empty one, or is a line break in its text (below).
              (local.set $flags
                (i32.shl
                  (i32.and (i32.ne (local.get $byte) (i32.const 0x0d)) (i32.or
                    (i32.or
                      (i32.or (i32.eq (local.get $byte) (i32.const 0x3d)) (i32.eq (local.get $byte) (i32.const 0x2b)))
                      (i32.or (i32.eq (local.get $byte) (i32.const 0x2d)) (i32.eq (local.get $byte) (i32.const 0x40))))
                    (i32.or (i32.eq (local.get $byte) (i32.const 0x09)) (i32.eq (local.get $byte) (i32.const 0xef)))))
                  (i32.const 2)))
              (block $end
                (loop $text
                  ;; To the next comma, quote or line break, 16 bytes at a time.
                  (block $found
                    (loop $blocks
                      (local.set $bytes (v128.load align=1 (local.get $at)))
                      (local.set $mask (i8x16.bitmask
                    (v128.or
                      (v128.or
                        (i8x16.eq (local.get $bytes) (i8x16.splat (i32.const 0x2c)))
                        (i8x16.eq (local.get $bytes) (i8x16.splat (i32.const 0x22))))
                      (v128.or
                        (i8x16.eq (local.get $bytes) (i8x16.splat (i32.const 0x0d)))
                        (i8x16.eq (local.get $bytes) (i8x16.splat (i32.const 0x0a)))))))
                      (br_if $found (local.get $mask))
                      (local.set $at (i32.add (local.get $at) (i32.const 16)))
                      (br_if $blocks (i32.lt_u (local.get $at) (local.get $to)))
                      (br $done)))
                  (local.set $at (i32.add (local.get $at) (i32.ctz (local.get $mask))))
                  (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
                  (local.set $byte (i32.load8_u (local.get $at)))
                  (br_if $end (i32.eq (local.get $byte) (i32.const 0x2c)))
                  ;; A quote inside a bare cell: the guard refuses it and says where.
                  (br_if $done (i32.eq (local.get $byte) (i32.const 0x22)))
                  (br_if $done (i32.ge_u (i32.add (local.get $at) (i32.const 1)) (local.get $to)))
                  (br_if $end (call $delimiter (local.get $at) (local.get $kind)))
                  ;; A line break in the text: the cell is written quoted.
                  (local.set $flags (i32.const 12))
                  (local.set $at (i32.add (local.get $at) (i32.const 1)))
                  (br $text)))))
          (i32.store (local.get $written) (i32.or (i32.shl (local.get $at) (i32.const 4)) (local.get $flags)))
          (local.set $written (i32.add (local.get $written) (i32.const 4)))
          (if (i32.eq (local.get $byte) (i32.const 0x2c))
            (then
              (local.set $at (i32.add (local.get $at) (i32.const 1)))
              (br $cells)))
          ;; After a closing quote: a NUL (the cell goes on, csv-parse's leniency) or text (refused) is the guard's.
          (br_if $done (i32.and (i32.ne (local.get $byte) (i32.const 0x0d)) (i32.ne (local.get $byte) (i32.const 0x0a))))
          (br_if $done (i32.ge_u (i32.add (local.get $at) (i32.const 1)) (local.get $to)))
          (local.set $length (call $delimiter (local.get $at) (local.get $kind)))
          (br_if $done (i32.eqz (local.get $length)))
          (i32.store (local.get $written) (i32.const -1))
          (local.set $written (i32.add (local.get $written) (i32.const 4)))
          (local.set $record (i32.add (local.get $at) (local.get $length)))
          (br $records))))
    ;; What was written of the record not read is dropped.
    (i32.store (local.get $out) (i32.shr_u (i32.sub (local.get $kept) (i32.add (local.get $out) (i32.const 4))) (i32.const 2)))
    (local.get $record))
)
