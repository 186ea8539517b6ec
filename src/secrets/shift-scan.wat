;; The file scrub's search (file-scrub.ts: SecretMatcher), its inner loop: Wu–Manber's shift
;; table moves a window over the bytes until the window ends on a block of three bytes that ends a
;; secret's window too (a shift of 0). JavaScript checks which secret, if any, starts there.
;;
;; Memory: the shift table, a byte per block key, at 0 (65,536 bytes); the bytes searched from
;; page 1 on (file-scrub.ts: SLAB_AT, SCAN_SLAB).
(module
  (memory (export "memory") 5 5)

  ;; From the window that ends at byte $end, the first window end before $stop whose block has a
  ;; shift of 0; or, when there is none, where the window ended past its last move (at or past
  ;; $stop). A block's key: ((a << 10) ^ (b << 5) ^ c) & 0xffff, its bytes a, b, c (file-scrub.ts).
  (func $scan (export "scan") (param $end i32) (param $stop i32) (result i32)
    (local $step i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $end) (local.get $stop)))
        (local.set $step
          (i32.load8_u
            (i32.and
              (i32.xor
                (i32.xor
                  (i32.shl (i32.load8_u (i32.sub (local.get $end) (i32.const 2))) (i32.const 10))
                  (i32.shl (i32.load8_u (i32.sub (local.get $end) (i32.const 1))) (i32.const 5)))
                (i32.load8_u (local.get $end)))
              (i32.const 0xffff))))
        (br_if $done (i32.eqz (local.get $step)))
        (local.set $end (i32.add (local.get $end) (local.get $step)))
        (br $next)))
    (local.get $end))
;; As `scan`, two moves at a time: one run of moves from $end, another from halfway to $stop.
  ;; Each move waits for the byte and the table entry it reads; two independent runs overlap those
  ;; waits. Returns a window end before $stop whose block has a shift of 0, with no secret's
  ;; window ending between $end and it (a move never passes one), or, when there is none, a
  ;; position at or past $stop, before which none ends either: what the search needs of `scan`.
  ;; Not always `scan`'s own answer: the second run lands on other blocks than `scan` would,
  ;; from halfway on. The first half's block is the answer when it has one, else the second's.
  (func (export "scanPaired") (param $end i32) (param $stop i32) (result i32)
    (local $half i32)
    (local $other i32)
    (local $step i32)
    (local $otherStep i32)
    (local $found i32)
    ;; Nothing to read, or too little to be worth splitting.
    (if (i32.or
          (i32.ge_u (local.get $end) (local.get $stop))
          (i32.lt_u (i32.sub (local.get $stop) (local.get $end)) (i32.const 2048)))
      (then (return (call $scan (local.get $end) (local.get $stop)))))
    (local.set $half (i32.add (local.get $end) (i32.shr_u (i32.sub (local.get $stop) (local.get $end)) (i32.const 1))))
    (local.set $other (local.get $half))
    (block $apart
      (loop $both
        (br_if $apart (i32.ge_u (local.get $end) (local.get $half)))
        (br_if $apart (i32.ge_u (local.get $other) (local.get $stop)))
        (local.set $step
          (i32.load8_u
            (i32.and
              (i32.xor
                (i32.xor
                  (i32.shl (i32.load8_u (i32.sub (local.get $end) (i32.const 2))) (i32.const 10))
                  (i32.shl (i32.load8_u (i32.sub (local.get $end) (i32.const 1))) (i32.const 5)))
                (i32.load8_u (local.get $end)))
              (i32.const 0xffff))))
        (local.set $otherStep
          (i32.load8_u
            (i32.and
              (i32.xor
                (i32.xor
                  (i32.shl (i32.load8_u (i32.sub (local.get $other) (i32.const 2))) (i32.const 10))
                  (i32.shl (i32.load8_u (i32.sub (local.get $other) (i32.const 1))) (i32.const 5)))
                (i32.load8_u (local.get $other)))
              (i32.const 0xffff))))
        (br_if $apart (i32.or (i32.eqz (local.get $step)) (i32.eqz (local.get $otherStep))))
        (local.set $end (i32.add (local.get $end) (local.get $step)))
        (local.set $other (i32.add (local.get $other) (local.get $otherStep)))
        (br $both)))
    ;; One move at a time from here: the first half to its end, then the second.
    (local.set $found (call $scan (local.get $end) (local.get $half)))
    (if (i32.lt_u (local.get $found) (local.get $half)) (then (return (local.get $found))))
    (call $scan (local.get $other) (local.get $stop)))
)
