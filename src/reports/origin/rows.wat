;; The CSV rows of origin-log entries in the platform's form, written as bytes from the body's own
;; (rows.ts): the thread's JavaScript finds an entry's fields, and one
;; call here copies them into the row. The fields were matched as printable ASCII without `"` or
;; `\` (platform-entries.ts: PLAIN), so a cell needs quotes only for a comma, and a `'` only for a
;; first character a spreadsheet would run: csvCell's answer for such text.
;; Compiled by `npm run wasm` into rows-wasm.ts (`npm run lint` fails when the two differ);
;; test/reports/origin/scan.test.ts holds its rows, and those joined as text, to JSON.parse and csvRecord.
(module
  ;; Pages of 64 KiB (rows.ts: the offsets). At 0, the ISO text of the current minute up to its
  ;; seconds; from 64, the cells of the label sets kept (1 MiB, 256 bytes for each of 4,096), then
  ;; those of a set too long to keep; then the rows written; then the window of the body that is
  ;; being read, up to 64 KiB, and 16 bytes of padding. rows.ts checks that they fit.
  (memory (export "memory") 27)

  ;; Whether a comma is in [$at, $at + $length): 16 bytes at a time; the bytes past the end are
  ;; read (the memory has 16 bytes of padding after the chunk) but not counted.
  (func $hasComma (param $at i32) (param $length i32) (result i32)
    (local $end i32)
    (local $mask i32)
    (local.set $end (i32.add (local.get $at) (local.get $length)))
    (block $none
      (loop $blocks
        (br_if $none (i32.ge_u (local.get $at) (local.get $end)))
        (local.set $mask
          (i8x16.bitmask
            (i8x16.eq (v128.load align=1 (local.get $at)) (i8x16.splat (i32.const 0x2c)))))
        ;; Of the last 16, only those before the end.
        (if (i32.lt_u (i32.sub (local.get $end) (local.get $at)) (i32.const 16))
          (then
            (local.set $mask
              (i32.and
                (local.get $mask)
                (i32.sub
                  (i32.shl (i32.const 1) (i32.sub (local.get $end) (local.get $at)))
                  (i32.const 1))))))
        (if (local.get $mask) (then (return (i32.const 1))))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $blocks)))
    (i32.const 0))

  ;; Whether the byte at $at starts a formula: = + - @ (a tab or a CR is not in such text).
  (func $formula (param $at i32) (result i32)
    (local $byte i32)
    (local.set $byte (i32.load8_u (local.get $at)))
    (i32.or
      (i32.or (i32.eq (local.get $byte) (i32.const 0x3d)) (i32.eq (local.get $byte) (i32.const 0x2b)))
      (i32.or (i32.eq (local.get $byte) (i32.const 0x2d)) (i32.eq (local.get $byte) (i32.const 0x40)))))

  ;; The cell of the text [$at, $at + $length) written at $out: the index after it.
  (func $cell (param $out i32) (param $at i32) (param $length i32) (result i32)
    (local $quoted i32)
    (if (i32.eqz (local.get $length)) (then (return (local.get $out))))
    (local.set $quoted (call $hasComma (local.get $at) (local.get $length)))
    (if (local.get $quoted)
      (then
        (i32.store8 (local.get $out) (i32.const 0x22))
        (local.set $out (i32.add (local.get $out) (i32.const 1)))))
    (if (call $formula (local.get $at))
      (then
        (i32.store8 (local.get $out) (i32.const 0x27))
        (local.set $out (i32.add (local.get $out) (i32.const 1)))))
    (memory.copy (local.get $out) (local.get $at) (local.get $length))
    (local.set $out (i32.add (local.get $out) (local.get $length)))
    (if (local.get $quoted)
      (then
        (i32.store8 (local.get $out) (i32.const 0x22))
        (local.set $out (i32.add (local.get $out) (i32.const 1)))))
    (local.get $out))

;; One row at $out: the time (the minute's ISO text at 0, $isoLength bytes, then the seconds
  ;; and milliseconds of $msOfMinute and `Z`), the label set's cells as they are ($labelsAt, with
  ;; the commas around them), the URL, the message and the log id, each as a cell, and CRLF.
  ;; Returns the index after it.
  (func (export "row")
    (param $out i32) (param $isoLength i32) (param $msOfMinute i32)
    (param $labelsAt i32) (param $labelsLength i32)
    (param $urlAt i32) (param $urlLength i32)
    (param $messageAt i32) (param $messageLength i32)
    (param $logIdAt i32) (param $logIdLength i32)
    (result i32)
    (local $first i32)
    (local $seconds i32)
    (local $millis i32)
    ;; Years before 0 and after 9999 start with a sign, which a spreadsheet would run.
    (local.set $first (i32.load8_u (i32.const 0)))
    (if (i32.or (i32.eq (local.get $first) (i32.const 0x2b)) (i32.eq (local.get $first) (i32.const 0x2d)))
      (then
        (i32.store8 (local.get $out) (i32.const 0x27))
        (local.set $out (i32.add (local.get $out) (i32.const 1)))))
    (memory.copy (local.get $out) (i32.const 0) (local.get $isoLength))
    (local.set $out (i32.add (local.get $out) (local.get $isoLength)))
    ;; `SS.mmmZ`
    (local.set $seconds (i32.div_u (local.get $msOfMinute) (i32.const 1000)))
    (local.set $millis (i32.sub (local.get $msOfMinute) (i32.mul (local.get $seconds) (i32.const 1000))))
    (i32.store8 (local.get $out) (i32.add (i32.const 0x30) (i32.div_u (local.get $seconds) (i32.const 10))))
    (i32.store8 offset=1 (local.get $out) (i32.add (i32.const 0x30) (i32.rem_u (local.get $seconds) (i32.const 10))))
    (i32.store8 offset=2 (local.get $out) (i32.const 0x2e))
    (i32.store8 offset=3 (local.get $out) (i32.add (i32.const 0x30) (i32.div_u (local.get $millis) (i32.const 100))))
    (i32.store8 offset=4 (local.get $out)
      (i32.add (i32.const 0x30) (i32.rem_u (i32.div_u (local.get $millis) (i32.const 10)) (i32.const 10))))
    (i32.store8 offset=5 (local.get $out) (i32.add (i32.const 0x30) (i32.rem_u (local.get $millis) (i32.const 10))))
    (i32.store8 offset=6 (local.get $out) (i32.const 0x5a))
    (local.set $out (i32.add (local.get $out) (i32.const 7)))
    (memory.copy (local.get $out) (local.get $labelsAt) (local.get $labelsLength))
    (local.set $out (i32.add (local.get $out) (local.get $labelsLength)))
    (local.set $out (call $cell (local.get $out) (local.get $urlAt) (local.get $urlLength)))
    (i32.store8 (local.get $out) (i32.const 0x2c))
    (local.set $out
      (call $cell (i32.add (local.get $out) (i32.const 1)) (local.get $messageAt) (local.get $messageLength)))
    (i32.store8 (local.get $out) (i32.const 0x2c))
    (local.set $out
      (call $cell (i32.add (local.get $out) (i32.const 1)) (local.get $logIdAt) (local.get $logIdLength)))
    (i32.store16 (local.get $out) (i32.const 0x0a0d))
    (i32.add (local.get $out) (i32.const 2))))
