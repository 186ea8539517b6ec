;; Where a CSV's commas, quotes and line breaks are, 16 bytes at a time (WebAssembly SIMD): the
;; formula guard (guard.ts) jumps from one to the next instead of testing every byte in JavaScript;
;; and where the records that need nothing of the guard end, and their cells (`records`, from a
;; bitmask of 64 bytes at a time).
;; Compiled by `npm run wasm` into stops-wasm.ts (`npm run lint` fails when the two differ);
;; test/reports/csv/stops.test.ts holds what stops.ts finds to a byte-by-byte scan.
(module
  ;; Pages of 64 KiB: the input window (stops.ts: WINDOW, 64 KiB, and 16 bytes of padding), its
  ;; offsets (4 bytes each, at most one per input byte); at 360448 (page 5), the bytes that may
  ;; start a formula; from page 6, what `records` writes (its count, then at most one entry per
  ;; input byte and one per record; a few more past the last, written over later); from page 15,
  ;; 32 pages for the counters of one summary at a time (stops.ts: leaseCounting); then the tally
  ;; table of a guard with no sink (stops.ts: NO_SINK_TABLE).
  (memory (export "memory") 48)

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
  ;; LF (of kind 1, with at least one byte after it before $to: its LF or not); 0 when that line
  ;; break is cell text.
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

  ;; The bytes that may start a formula (csv/bytes.ts: LEADS; 0xEF may begin a full-width one), a
  ;; byte per byte value at 360448: 1 in a bare cell's first byte, 2 in a quoted one's (a CR too:
  ;; in a bare cell it is a line break).
  (data (i32.const 360457) "\03")
  (data (i32.const 360461) "\02")
  (data (i32.const 360491) "\03")
  (data (i32.const 360493) "\03")
  (data (i32.const 360509) "\03")
  (data (i32.const 360512) "\03")
  (data (i32.const 360687) "\03")

  ;; The commas among the stops `$block` found last (its bits), for `records` to take a run of cells at once.
  (global $commas (mut i64) (i64.const 0))

  ;; A bit per byte of the 64 from $at (bit 0: $at): set where the byte is a comma, quote, CR or
  ;; LF before $to; the commas alone go to $commas. Reads the 64 bytes whatever $to is: the
  ;; memory goes on past any window.
  (func $block (param $at i32) (param $to i32) (result i64)
    (local $bits i64)
    (local $commas i64)
    (local $keep i64)
    (local $comma v128)
    (local $others v128)
    (local $bytes v128)
    (local $hit v128)
    (local $cr v128)
    (local $lf v128)
    (local.set $comma (i8x16.splat (i32.const 0x2c)))
    (local.set $others (i8x16.splat (i32.const 0x22)))
    (local.set $cr (i8x16.splat (i32.const 0x0d)))
    (local.set $lf (i8x16.splat (i32.const 0x0a)))
    (local.set $bytes (v128.load align=1 (local.get $at)))
    (local.set $hit (i8x16.eq (local.get $bytes) (local.get $comma)))
    (local.set $commas (i64.extend_i32_u (i8x16.bitmask (local.get $hit))))
    (local.set $bits (i64.extend_i32_u (i8x16.bitmask (v128.or (local.get $hit) (v128.or
      (i8x16.eq (local.get $bytes) (local.get $others))
      (v128.or
        (i8x16.eq (local.get $bytes) (local.get $cr))
        (i8x16.eq (local.get $bytes) (local.get $lf))))))))
    (local.set $bytes (v128.load offset=16 align=1 (local.get $at)))
    (local.set $hit (i8x16.eq (local.get $bytes) (local.get $comma)))
    (local.set $commas (i64.or (local.get $commas) (i64.shl (i64.extend_i32_u (i8x16.bitmask (local.get $hit))) (i64.const 16))))
    (local.set $bits (i64.or (local.get $bits)
      (i64.shl (i64.extend_i32_u (i8x16.bitmask (v128.or (local.get $hit) (v128.or
      (i8x16.eq (local.get $bytes) (local.get $others))
      (v128.or
        (i8x16.eq (local.get $bytes) (local.get $cr))
        (i8x16.eq (local.get $bytes) (local.get $lf))))))) (i64.const 16))))
    (local.set $bytes (v128.load offset=32 align=1 (local.get $at)))
    (local.set $hit (i8x16.eq (local.get $bytes) (local.get $comma)))
    (local.set $commas (i64.or (local.get $commas) (i64.shl (i64.extend_i32_u (i8x16.bitmask (local.get $hit))) (i64.const 32))))
    (local.set $bits (i64.or (local.get $bits)
      (i64.shl (i64.extend_i32_u (i8x16.bitmask (v128.or (local.get $hit) (v128.or
      (i8x16.eq (local.get $bytes) (local.get $others))
      (v128.or
        (i8x16.eq (local.get $bytes) (local.get $cr))
        (i8x16.eq (local.get $bytes) (local.get $lf))))))) (i64.const 32))))
    (local.set $bytes (v128.load offset=48 align=1 (local.get $at)))
    (local.set $hit (i8x16.eq (local.get $bytes) (local.get $comma)))
    (local.set $commas (i64.or (local.get $commas) (i64.shl (i64.extend_i32_u (i8x16.bitmask (local.get $hit))) (i64.const 48))))
    (local.set $bits (i64.or (local.get $bits)
      (i64.shl (i64.extend_i32_u (i8x16.bitmask (v128.or (local.get $hit) (v128.or
      (i8x16.eq (local.get $bytes) (local.get $others))
      (v128.or
        (i8x16.eq (local.get $bytes) (local.get $cr))
        (i8x16.eq (local.get $bytes) (local.get $lf))))))) (i64.const 48))))
    ;; What lies at or past $to is not the window's.
    (local.set $keep (i64.const -1))
    (if (i32.lt_u (i32.sub (local.get $to) (local.get $at)) (i32.const 64))
      (then (local.set $keep
        (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.sub (local.get $to) (local.get $at)))) (i64.const 1)))))
    (global.set $commas (i64.and (local.get $commas) (local.get $keep)))
    (i64.and (local.get $bits) (local.get $keep)))

  ;; From $from, where a record starts, reads the records of [$from, $to) whose record delimiter
  ;; (of kind $kind, as for $delimiter) is before $to, and which the formula guard reads as CSV
  ;; does: no empty line, no quote inside a bare cell, nothing but a comma or the delimiter after
  ;; a closing quote. Writes, from $out + 4, an entry per cell, its end (the offset of the comma
  ;; or delimiter after it) × 16 plus its flags: 1 quoted, 2 holds a doubled quote, 8 holds a
  ;; comma, quote or line break (bare: a line break), 4 the guard writes it otherwise than it
  ;; came (it may start a formula, or its quotes come or go); and 0xFFFFFFFF after the last cell
  ;; of each record. At $out, how many entries. Returns the offset of the first record it did not
  ;; read. It reads up to 63 bytes past $to (the memory goes on), and takes none of them for the
  ;; window's.
  ;; With $tally not 0 (the tally table: `$countRecord`), each record's named cells are counted as
  ;; it ends, and a record left with nothing to do but put in the `'` of a formula is written as
  ;; one entry, after one for each `'` (`$countRecord`). With $joins too and CRLF records, a run of
  ;; records each written as one entry with no `'` is one entry: the last one's end, flags 2 (no
  ;; cell's), the number of records (2046 at most) in the bits of a counted cell's slot.
  ;; The stops (commas, quotes, line breaks) are found 64 bytes at a time (`$block`): each cell
  ;; takes the next one from the bits of its block, and the block is read again only past its end.
  (func (export "records") (param $from i32) (param $to i32) (param $kind i32) (param $out i32) (param $tally i32) (param $joins i32) (result i32)
    (local $record i32)
    (local $at i32)
    (local $written i32)
    (local $kept i32)
    (local $byte i32)
    (local $flags i32)
    (local $length i32)
    (local $records i32)
    (local $base i32)
    (local $bits i64)
    (local $next i64)
    (local $run i64)
    (local $length64 i64)
    (local $end i32)
    (local $last i32)
    (local $entry i32)
    (local $runs i32)
    (local $runAt i32)
    (local $joined i32)
    ;; Runs of whole records only for a CRLF body, when the guard takes them ($joins).
    (local.set $runs (i32.and (i32.ne (local.get $joins) (i32.const 0)) (i32.eq (local.get $kind) (i32.const 1))))
    (local.set $record (local.get $from))
    (local.set $written (i32.add (local.get $out) (i32.const 4)))
    (local.set $kept (local.get $written))
    ;; The minute the call's times are read from (`$time`): the first it reads.
    (if (local.get $tally) (then (f64.store offset=296 (local.get $tally) (f64.const nan))))
    ;; No block is read yet: any $at is past this one's end.
    (local.set $base (i32.sub (local.get $from) (i32.const 64)))
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
              (local.set $flags (i32.or (i32.const 1)
                (i32.shl (i32.and (i32.load8_u offset=360448 (i32.load8_u (local.get $at))) (i32.const 2)) (i32.const 1))))
              (block $closed
                (loop $quoted
                  ;; The next stop at or after $at, from the block's bits (another block past its end).
                  (block $found
                    (loop $search
                      (if (i32.ge_u (i32.sub (local.get $at) (local.get $base)) (i32.const 64))
                        (then
                          (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
                          (local.set $base (local.get $at))
                          (local.set $bits (call $block (local.get $base) (local.get $to)))))
                      (local.set $next (i64.and (local.get $bits)
                        (i64.shl (i64.const -1) (i64.extend_i32_u (i32.sub (local.get $at) (local.get $base))))))
                      (br_if $found (i64.ne (local.get $next) (i64.const 0)))
                      (local.set $at (i32.add (local.get $base) (i32.const 64)))
                      (br $search)))
                  (local.set $at (i32.add (local.get $base) (i32.wrap_i64 (i64.ctz (local.get $next)))))
                  (if (i32.eq (i32.load8_u (local.get $at)) (i32.const 0x22))
                    (then
                      (br_if $done (i32.ge_u (i32.add (local.get $at) (i32.const 1)) (local.get $to)))
                      (br_if $closed (i32.ne (i32.load8_u (i32.add (local.get $at) (i32.const 1))) (i32.const 0x22)))
                      (local.set $flags (i32.or (local.get $flags) (i32.const 10)))
                      (local.set $at (i32.add (local.get $at) (i32.const 2)))
                      (br $quoted)))
                  ;; A comma or line break in the text.
                  (local.set $flags (i32.or (local.get $flags) (i32.const 8)))
                  (local.set $at (i32.add (local.get $at) (i32.const 1)))
                  (br $quoted)))
              ;; Quotes around nothing that needs them are dropped.
              (if (i32.eqz (i32.and (local.get $flags) (i32.const 8)))
                (then (local.set $flags (i32.or (local.get $flags) (i32.const 4)))))
              (local.set $at (i32.add (local.get $at) (i32.const 1)))
              (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
              (local.set $byte (i32.load8_u (local.get $at))))
            (else
              ;; The cells of the block that end at its commas before any other stop (quote, line
              ;; break) hold nothing but text: one entry each, with no step from one to the next.
              (if (i32.ge_u (i32.sub (local.get $at) (local.get $base)) (i32.const 64))
                (then
                  (local.set $base (local.get $at))
                  (local.set $bits (call $block (local.get $base) (local.get $to)))))
              (local.set $next (i64.and (local.get $bits)
                (i64.shl (i64.const -1) (i64.extend_i32_u (i32.sub (local.get $at) (local.get $base))))))
              (local.set $run (i64.and (global.get $commas) (i64.and (local.get $next)
                (i64.sub (i64.and (local.tee $length64 (i64.and (local.get $next) (i64.xor (global.get $commas) (i64.const -1))))
                  (i64.sub (i64.const 0) (local.get $length64))) (i64.const 1)))))
              (if (i64.ne (local.get $run) (i64.const 0))
                (then
                  ;; Four entries a step, whatever is left: those past the run are written over later
                  ;; (the memory has room for them), and the steps are as many as the cells / 4.
                  (local.set $end (i32.add (local.get $written) (i32.shl (i32.wrap_i64 (i64.popcnt (local.get $run))) (i32.const 2))))
                  (local.set $last (i32.add (local.get $base) (i32.sub (i32.const 64) (i32.wrap_i64 (i64.clz (local.get $run))))))
                  (loop $run
                    (local.set $length (i32.add (local.get $base) (i32.wrap_i64 (i64.ctz (local.get $run)))))
                    (i32.store (local.get $written) (i32.or (i32.shl (local.get $length) (i32.const 4))
                      (i32.shl (i32.and (i32.load8_u offset=360448 (i32.load8_u (local.get $at))) (i32.const 1)) (i32.const 2))))
                    (local.set $at (i32.add (local.get $length) (i32.const 1)))
                    (local.set $run (i64.and (local.get $run) (i64.sub (local.get $run) (i64.const 1))))
                    (local.set $length (i32.add (local.get $base) (i32.wrap_i64 (i64.ctz (local.get $run)))))
                    (i32.store offset=4 (local.get $written) (i32.or (i32.shl (local.get $length) (i32.const 4))
                      (i32.shl (i32.and (i32.load8_u offset=360448 (i32.load8_u (local.get $at))) (i32.const 1)) (i32.const 2))))
                    (local.set $at (i32.add (local.get $length) (i32.const 1)))
                    (local.set $run (i64.and (local.get $run) (i64.sub (local.get $run) (i64.const 1))))
                    (local.set $length (i32.add (local.get $base) (i32.wrap_i64 (i64.ctz (local.get $run)))))
                    (i32.store offset=8 (local.get $written) (i32.or (i32.shl (local.get $length) (i32.const 4))
                      (i32.shl (i32.and (i32.load8_u offset=360448 (i32.load8_u (local.get $at))) (i32.const 1)) (i32.const 2))))
                    (local.set $at (i32.add (local.get $length) (i32.const 1)))
                    (local.set $run (i64.and (local.get $run) (i64.sub (local.get $run) (i64.const 1))))
                    (local.set $length (i32.add (local.get $base) (i32.wrap_i64 (i64.ctz (local.get $run)))))
                    (i32.store offset=12 (local.get $written) (i32.or (i32.shl (local.get $length) (i32.const 4))
                      (i32.shl (i32.and (i32.load8_u offset=360448 (i32.load8_u (local.get $at))) (i32.const 1)) (i32.const 2))))
                    (local.set $at (i32.add (local.get $length) (i32.const 1)))
                    (local.set $run (i64.and (local.get $run) (i64.sub (local.get $run) (i64.const 1))))
                    (local.set $written (i32.add (local.get $written) (i32.const 16)))
                    (br_if $run (i32.lt_u (local.get $written) (local.get $end))))
                  (local.set $written (local.get $end))
                  (local.set $at (local.get $last))
                  (br $cells)))
              ;; A CR that starts a cell ends the record after an empty one, or is a line break in its text (below).
              (local.set $flags (i32.shl (i32.and (i32.load8_u offset=360448 (local.get $byte)) (i32.const 1)) (i32.const 2)))
              (block $end
                (loop $text
                  (block $found
                    (loop $search
                      (if (i32.ge_u (i32.sub (local.get $at) (local.get $base)) (i32.const 64))
                        (then
                          (br_if $done (i32.ge_u (local.get $at) (local.get $to)))
                          (local.set $base (local.get $at))
                          (local.set $bits (call $block (local.get $base) (local.get $to)))))
                      (local.set $next (i64.and (local.get $bits)
                        (i64.shl (i64.const -1) (i64.extend_i32_u (i32.sub (local.get $at) (local.get $base))))))
                      (br_if $found (i64.ne (local.get $next) (i64.const 0)))
                      (local.set $at (i32.add (local.get $base) (i32.const 64)))
                      (br $search)))
                  (local.set $at (i32.add (local.get $base) (i32.wrap_i64 (i64.ctz (local.get $next)))))
                  (local.set $byte (i32.load8_u (local.get $at)))
                  (br_if $end (i32.eq (local.get $byte) (i32.const 0x2c)))
                  ;; A quote inside a bare cell: the guard refuses it and says where.
                  (br_if $done (i32.eq (local.get $byte) (i32.const 0x22)))
                  (br_if $done (i32.and (i32.eq (local.get $kind) (i32.const 1)) (i32.ge_u (i32.add (local.get $at) (i32.const 1)) (local.get $to))))
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
          (br_if $done (i32.and (i32.eq (local.get $kind) (i32.const 1)) (i32.ge_u (i32.add (local.get $at) (i32.const 1)) (local.get $to))))
          ;; CRLF, the platform's, without a call.
          (local.set $length
            (if (result i32) (i32.eq (local.get $kind) (i32.const 1))
              (then (i32.shl (i32.and (i32.eq (local.get $byte) (i32.const 0x0d))
                (i32.eq (i32.load8_u offset=1 (local.get $at)) (i32.const 0x0a))) (i32.const 1)))
              (else (call $delimiter (local.get $at) (local.get $kind)))))
          (br_if $done (i32.eqz (local.get $length)))
          (if (local.get $tally)
            (then
              (local.set $written
                (call $countRecord (local.get $tally) (local.get $records) (local.get $record) (local.get $kept) (local.get $written)))
              ;; A CRLF record written as one entry with no `'` (its bytes stay as they came) joins the
              ;; run of such records right before it: one entry for them all, flags 2 (no cell's),
              ;; the number of records where a counted cell's slot goes.
              (local.set $entry (i32.load (local.get $kept)))
              (if (i32.and
                    (i32.and (local.get $runs) (i32.eq (local.get $written) (i32.add (local.get $kept) (i32.const 4))))
                    (i32.and (i32.ge_u (local.get $entry) (i32.const 0x200000)) (i32.eqz (i32.and (local.get $entry) (i32.const 15)))))
                (then
                  (if (i32.and
                        (i32.eq (i32.add (local.get $runAt) (i32.const 8)) (local.get $kept))
                        (i32.lt_u (local.get $joined) (i32.const 2046)))
                    (then
                      (local.set $joined (i32.add (local.get $joined) (i32.const 1)))
                      (i32.store (local.get $runAt)
                        (i32.or (i32.or (i32.and (local.get $entry) (i32.const 0x1ffff0)) (i32.const 2))
                          (i32.shl (local.get $joined) (i32.const 21))))
                      (local.set $written (i32.add (local.get $runAt) (i32.const 4))))
                    (else
                      (local.set $runAt (local.get $kept))
                      (local.set $joined (i32.const 1)))))
                (else (local.set $runAt (i32.const 0))))))
          (local.set $records (i32.add (local.get $records) (i32.const 1)))
          (i32.store (local.get $written) (i32.const -1))
          (local.set $written (i32.add (local.get $written) (i32.const 4)))
          (local.set $record (i32.add (local.get $at) (local.get $length)))
          (br $records))))
    ;; What was written of the record not read is dropped.
    (i32.store (local.get $out) (i32.shr_u (i32.sub (local.get $kept) (i32.add (local.get $out) (i32.const 4))) (i32.const 2)))
    (local.get $record))

  ;; Counting the named cells of the records `records` reads, where their bytes are: the same
  ;; counters as ByteCounter's (byte-counts.ts), which lays them out in this memory and does what
  ;; is rare there (a key not counted yet, a key cut to its bound, an eviction); here only a key
  ;; already counted is found (among the recent ones, else by its hash) and counted once more,
  ;; and a counter that evicts only while no eviction can come first.
  ;; test/reports/shield/counting.test.ts holds the counts to ByteCounter's alone.
  ;;
;; The tally table: at $tally + 4 × column (columns 0 to 63), the address of the column's
  ;; counter, 0 for a column not counted here; at + 256 the column of the events' times (-1:
  ;; none); + 260 the address of what is read of each record (below); + 264 the minute last
  ;; read (event-time.ts: MinuteCache): its start in Unix ms (f64, NaN before one was read) and,
  ;; at + 272, its 16 bytes; + 288 1 when no cell is wanted at all (the guard has no sink); + 296
  ;; the call's minute (f64; `$time`), which JavaScript reads the times from after the call;
  ;; + 320 the role of each column (u8, summary.ts: ROLES; 0 for none or the time).
  ;;
  ;; A counter (byte-counts.ts: its header) is i32s: 0 the bytes of a key's slot, 4 the keys,
  ;; 8 their lengths (i32), 12 their kinds (u8), 16 their hashes, 20 the next slot of a hash
  ;; bucket, 24 the buckets' first slots, 28 the buckets' mask, 32 the counts (f64), 36 and 40
  ;; unused, 44 the slots in use, 48 not 0 when the counter evicts, 52 the recent slots (256), 56 its capacity, 60 the keys of the current call
  ;; left to JavaScript (byte-counts.ts: DEFERRED).
  ;;
  ;; What is read of each record, two u32s at its index in the call: a bit per role counted
  ;; (bit 0: the time), the rule id's slot + 1 at bit 8 and the rule name's at bit 19 (11 bits
  ;; each); then the time: its ms from the call's minute (+ 296), plus 2^30 (stops.ts: READ_TIME_BIAS).

  ;; What the guard does with a cell `records` flagged 4 (it may start a formula, or its quotes
  ;; come or go), from $start to its end $end, with its entry's $flags: -2 when its quotes come or
  ;; go (the guard's JavaScript writes it); otherwise the cell is written as it came, and this is
  ;; -1 when it does not start a formula (csv/bytes.ts: startsFormula), or the offset of its
  ;; content's first byte, where the guard puts the `'` that keeps it from running.
  (func $apostrophe (param $start i32) (param $end i32) (param $flags i32) (result i32)
    (local $at i32)
    (local $close i32)
    (local $byte i32)
    (if (i32.and (local.get $flags) (i32.const 1))
      (then
        ;; A quoted cell keeps its quotes only when it holds a comma, quote or line break.
        (if (i32.eqz (i32.and (local.get $flags) (i32.const 8))) (then (return (i32.const -2))))
        (local.set $at (i32.add (local.get $start) (i32.const 1)))
        (local.set $close (i32.sub (local.get $end) (i32.const 1))))
      (else
        ;; A bare cell with a line break in its text gets quotes.
        (if (i32.and (local.get $flags) (i32.const 8)) (then (return (i32.const -2))))
        (local.set $at (local.get $start))
        (local.set $close (local.get $end))))
    (if (i32.ge_u (local.get $at) (local.get $close)) (then (return (i32.const -1))))
    (local.set $byte (i32.load8_u (local.get $at)))
    (if (i32.or
          (i32.or
            (i32.or (i32.eq (local.get $byte) (i32.const 0x3d)) (i32.eq (local.get $byte) (i32.const 0x2b)))
            (i32.or (i32.eq (local.get $byte) (i32.const 0x2d)) (i32.eq (local.get $byte) (i32.const 0x40))))
          (i32.or (i32.eq (local.get $byte) (i32.const 0x09)) (i32.eq (local.get $byte) (i32.const 0x0d))))
      (then (return (local.get $at))))
    ;; The full-width = + - @ (U+FF1D, U+FF0B, U+FF0D, U+FF20) are EF BC then 9D, 8B, 8D or A0.
    (if (i32.ne (local.get $byte) (i32.const 0xef)) (then (return (i32.const -1))))
    (if (i32.ge_u (i32.add (local.get $at) (i32.const 2)) (local.get $close)) (then (return (i32.const -1))))
    (if (i32.ne (i32.load8_u offset=1 (local.get $at)) (i32.const 0xbc)) (then (return (i32.const -1))))
    (local.set $byte (i32.load8_u offset=2 (local.get $at)))
    (if (i32.or
          (i32.or (i32.eq (local.get $byte) (i32.const 0x9d)) (i32.eq (local.get $byte) (i32.const 0x8b)))
          (i32.or (i32.eq (local.get $byte) (i32.const 0x8d)) (i32.eq (local.get $byte) (i32.const 0xa0))))
      (then (return (local.get $at))))
    (i32.const -1))

  ;; Counts the cells of one record (its entries at [$first, $last), from $record; the $index-th
  ;; record of the call) that need no rewriting and have a counter, and reads its time. Such a
  ;; cell's entry gets its slot + 1 in its top 11 bits (the time cell: 1). When then nothing of
  ;; the record is left to do (no cell to rewrite, every wanted cell counted), its entries become
  ;; one: its last cell's, marked counted, after an entry for each `'` it needs (`$apostrophe`).
  ;; A cell that needs only its `'` is counted as it will read (kind 2). Returns the end of its entries.
  (func $countRecord (param $tally i32) (param $index i32) (param $record i32) (param $first i32) (param $last i32) (result i32)
    (local $at i32)
    (local $entry i32)
    (local $column i32)
    (local $counter i32)
    (local $start i32)
    (local $end i32)
    (local $slot i32)
    (local $role i32)
    (local $read i32)
    (local $whole i32)
    (local $info i32)
    (local $fix i32)
    (local $written i32)
    (local $flags i32)
    (local $nothing i32)
    ;; With no cell wanted (a guard with no sink), only the `'`s are looked for.
    (local.set $nothing (i32.load offset=288 (local.get $tally)))
    (local.set $start (local.get $record))
    (local.set $at (local.get $first))
    (local.set $whole (i32.const 1))
    (block $done
      (loop $cells
        (br_if $done (i32.ge_u (local.get $at) (local.get $last)))
        (local.set $entry (i32.load (local.get $at)))
        (local.set $flags (i32.or (local.get $flags) (local.get $entry)))
        (local.set $end (i32.shr_u (local.get $entry) (i32.const 4)))
        ;; A cell whose quotes come or go is the guard's; one that only needs its `'` is not.
        (local.set $fix (i32.const -1))
        (if (i32.and (local.get $entry) (i32.const 4))
          (then
            (local.set $fix (call $apostrophe (local.get $start) (local.get $end) (i32.and (local.get $entry) (i32.const 15))))
            (if (i32.eq (local.get $fix) (i32.const -2)) (then (local.set $whole (i32.const 0))))))
        (if (i32.and (i32.lt_u (local.get $column) (i32.const 64)) (i32.eqz (local.get $nothing)))
          (then
            (local.set $counter (i32.load (i32.add (local.get $tally) (i32.shl (local.get $column) (i32.const 2)))))
            (if (i32.eq (local.get $column) (i32.load offset=256 (local.get $tally)))
              (then
                (local.set $slot (i32.const -1))
                (if (i32.eqz (i32.and (local.get $entry) (i32.const 15)))
                  (then
                    (local.set $slot
                      (call $time (local.get $tally) (local.get $start) (i32.sub (local.get $end) (local.get $start))))))
                (if (i32.ge_s (local.get $slot) (i32.const 0))
                  (then
                    (i32.store offset=4
                      (i32.add (i32.load offset=260 (local.get $tally)) (i32.shl (local.get $index) (i32.const 3)))
                      (local.get $slot))
                    (local.set $read (i32.or (local.get $read) (i32.const 1)))
                    (i32.store (local.get $at) (i32.or (local.get $entry) (i32.const 0x200000))))
                  (else (local.set $whole (i32.const 0))))))
            (if (local.get $counter)
              (then
                (local.set $slot (i32.const -1))
                ;; Its kind (ByteCounter): 1 its quotes doubled, 2 written after a `'`.
                (if (i32.ne (local.get $fix) (i32.const -2))
                  (then
                    (local.set $slot
                      (if (result i32) (i32.and (local.get $entry) (i32.const 1))
                        (then
                          (call $count (local.get $counter)
                            (i32.add (local.get $start) (i32.const 1))
                            (i32.sub (i32.sub (local.get $end) (local.get $start)) (i32.const 2))
                            (i32.or
                              (i32.shr_u (i32.and (local.get $entry) (i32.const 2)) (i32.const 1))
                              (i32.shl (i32.ge_s (local.get $fix) (i32.const 0)) (i32.const 1)))))
                        (else
                          (call $count (local.get $counter) (local.get $start)
                            (i32.sub (local.get $end) (local.get $start))
                            (i32.shl (i32.ge_s (local.get $fix) (i32.const 0)) (i32.const 1))))))))
                (if (i32.ge_s (local.get $slot) (i32.const 0))
                  (then
                    (i32.store (local.get $at)
                      (i32.or (local.get $entry) (i32.shl (i32.add (local.get $slot) (i32.const 1)) (i32.const 21))))
                    (local.set $role (i32.load8_u offset=320 (i32.add (local.get $tally) (local.get $column))))
                    (local.set $read (i32.or (local.get $read) (i32.shl (i32.const 1) (local.get $role))))
                    ;; The rule's id and name (summary.ts: ROLES 2 and 3) pair up in JavaScript.
                    (if (i32.eq (local.get $role) (i32.const 2))
                      (then (local.set $read (i32.or (local.get $read)
                        (i32.shl (i32.add (local.get $slot) (i32.const 1)) (i32.const 8))))))
                    (if (i32.eq (local.get $role) (i32.const 3))
                      (then (local.set $read (i32.or (local.get $read)
                        (i32.shl (i32.add (local.get $slot) (i32.const 1)) (i32.const 19)))))))
                  (else
                    (local.set $whole (i32.const 0))
                    ;; JavaScript counts it after the cells counted here: it may take a free slot.
                    (i32.store offset=60 (local.get $counter)
                      (i32.add (i32.load offset=60 (local.get $counter)) (i32.const 1))))))))
          ;; A column past the table's may be wanted.
          (else (if (i32.eqz (local.get $nothing)) (then (local.set $whole (i32.const 0))))))
        (local.set $start (i32.add (local.get $end) (i32.const 1)))
        (local.set $column (i32.add (local.get $column) (i32.const 1)))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $cells)))
    (local.set $info (i32.load offset=260 (local.get $tally)))
    (if (local.get $info)
      (then (i32.store (i32.add (local.get $info) (i32.shl (local.get $index) (i32.const 3))) (local.get $read))))
    (if (i32.eqz (local.get $whole)) (then (return (local.get $last))))
    (local.set $info
      (i32.or (i32.and (i32.load (i32.sub (local.get $last) (i32.const 4))) (i32.const 0x1ffff0)) (i32.const 0x200000)))
    ;; No cell flagged 4: no `'` to look for.
    (if (i32.eqz (i32.and (local.get $flags) (i32.const 4)))
      (then
        (i32.store (local.get $first) (local.get $info))
        (return (i32.add (local.get $first) (i32.const 4)))))
    ;; First, an entry for each `'` the record needs: 0xFFE00000 plus where it goes × 16.
    (local.set $written (local.get $first))
    (local.set $start (local.get $record))
    (local.set $at (local.get $first))
    (block $marked
      (loop $marks
        (br_if $marked (i32.ge_u (local.get $at) (local.get $last)))
        (local.set $entry (i32.load (local.get $at)))
        (local.set $end (i32.shr_u (i32.and (local.get $entry) (i32.const 0x1fffff)) (i32.const 4)))
        (if (i32.and (local.get $entry) (i32.const 4))
          (then
            (local.set $fix (call $apostrophe (local.get $start) (local.get $end) (i32.and (local.get $entry) (i32.const 15))))
            (if (i32.ge_s (local.get $fix) (i32.const 0))
              (then
                (i32.store (local.get $written) (i32.or (i32.const 0xffe00000) (i32.shl (local.get $fix) (i32.const 4))))
                (local.set $written (i32.add (local.get $written) (i32.const 4)))))))
        (local.set $start (i32.add (local.get $end) (i32.const 1)))
        (local.set $at (i32.add (local.get $at) (i32.const 4)))
        (br $marks)))
    (i32.store (local.get $written) (local.get $info))
    (i32.add (local.get $written) (i32.const 4)))

  ;; An event's time as event-time.ts reads it, when it is of the common form:
  ;; `YYYY-MM-DD[T ]HH:MM` (a minute, kept as the one read last when it is another), `:SS`, `.f`,
  ;; `.ff` or `.fff` or none, then `Z`, `z` or nothing. Returns its milliseconds from the call's
  ;; minute (+ 296: the first it read), plus 2^30; or -1: the cell is then read in JavaScript (a
  ;; minute more than some 11 days from the call's, an offset, more digits, not a time).
  (func $time (param $tally i32) (param $at i32) (param $length i32) (result i32)
    (local $i i32)
    (local $digit i32)
    (local $millis i32)
    (local $scale i32)
    (local $second i32)
    (local $base f64)
    (local $minute f64)
    (local $shift i32)
    (if (i32.lt_u (local.get $length) (i32.const 19)) (then (return (i32.const -1))))
    (local.set $minute (f64.load offset=264 (local.get $tally)))
    (if (i32.or (f64.ne (local.get $minute) (local.get $minute))
          (i32.eqz (i8x16.all_true (i8x16.eq (v128.load align=1 (local.get $at)) (v128.load offset=272 (local.get $tally))))))
      (then
        ;; Another minute (or the first): read as event-time.ts's minuteMs reads it, and kept for the next times.
        (local.set $minute (call $minute (local.get $at)))
        (if (f64.ne (local.get $minute) (local.get $minute)) (then (return (i32.const -1))))
        (f64.store offset=264 (local.get $tally) (local.get $minute))
        (v128.store offset=272 (local.get $tally) (v128.load align=1 (local.get $at)))))
    ;; The call's minute, which JavaScript reads its times from: the first one it read.
    (local.set $base (f64.load offset=296 (local.get $tally)))
    (if (f64.ne (local.get $base) (local.get $base))
      (then
        (local.set $base (local.get $minute))
        (f64.store offset=296 (local.get $tally) (local.get $minute))))
    ;; Minutes from the call's, in ms, biased to be positive; further than that is JavaScript's.
    (local.set $minute (f64.sub (local.get $minute) (local.get $base)))
    (if (i32.eqz (f64.lt (f64.abs (local.get $minute)) (f64.const 1e9))) (then (return (i32.const -1))))
    (local.set $shift (i32.add (i32.trunc_f64_s (local.get $minute)) (i32.const 0x40000000)))
    (if (i32.ne (i32.load8_u offset=16 (local.get $at)) (i32.const 0x3a)) (then (return (i32.const -1))))
    (local.set $digit (i32.sub (i32.load8_u offset=17 (local.get $at)) (i32.const 0x30)))
    (local.set $second (i32.sub (i32.load8_u offset=18 (local.get $at)) (i32.const 0x30)))
    (if (i32.or (i32.gt_u (local.get $digit) (i32.const 5)) (i32.gt_u (local.get $second) (i32.const 9)))
      (then (return (i32.const -1))))
    (local.set $millis (i32.mul (i32.add (i32.mul (local.get $digit) (i32.const 10)) (local.get $second)) (i32.const 1000)))
    (local.set $i (i32.const 19))
    (if (i32.and (i32.lt_u (local.get $i) (local.get $length))
          (i32.eq (i32.load8_u (i32.add (local.get $at) (local.get $i))) (i32.const 0x2e)))
      (then
        (local.set $i (i32.const 20))
        (local.set $scale (i32.const 100))
        (block $fraction
          (loop $digits
            (br_if $fraction (i32.ge_u (local.get $i) (local.get $length)))
            (local.set $digit (i32.sub (i32.load8_u (i32.add (local.get $at) (local.get $i))) (i32.const 0x30)))
            (br_if $fraction (i32.gt_u (local.get $digit) (i32.const 9)))
            ;; A fourth digit: JavaScript's arithmetic decides.
            (if (i32.eqz (local.get $scale)) (then (return (i32.const -1))))
            (local.set $millis (i32.add (local.get $millis) (i32.mul (local.get $digit) (local.get $scale))))
            (local.set $scale (i32.div_u (local.get $scale) (i32.const 10)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $digits)))
        (if (i32.eq (local.get $i) (i32.const 20)) (then (return (i32.const -1))))))
    (if (i32.eq (local.get $i) (local.get $length)) (then (return (i32.add (local.get $shift) (local.get $millis)))))
    (if (i32.and
          (i32.eq (i32.add (local.get $i) (i32.const 1)) (local.get $length))
          (i32.eq (i32.or (i32.load8_u (i32.add (local.get $at) (local.get $i))) (i32.const 0x20)) (i32.const 0x7a)))
      (then (return (i32.add (local.get $shift) (local.get $millis)))))
    (i32.const -1))

  ;; The start (Unix ms) of the minute `YYYY-MM-DD[T ]HH:MM` at $at, as event-time.ts's minuteMs
  ;; reads it (days_from_civil), or NaN; a year before 1 is left to JavaScript too.
  (func $minute (param $at i32) (result f64)
    (local $year i32)
    (local $month i32)
    (local $day i32)
    (local $hour i32)
    (local $min i32)
    (local $bad i32)
    (local $days i32)
    (local $y i32)
    (local $era i32)
    (local $yoe i32)
    (local.set $bad (i32.or
      (i32.or
        (i32.ne (i32.load8_u offset=4 (local.get $at)) (i32.const 0x2d))
        (i32.ne (i32.load8_u offset=7 (local.get $at)) (i32.const 0x2d)))
      (i32.or
        (i32.ne (i32.load8_u offset=13 (local.get $at)) (i32.const 0x3a))
        (i32.and
          (i32.and
            (i32.ne (i32.load8_u offset=10 (local.get $at)) (i32.const 0x54))
            (i32.ne (i32.load8_u offset=10 (local.get $at)) (i32.const 0x74)))
          (i32.ne (i32.load8_u offset=10 (local.get $at)) (i32.const 0x20))))))
    (local.set $year (call $digits (local.get $at) (i32.const 4)))
    (local.set $month (call $digits (i32.add (local.get $at) (i32.const 5)) (i32.const 2)))
    (local.set $day (call $digits (i32.add (local.get $at) (i32.const 8)) (i32.const 2)))
    (local.set $hour (call $digits (i32.add (local.get $at) (i32.const 11)) (i32.const 2)))
    (local.set $min (call $digits (i32.add (local.get $at) (i32.const 14)) (i32.const 2)))
    ;; Not digits: -1, out of every range below.
    (if (i32.or (local.get $bad)
          (i32.or
            (i32.or (i32.lt_s (local.get $year) (i32.const 1)) (i32.gt_u (i32.sub (local.get $month) (i32.const 1)) (i32.const 11)))
            (i32.or (i32.gt_u (local.get $hour) (i32.const 23)) (i32.gt_u (local.get $min) (i32.const 59)))))
      (then (return (f64.const nan))))
    ;; Days in the month: 30 or 31 by the month's bits, February's by the leap year.
    (local.set $days (i32.add (i32.const 30)
      (i32.and (i32.add (local.get $month) (i32.shr_u (local.get $month) (i32.const 3))) (i32.const 1))))
    (if (i32.eq (local.get $month) (i32.const 2))
      (then (local.set $days (i32.add (i32.const 28)
        (i32.and
          (i32.eqz (i32.rem_u (local.get $year) (i32.const 4)))
          (i32.or
            (i32.ne (i32.rem_u (local.get $year) (i32.const 100)) (i32.const 0))
            (i32.eqz (i32.rem_u (local.get $year) (i32.const 400)))))))))
    (if (i32.or (i32.lt_s (local.get $day) (i32.const 1)) (i32.gt_s (local.get $day) (local.get $days)))
      (then (return (f64.const nan))))
    ;; days_from_civil, every value here at 0 or more.
    (local.set $y (i32.sub (local.get $year) (i32.le_u (local.get $month) (i32.const 2))))
    (local.set $era (i32.div_u (local.get $y) (i32.const 400)))
    (local.set $yoe (i32.sub (local.get $y) (i32.mul (local.get $era) (i32.const 400))))
    (local.set $days
      (i32.sub
        (i32.add
          (i32.mul (local.get $era) (i32.const 146097))
          (i32.add
            (i32.sub
              (i32.add (i32.mul (local.get $yoe) (i32.const 365)) (i32.div_u (local.get $yoe) (i32.const 4)))
              (i32.div_u (local.get $yoe) (i32.const 100)))
            (i32.sub
              (i32.add
                (i32.div_u
                  (i32.add
                    (i32.mul (i32.const 153)
                      (i32.add (local.get $month) (select (i32.const -3) (i32.const 9) (i32.gt_u (local.get $month) (i32.const 2)))))
                    (i32.const 2))
                  (i32.const 5))
                (local.get $day))
              (i32.const 1))))
        (i32.const 719468)))
    (f64.add
      (f64.mul (f64.convert_i32_s (local.get $days)) (f64.const 86400000))
      (f64.convert_i32_s (i32.mul (i32.add (i32.mul (local.get $hour) (i32.const 60)) (local.get $min)) (i32.const 60000)))))

  ;; The number the $count ASCII digits at $at write, or -1 when one of them is not a digit.
  (func $digits (param $at i32) (param $count i32) (result i32)
    (local $value i32)
    (local $digit i32)
    (block $done
      (loop $each
        (br_if $done (i32.eqz (local.get $count)))
        (local.set $digit (i32.sub (i32.load8_u (local.get $at)) (i32.const 0x30)))
        (if (i32.gt_u (local.get $digit) (i32.const 9)) (then (return (i32.const -1))))
        (local.set $value (i32.add (i32.mul (local.get $value) (i32.const 10)) (local.get $digit)))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (local.set $count (i32.sub (local.get $count) (i32.const 1)))
        (br $each)))
    (local.get $value))

  ;; The key of $length bytes at $at, read as $kind says (ByteCounter: PLAIN, DOUBLED_QUOTES),
  ;; counted once more when the counter has it: its slot, else -1 (ByteCounter adds it).
  (func $count (param $counter i32) (param $at i32) (param $length i32) (param $kind i32) (result i32)
    (local $key i32)
    (local $ends i32)
    (local $recent i32)
    (local $slot i32)
    (local $hash i32)
    (local $i i32)
    ;; A key over the bound is cut first.
    (if (i32.gt_u (local.get $length) (i32.load (local.get $counter))) (then (return (i32.const -1))))
    ;; A counter that evicts is counted here only while no eviction can come first: while the
    ;; keys left to JavaScript in this call (each may take a slot) would still find one free.
    ;; Past that, a hit counted here would come before an eviction JavaScript makes later for an
    ;; earlier record, and change which key it takes. One key JavaScript adds is not among them:
    ;; the empty one a short row counts for its missing cell (summary.ts: record()); being one
    ;; key, it can take one slot only, so the first eviction still comes after this stops.
    (if (i32.load offset=48 (local.get $counter))
      (then
        (if (i32.ge_u
              (i32.add (i32.load offset=44 (local.get $counter)) (i32.load offset=60 (local.get $counter)))
              (i32.load offset=56 (local.get $counter)))
          (then (return (i32.const -1))))))
    (local.set $ends
      (if (result i32) (i32.gt_u (local.get $length) (i32.const 1))
        (then
          (i32.or
            (i32.shl (i32.load8_u (i32.sub (i32.add (local.get $at) (local.get $length)) (i32.const 2))) (i32.const 8))
            (i32.load8_u (i32.sub (i32.add (local.get $at) (local.get $length)) (i32.const 1)))))
        (else (if (result i32) (local.get $length) (then (i32.load8_u (local.get $at))) (else (i32.const 0))))))
    (local.set $recent
      (i32.add (i32.load offset=52 (local.get $counter))
        (i32.shl
          (i32.shr_u
            (i32.mul
              (i32.xor (i32.xor (local.get $ends) (i32.shl (local.get $length) (i32.const 16))) (i32.shl (local.get $kind) (i32.const 28)))
              (i32.const 0x9e3779b1))
            (i32.const 24))
          (i32.const 2))))
    (local.set $slot (i32.load (local.get $recent)))
    ;; The slot of a recent key: its length, kind and bytes, eight at a time, then one.
    (block $other
      (br_if $other (i32.lt_s (local.get $slot) (i32.const 0)))
      (br_if $other (i32.ne (local.get $length)
        (i32.load (i32.add (i32.load offset=8 (local.get $counter)) (i32.shl (local.get $slot) (i32.const 2))))))
      (br_if $other (i32.ne (local.get $kind)
        (i32.load8_u (i32.add (i32.load offset=12 (local.get $counter)) (local.get $slot)))))
      (local.set $key
        (i32.add (i32.load offset=4 (local.get $counter)) (i32.mul (local.get $slot) (i32.load (local.get $counter)))))
      ;; Eight bytes a step, the last few masked (as `$same`, here without a call: most keys are recent).
      (block $tail
        (loop $words
          (br_if $tail (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $length)))
          (br_if $other (i64.ne (i64.load align=1 (i32.add (local.get $key) (local.get $i)))
            (i64.load align=1 (i32.add (local.get $at) (local.get $i)))))
          (local.set $i (i32.add (local.get $i) (i32.const 8)))
          (br $words)))
      (br_if $other (i64.ne (i64.const 0)
        (i64.and
          (i64.xor
            (i64.load align=1 (i32.add (local.get $key) (local.get $i)))
            (i64.load align=1 (i32.add (local.get $at) (local.get $i))))
          (i64.sub
            (i64.shl (i64.const 1) (i64.extend_i32_u (i32.shl (i32.sub (local.get $length) (local.get $i)) (i32.const 3))))
            (i64.const 1)))))
      ;; One more of it (`$hit`).
      (local.set $key (i32.add (i32.load offset=32 (local.get $counter)) (i32.shl (local.get $slot) (i32.const 3))))
      (f64.store (local.get $key) (f64.add (f64.load (local.get $key)) (f64.const 1)))
      (return (local.get $slot)))
    (local.set $i (i32.const 0))
    ;; FNV-1a from the kind, as ByteCounter hashes.
    (local.set $hash (i32.xor (i32.const 0x811c9dc5) (local.get $kind)))
    (block $hashed
      (loop $bytes
        (br_if $hashed (i32.ge_u (local.get $i) (local.get $length)))
        (local.set $hash
          (i32.mul
            (i32.xor (local.get $hash) (i32.load8_u (i32.add (local.get $at) (local.get $i))))
            (i32.const 0x01000193)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $bytes)))
    (local.set $slot
      (i32.load
        (i32.add (i32.load offset=24 (local.get $counter))
          (i32.shl (i32.and (local.get $hash) (i32.load offset=28 (local.get $counter))) (i32.const 2)))))
    (block $missing
      (loop $chain
        (br_if $missing (i32.lt_s (local.get $slot) (i32.const 0)))
        (if (i32.eq (local.get $hash)
              (i32.load (i32.add (i32.load offset=16 (local.get $counter)) (i32.shl (local.get $slot) (i32.const 2)))))
          (then
            (if (call $holds (local.get $counter) (local.get $slot) (local.get $at) (local.get $length) (local.get $kind))
              (then
                (i32.store (local.get $recent) (local.get $slot))
                (call $hit (local.get $counter) (local.get $slot))
                (return (local.get $slot))))))
        (local.set $slot
          (i32.load (i32.add (i32.load offset=20 (local.get $counter)) (i32.shl (local.get $slot) (i32.const 2)))))
        (br $chain)))
    (i32.const -1))

  ;; Whether $slot holds the key of $length bytes at $at, of kind $kind.
  (func $holds (param $counter i32) (param $slot i32) (param $at i32) (param $length i32) (param $kind i32) (result i32)
    (if (i32.ne (local.get $length)
          (i32.load (i32.add (i32.load offset=8 (local.get $counter)) (i32.shl (local.get $slot) (i32.const 2)))))
      (then (return (i32.const 0))))
    (if (i32.ne (local.get $kind) (i32.load8_u (i32.add (i32.load offset=12 (local.get $counter)) (local.get $slot))))
      (then (return (i32.const 0))))
    (call $same
      (i32.add (i32.load offset=4 (local.get $counter)) (i32.mul (local.get $slot) (i32.load (local.get $counter))))
      (local.get $at)
      (local.get $length)))

  ;; Whether the $length bytes at $a and at $b are the same: eight a step, the last few masked
  ;; (the bytes read past either end are in the memory, and masked off).
  (func $same (param $a i32) (param $b i32) (param $length i32) (result i32)
    (local $i i32)
    (block $tail
      (loop $words
        (br_if $tail (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $length)))
        (if (i64.ne (i64.load align=1 (i32.add (local.get $a) (local.get $i)))
              (i64.load align=1 (i32.add (local.get $b) (local.get $i))))
          (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $words)))
    (i64.eqz
      (i64.and
        (i64.xor
          (i64.load align=1 (i32.add (local.get $a) (local.get $i)))
          (i64.load align=1 (i32.add (local.get $b) (local.get $i))))
        (i64.sub
          (i64.shl (i64.const 1) (i64.extend_i32_u (i32.shl (i32.sub (local.get $length) (local.get $i)) (i32.const 3))))
          (i64.const 1)))))

  ;; One more of $slot's key. A counter that evicts is counted here only before it is full
  ;; (`$count`), when its heap need not be in order (byte-counts.ts: orderHeap).
  (func $hit (param $counter i32) (param $slot i32)
    (local $at i32)
    (local.set $at (i32.add (i32.load offset=32 (local.get $counter)) (i32.shl (local.get $slot) (i32.const 3))))
    (f64.store (local.get $at) (f64.add (f64.load (local.get $at)) (f64.const 1))))

)
