;; Where a CSV's commas, quotes and line breaks are, 16 bytes at a time (WebAssembly SIMD): the
;; formula guard (guard.ts) jumps from one to the next instead of testing every byte in JavaScript.
;; Compiled by `npm run wasm` into stops-wasm.ts (`npm run lint` fails when the two differ);
;; test/reports/csv/stops.test.ts holds what stops.ts finds to a byte-by-byte scan.
(module
  ;; Pages of 64 KiB: the input window (stops.ts: WINDOW, 64 KiB, and 16 bytes of padding) and
  ;; its offsets (4 bytes each, at most one per input byte).
  (memory (export "memory") 6)

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
    (i32.shr_u (i32.sub (local.get $written) (local.get $out)) (i32.const 2))))
