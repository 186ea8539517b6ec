/**
 * The named cells of every row, read by the formula guard (csv/guard.ts) in its one pass: the
 * header row says which column is which, then each data row's cells for those names are handed
 * over as text. The cells of a row that are plain ASCII become text with one decode per row;
 * the rest (UTF-8, doubled quotes) one decode each, as csv-parse reads them.
 */
import { EdgeopsError } from '../../errors.js';

/** The body is not CSV that can be read; the message says where and why. */
export class CsvShapeError extends EdgeopsError {
  override name = 'CsvShapeError';
  readonly kind = 'invalid-response';
  readonly outcome = 'failed';
  readonly unexpected = true;

  get userMessage(): string {
    return this.message;
  }
}

/**
 * The most header names a reader keeps, a spreadsheet's widest row: a header of millions of
 * short names, within the record bound, would otherwise fill a report thread's heap with strings.
 */
export const MOST_HEADER_COLUMNS = 16_384;

/** Adds a header name to `header`; past MOST_HEADER_COLUMNS the file is refused, saying why. */
export function addHeaderName(header: string[], name: string): void {
  if (header.length >= MOST_HEADER_COLUMNS)
    throw new CsvShapeError(
      `record 1 (the header) has more than ${MOST_HEADER_COLUMNS.toLocaleString('en-US')} columns, more than a spreadsheet opens`,
    );
  header.push(name);
}

/**
 * Named columns of every data row handed over as text in the same pass, for summaries of the
 * export (the incident room's counts by action, rule, country…). Costs a string per named cell.
 */
export interface CsvColumnTap {
  /** Header names, as the platform writes them; a name the header lacks always reads ''. */
  columns: readonly string[];
  /** The row's cells for `columns`, in that order, as csv-parse reads them (not neutralised). */
  onRow(cells: string[]): void;
}

/**
 * What the guard hands the cells of a record to, as byte ranges of its input, during the scan:
 * a consumer that reads the bytes itself (shield/summary.ts counts without making strings), or
 * ColumnReader, which makes text of them. `buf` is only valid until `settle(buf)`.
 */
export interface CsvCellSink {
  /** Whether the cell at `column` is read at all (every cell of the header is). */
  wants(column: number): boolean;
  /**
   * One cell of the current record: `"…"` read from `contentAt` to `closeAt` (`""` standing for
   * `"` when `doubled`), with csv-parse's NUL continuation (`"…"\0…`) from `tailAt` to `end` when
   * `tailAt < end`. `formula`: the CSV file gets this cell with a `'` in front.
   */
  cell(
    buf: Buffer,
    column: number,
    doubled: boolean,
    formula: boolean,
    contentAt: number,
    closeAt: number,
    tailAt: number,
    end: number,
  ): void;
  /**
   * Called before each call of records() (stops.ts): where it may count this sink's named cells
   * itself (a CountingLease's `tally`), or 0 when it may not.
   */
  countingTable?(): number;
  /**
   * The record is complete. `counted` ≥ 0: records() read it, at that index of its call, and
   * counted the cells it could (what it read is in the tally table's READ); cell() had the others.
   */
  record(buf: Buffer, counted?: number): void;
  /** `buf` is about to be overwritten: keep what is still needed of it. */
  settle(buf: Buffer): void;
}

export class ColumnReader implements CsvCellSink {
  private readonly width: number;
  /** Per column of the header, the tap's slot for it or -1; undefined while reading the header. */
  private slots: Int32Array | undefined;
  private readonly header: string[] = [];
  private row: string[];
  // ASCII cells of the current row waiting for the row's one decode.
  private readonly waitingSlot: Int32Array;
  private readonly waitingStart: Int32Array;
  private readonly waitingEnd: Int32Array;
  private waiting = 0;

  constructor(private readonly tap: CsvColumnTap) {
    this.width = tap.columns.length;
    this.row = this.emptyRow();
    this.waitingSlot = new Int32Array(this.width);
    this.waitingStart = new Int32Array(this.width);
    this.waitingEnd = new Int32Array(this.width);
  }

  /** Whether the cell at `column` is read at all. */
  wants(column: number): boolean {
    return this.slots === undefined || (this.slots[column] ?? -1) >= 0;
  }

  /**
   * One cell of the current record: `"…"` read from `contentAt` to `closeAt`, with csv-parse's NUL
   * continuation (`"…"\0…`) from `tailAt` to `end` when `tailAt < end`.
   */
  cell(
    buf: Buffer,
    column: number,
    doubled: boolean,
    _formula: boolean,
    contentAt: number,
    closeAt: number,
    tailAt: number,
    end: number,
  ): void {
    if (this.slots === undefined) {
      addHeaderName(this.header, decode(buf, doubled, contentAt, closeAt, tailAt, end));
      return;
    }
    const slot = this.slots[column] ?? -1;
    if (slot < 0) return;
    if (doubled || tailAt < end || !ascii(buf, contentAt, closeAt)) {
      this.row[slot] = decode(buf, doubled, contentAt, closeAt, tailAt, end);
      return;
    }
    const next = this.waiting++;
    this.waitingSlot[next] = slot;
    this.waitingStart[next] = contentAt;
    this.waitingEnd[next] = closeAt;
  }

  /** The record is complete: the header sets the columns, a data row goes to the tap. */
  record(buf: Buffer): void {
    if (this.slots === undefined) {
      const { header } = this;
      // A name the header repeats is read from its first column.
      this.slots = Int32Array.from(header, (name, column) =>
        header.indexOf(name) === column ? this.tap.columns.indexOf(name) : -1,
      );
      return;
    }
    this.settle(buf);
    const row = this.row;
    this.row = this.emptyRow();
    this.tap.onRow(row);
  }

  /** Decodes the waiting cells, all from one string; call before `buf` goes away. */
  settle(buf: Buffer): void {
    const count = this.waiting;
    if (count === 0) return;
    this.waiting = 0;
    const base = this.waitingStart[0]!;
    const text = buf.toString('latin1', base, this.waitingEnd[count - 1]);
    for (let i = 0; i < count; i++)
      this.row[this.waitingSlot[i]!] = text.slice(this.waitingStart[i]! - base, this.waitingEnd[i]! - base);
  }

  private emptyRow(): string[] {
    return new Array<string>(this.width).fill('');
  }
}

function ascii(buf: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (buf[i]! >= 0x80) return false;
  return true;
}

/** The cell's text as csv-parse reads it: UTF-8, `""` as `"`, the NUL continuation appended. */
export function decode(
  buf: Buffer,
  doubled: boolean,
  contentAt: number,
  closeAt: number,
  tailAt: number,
  end: number,
): string {
  let text = buf.toString('utf8', contentAt, closeAt);
  if (doubled) text = text.replaceAll('""', '"');
  if (tailAt < end) text += buf.toString('utf8', tailAt, end);
  return text;
}
