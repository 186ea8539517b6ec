/**
 * CSV records written as UTF-8 bytes, cell by cell, from bytes already in memory: the origin-log
 * CSV's cells are copied from the response body without becoming strings. The rule is
 * safety.ts's, and the bytes are exactly those of `csvRecord` encoded as UTF-8
 * (test/reports/csv/bytes.test.ts compares them on generated cells).
 */

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;
const APOSTROPHE = 0x27;

/**
 * The UTF-8 bytes `cell[at…end)` start with a character a spreadsheet would run (see safety.ts):
 * the one test of the CSV writers that work on bytes (this one and the export's guard.ts).
 */
export function startsFormula(cell: Uint8Array, at: number, end: number): boolean {
  if (at >= end) return false;
  switch (cell[at]) {
    case 0x3d: // =
    case 0x2b: // +
    case 0x2d: // -
    case 0x40: // @
    case 0x09: // tab
    case CR:
      return true;
    case 0xef: {
      // The full-width ＝ ＋ － ＠: U+FF1D, U+FF0B, U+FF0D, U+FF20.
      if (at + 2 >= end || cell[at + 1] !== 0xbc) return false;
      const last = cell[at + 2];
      return last === 0x9d || last === 0x8b || last === 0x8d || last === 0xa0;
    }
    default:
      return false;
  }
}

/** Appends CSV records to a buffer that grows as needed; `take()` hands over what was written. */
export class CsvByteWriter {
  private buf: Buffer;
  private at = 0;

  constructor(private readonly capacity = 256 * 1024) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  /** Bytes written since the last `take()`. */
  get length(): number {
    return this.at;
  }

  /** Makes room for `bytes` more. */
  room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }

  /** Text already in CSV form (a record from csvRecord), as UTF-8. */
  text(text: string): void {
    this.room(text.length * 3);
    this.at += this.buf.write(text, this.at, 'utf8');
  }

  /** Records already in CSV form whose characters are all ASCII: a byte each. */
  ascii(text: string): void {
    this.room(text.length);
    this.at += this.buf.write(text, this.at, 'latin1');
  }

  /** Records already written as bytes (origin/rows.ts). */
  bytes(records: Uint8Array): void {
    this.room(records.length);
    this.buf.set(records, this.at);
    this.at += records.length;
  }

  /** One byte of the record's framing: `,` between cells, CR and LF at its end. */
  byte(value: number): void {
    this.room(1);
    this.buf[this.at++] = value;
  }

  /** The record's end, CRLF. */
  endRecord(): void {
    this.room(2);
    this.buf[this.at++] = CR;
    this.buf[this.at++] = LF;
  }

  /**
   * One cell whose text is the UTF-8 bytes `src[from…to)`, neutralised and quoted as csvRecord
   * does it. The caller has made room for twice its length and 3 bytes more.
   */
  cell(src: Uint8Array, from: number, to: number): void {
    if (from === to) return;
    const out = this.buf;
    let o = this.at;
    if (startsFormula(src, from, to)) out[o++] = APOSTROPHE;
    for (let i = from; i < to; i++) {
      const byte = src[i]!;
      if (byte === QUOTE || byte === COMMA || byte === CR || byte === LF) {
        this.quoted(src, from, to);
        return;
      }
      out[o++] = byte;
    }
    this.at = o;
  }

  /** The cell again, between quotes, its quotes doubled. */
  private quoted(src: Uint8Array, from: number, to: number): void {
    const out = this.buf;
    let o = this.at;
    out[o++] = QUOTE;
    if (startsFormula(src, from, to)) out[o++] = APOSTROPHE;
    for (let i = from; i < to; i++) {
      const byte = src[i]!;
      if (byte === QUOTE) out[o++] = QUOTE;
      out[o++] = byte;
    }
    out[o++] = QUOTE;
    this.at = o;
  }

  /** ASCII bytes as they are, no check: the caller knows they need neither quotes nor a `'`. */
  plain(src: Uint8Array, from: number, to: number): void {
    const out = this.buf;
    let o = this.at;
    for (let i = from; i < to; i++) out[o++] = src[i]!;
    this.at = o;
  }

  /** What was written since the last call; the writer goes on in fresh memory. */
  take(): Buffer {
    const written = this.buf.subarray(0, this.at);
    this.buf = Buffer.allocUnsafe(Math.max(this.capacity, this.at + (this.at >> 2)));
    this.at = 0;
    return written;
  }
}
