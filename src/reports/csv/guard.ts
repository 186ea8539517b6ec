/**
 * The Shield export's formula guard at disk speed: one pass over the platform's CSV bytes that
 * tracks RFC 4180 quoting, finds where each cell starts, and writes the file the product's CSV
 * rule (csv/safety.ts) asks for, without building records or strings. Past the first record, SIMD
 * code finds the cells of a window's records at a time (stops.ts: records) and the guard only
 * writes the cells that change and hands over the named ones; what that code leaves (malformed
 * CSV, empty lines, a NUL after a quote) the guard reads itself, stepping from one comma, quote or
 * line break to the next as SIMD code finds them, never through a cell's bytes.
 *
 * It writes byte for byte what csv-parse → neutraliseFormula → csv-stringify writes with the
 * export's options (bom, relax_column_count, skip_empty_lines; safeCsvOptions): the BOM dropped,
 * empty lines skipped, CRLF records, quotes only where a cell needs them, a `'` before every
 * cell that would run as a formula. test/reports/csv/guard.test.ts holds the two to the same
 * output on generated CSV cut at random chunk boundaries. Like csv-parse, it takes the first
 * line break outside quotes (CRLF, LF or CR) as the record delimiter, and any other line break
 * as cell text.
 *
 * Malformed CSV, decided once: what csv-parse refuses is refused with a CsvShapeError that says
 * where (a quote never closed, a quote inside an unquoted cell, text after a closing quote, a
 * record over the size bound); what it accepts is accepted the same way, including its one
 * leniency in quoting (a NUL byte after a closing quote continues the cell). Either way no
 * cell that starts a formula is written without its `'`. Two deliberate differences: a body
 * starting with a UTF-16 byte-order mark is refused (csv-parse re-reads it as UTF-16; the
 * export is UTF-8), and the size bound counts a record's raw bytes. Bytes that are not UTF-8
 * become U+FFFD, as csv-parse's decoding makes them.
 */
import { isUtf8 } from 'node:buffer';
import { startsFormula } from './bytes.js';
import { ColumnReader, type CsvCellSink, type CsvColumnTap, CsvShapeError } from './columns.js';
import {
  APOSTROPHE,
  CELL_BITS,
  COUNTED,
  COUNTED_SHIFT,
  CsvStops,
  LONGEST_RECORD_READ,
  NO_SINK_TABLE,
  RECORD_END,
  RUN,
  STOP_BYTES,
} from './stops.js';

export type { CsvCellSink, CsvColumnTap } from './columns.js';
export { CsvShapeError } from './columns.js';

/** csv-parse's relaxed reading has no such bound; ours keeps a record from sitting whole in memory. */
export const MAX_RECORD_BYTES = 8 * 1024 * 1024;

export interface CsvGuardOptions {
  /** Named columns of every data row, as text. */
  columns?: CsvColumnTap;
  /** The cells of every record as byte ranges, for a consumer that reads bytes (used instead of `columns`). */
  cells?: CsvCellSink;
  maxRecordBytes?: number;
  /** false: step through cells byte by byte, as where WebAssembly cannot run (stops.ts); for tests. */
  simd?: boolean;
  /**
   * Write into two output buffers in turn instead of a fresh one per chunk, so a long export
   * allocates nothing per chunk: what push() returns stays valid until the push after next.
   */
  reuseOutput?: boolean;
}

const COMMA = 0x2c;
const QUOTE = 0x22;
const CR = 0x0d;
const LF = 0x0a;
const NUL = 0x00;

// Where the scanner is within a cell.
/** At the cell's first byte, nothing read yet. */
const START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** Just past a closing quote: only a delimiter, a record delimiter, the end or a NUL may follow. */
const AFTER_CLOSE = 3;
/** The rest of a quoted cell after `"…"` and a NUL, read as unquoted text (csv-parse's leniency). */
const TAIL = 4;

// The record delimiter, found as csv-parse finds it: the first line break outside quotes.
const UNKNOWN = 0;
const DELIMITER_CRLF = 1;
const DELIMITER_LF = 2;
const DELIMITER_CR = 3;

/** First bytes of a cell that may start a formula: checked in full by startsFormula. */
const LEADS = new Uint8Array(256);
for (const byte of [0x3d, 0x2b, 0x2d, 0x40, 0x09, CR, 0xef]) LEADS[byte] = 1;

/** Copies shorter than this are done byte by byte: Buffer#copy costs a view per call. */
const SHORT_COPY = 32;
// The flags of a cell found by records() (stops.wat).
const CELL_QUOTED = 1;
const CELL_DOUBLED = 2;
/** Written otherwise than it came: it may start a formula, or its quotes come or go (endCell decides). */
const CELL_REWRITTEN = 4;
/** Holds a comma, quote or line break (bare: a line break). */
const CELL_SPECIAL = 8;
const CELL_FLAGS = 15;

/** Most records read here, one by one, after the SIMD reading of records found none it could read. */
const MOST_RECORDS_BETWEEN_TRIES = 64;

/**
 * Push the body's chunks in, get the rewritten CSV out: each call returns the bytes of every
 * record completed so far (a cell cut by the chunk's end waits for the next one), `end()` the rest.
 */
export class CsvFormulaGuard {
  /** Records written so far, the header included. */
  records = 0;

  private readonly maxRecordBytes: number;
  private readonly columns: CsvCellSink | undefined;

  private bomChecked = false;
  private delimiter = UNKNOWN;
  /** Holds the unfinished cell's bytes (from its first byte) and then the next chunk after them. */
  private scratch = Buffer.alloc(0);
  private carried = 0;
  // The scan's place within the carried cell, relative to its first byte.
  private state = START;
  private resumeAt = 0;
  private closeAt = 0;
  private tailAt = 0;
  /** The cell holds a delimiter, a quote or a line break: it is written quoted. */
  private special = false;
  /** What is carried is a whole record from its start (scan: the chunk's last record). */
  private carriedWhole = false;
  /** The quoted cell holds a doubled quote. */
  private doubled = false;
  /** Cells of the current record already written. */
  private cellIndex = 0;
  /** Raw bytes of the current record that came before the carried cell. */
  private recordBytes = 0;

  /** Where the next comma, quote or line break is, so that the bytes between are skipped, not read. */
  private readonly stops: CsvStops;
  // Records read by SIMD code (recordsOfWindow): how many to read here before trying again, and how
  // many after the next try that reads none (doubling, so that input it cannot read costs little).
  private readonly whole: boolean;
  private wait = 0;
  private backoff = 1;
  /** What records() found in the window, copied out of the thread's shared memory. */
  private entries = new Uint32Array(1024);
  /** Records whose cells SIMD code found (for tests and benchmarks); scan() read the others. */
  recordsBySimd = 0;
  private readonly outputs: Buffer[] | undefined;
  private turn = 0;
  // The output of the chunk being scanned.
  private out: Buffer = Buffer.alloc(0);
  private outAt = 0;
  private copyFrom = 0;

  constructor(options: CsvGuardOptions = {}) {
    this.maxRecordBytes = options.maxRecordBytes ?? MAX_RECORD_BYTES;
    this.columns = options.cells ?? (options.columns && new ColumnReader(options.columns));
    this.outputs = options.reuseOutput ? [Buffer.alloc(0), Buffer.alloc(0)] : undefined;
    this.stops = new CsvStops(options.simd === false ? { simd: false } : {});
    this.whole = this.stops.simd;
  }

  /** The rewritten bytes of the records this chunk completed. */
  push(chunk: Buffer): Buffer {
    try {
      // A record carried whole (the last chunk's last one) mostly ends at this chunk's first line
      // break: only that much is joined to it, and the rest is read where it is, not copied.
      if (this.carriedWhole) {
        const end = chunk.indexOf(this.lineEnd);
        if (end >= 0 && end + 1 < chunk.length) {
          this.scan(chunk.subarray(0, end + 1), false);
          return this.scan(chunk.subarray(end + 1), false, true);
        }
      }
      return this.scan(chunk, false);
    } finally {
      this.stops.release();
    }
  }

  /** The byte every record delimiter of this body ends with (a record's end is past the last one). */
  private get lineEnd(): number {
    return this.delimiter === DELIMITER_CR ? CR : LF;
  }

  /** The last record's bytes; throws CsvShapeError when the body ended inside a quoted cell. */
  end(): Buffer {
    try {
      return this.scan(Buffer.alloc(0), true);
    } finally {
      this.stops.release();
    }
  }

  /** The chunk, after the carried cell when there is one. */
  private input(chunk: Buffer): Buffer {
    const carried = this.carried;
    if (carried === 0) return chunk;
    const length = carried + chunk.length;
    if (this.scratch.length < length) {
      const grown = Buffer.allocUnsafe(Math.max(length, this.scratch.length * 2));
      this.scratch.copy(grown, 0, 0, carried);
      this.scratch = grown;
    }
    chunk.copy(this.scratch, carried);
    return this.scratch.subarray(0, length);
  }

  /** Keeps buf[from…] for the next chunk; `buf` is either the scratch or a chunk. */
  private keep(buf: Buffer, from: number, inScratch: boolean): void {
    const length = buf.length - from;
    if (inScratch) this.scratch.copyWithin(0, from, buf.length);
    else {
      if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(Math.max(length, 2 * buf.length));
      buf.copy(this.scratch, 0, from);
    }
    this.carried = length;
  }

  // One piece: the byte loop every exported byte passes, its state in locals; a call per state costs throughput.
  // `append`: the output goes on after the last scan's, which the caller has not taken.
  private scan(chunk: Buffer, final: boolean, append = false): Buffer {
    const inScratch = this.carried > 0;
    const buf = this.input(chunk);
    this.carried = 0;
    this.carriedWhole = false;
    const n = buf.length;
    this.startOutput(n + (n >> 3) + 16, append);
    this.copyFrom = 0;
    const columns = this.columns;
    const stops = this.stops;
    stops.reset(buf);
    let cellStart = 0;
    let recordStart = 0;
    let i = this.resumeAt;
    let state = this.state;
    let special = this.special;

    if (!this.bomChecked) {
      if (n < 3 && !final) {
        this.keep(buf, 0, inScratch);
        return this.out.subarray(0, 0);
      }
      this.bomChecked = true;
      if (n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
        cellStart = recordStart = i = this.copyFrom = 3;
      } else if (n >= 3 && buf[0] === 0xff && buf[1] === 0xfe) {
        throw new CsvShapeError('it is UTF-16 text (it starts with a UTF-16 byte-order mark), not UTF-8');
      }
    }

    for (;;) {
      if (state === START) {
        if (i >= n) break;
        if (i === recordStart && this.whole && this.cellIndex === 0 && this.recordBytes === 0) {
          if (this.wait > 0) this.wait--;
          else if (this.delimiter !== UNKNOWN) {
            const read = this.recordsOfWindows(buf, i);
            // The record after them needs this loop; one found none: wait longer before the next try.
            this.wait = read > i ? 1 : this.backoff;
            this.backoff = read > i ? 1 : Math.min(2 * this.backoff, MOST_RECORDS_BETWEEN_TRIES);
            if (read > i) {
              i = cellStart = recordStart = read;
              // The chunk's last record, cut by its end (no line break left): carried whole, for
              // records() to read with the next chunk, and not read here byte by byte.
              if (!final && buf.indexOf(this.lineEnd, read) < 0) {
                this.wait = 0;
                this.carriedWhole = read < n;
                break;
              }
              continue;
            }
          }
        }
        if (buf[i] === QUOTE) {
          state = QUOTED;
          this.doubled = false;
          i++;
          continue;
        }
        state = UNQUOTED;
      }
      if (state === UNQUOTED || state === TAIL) {
        // A stop right here (empty cells, dense input) needs no search.
        if (i < n && STOP_BYTES[buf[i]!] === 0) i = stops.next(i);
        if (i >= n) break;
        const byte = buf[i]!;
        if (byte === COMMA) {
          // Most cells need nothing: they go out with the bytes around them, read where wanted.
          if (special || state === TAIL || LEADS[buf[cellStart]!] !== 0)
            this.endCell(buf, cellStart, i, state, special);
          else {
            if (columns?.wants(this.cellIndex) === true)
              columns.cell(buf, this.cellIndex, false, false, cellStart, i, i, i);
            this.cellIndex++;
          }
          cellStart = ++i;
          state = START;
          special = false;
          continue;
        }
        if (byte === QUOTE) throw this.shapeError('has a quote inside a cell that does not start with one');
        const length = this.recordDelimiterAt(buf, i, final);
        if (length < 0) break;
        if (length === 0) {
          special = true;
          i++;
          continue;
        }
        if (state === UNQUOTED && i === cellStart && this.cellIndex === 0) this.skipEmptyLine(buf, i, length);
        else {
          this.endCell(buf, cellStart, i, state, special);
          this.endRecord(buf, i, length, recordStart);
        }
        i += length;
        cellStart = recordStart = i;
        state = START;
        special = false;
        continue;
      }
      if (state === QUOTED) {
        if (!special) {
          if (i < n && STOP_BYTES[buf[i]!] === 0) i = stops.next(i);
          if (i < n && buf[i] !== QUOTE) special = true;
        }
        if (special) {
          i = buf.indexOf(QUOTE, i);
          if (i < 0) i = n;
        }
        if (i >= n) break;
        if (i + 1 >= n && !final) break;
        if (buf[i + 1] === QUOTE) {
          special = true;
          this.doubled = true;
          i += 2;
          continue;
        }
        this.closeAt = i - cellStart;
        state = AFTER_CLOSE;
        i++;
        continue;
      }
      // AFTER_CLOSE
      if (i >= n) break;
      const byte = buf[i]!;
      if (byte === COMMA) {
        this.endCell(buf, cellStart, i, state, special);
        cellStart = ++i;
        state = START;
        special = false;
        continue;
      }
      if (byte === NUL) {
        this.tailAt = i - cellStart;
        state = TAIL;
        i++;
        continue;
      }
      if (byte === CR || byte === LF) {
        const length = this.recordDelimiterAt(buf, i, final);
        if (length < 0) break;
        if (length > 0) {
          this.endCell(buf, cellStart, i, state, special);
          this.endRecord(buf, i, length, recordStart);
          i += length;
          cellStart = recordStart = i;
          state = START;
          special = false;
          continue;
        }
      }
      throw this.shapeError('has text after the closing quote of a cell');
    }

    if (final) {
      if (state === QUOTED) throw this.shapeError('opens a quote that is never closed');
      if (!(state !== AFTER_CLOSE && state !== TAIL && i === cellStart && this.cellIndex === 0)) {
        this.endCell(buf, cellStart, n, state, special);
        this.endRecord(buf, n, 0, recordStart);
      }
      this.flush(buf, n);
      this.state = START;
      this.resumeAt = 0;
    } else {
      // The named cells read so far point into `buf`, which the carried cell is about to overwrite.
      columns?.settle(buf);
      this.flush(buf, cellStart);
      this.recordBytes += cellStart - recordStart;
      // A CR at the chunk's end may begin the record's delimiter (whether the byte loop stopped at
      // it or the record is carried whole): it counts at the record's end, which every byte does.
      const undecided = n > 0 && buf[n - 1] === CR ? 1 : 0;
      if (this.recordBytes + (n - cellStart - undecided) > this.maxRecordBytes) throw this.tooLarge();
      if (cellStart < n) this.keep(buf, cellStart, inScratch);
      this.state = state;
      this.special = special;
      this.resumeAt = i - cellStart;
    }
    if (this.outputs) this.outputs[this.turn] = this.out;
    const out = this.out.subarray(0, this.outAt);
    // csv-parse decodes every cell as UTF-8, turning what is not UTF-8 into U+FFFD; so do we.
    return isUtf8(out) ? out : Buffer.from(out.toString('utf8'));
  }

  /**
   * The records from `from` (a record's start) whose cells SIMD code found, window after window:
   * a record that a window's end cut is read from the next window, filled from its start, and
   * not byte by byte. Returns where the first record it did not read starts; that one
   * (malformed, a NUL after a closing quote, an empty line, cut by the chunk's end, or cut by a
   * window's end though it started more than RECORDS_AHEAD, 4 KiB, before it: a record that long
   * is rare) is read by scan().
   */
  private recordsOfWindows(buf: Buffer, from: number): number {
    let end = from;
    for (;;) {
      const read = this.recordsOfWindow(buf, end);
      if (read === end || !this.stops.windowEndsNear(read)) return read;
      end = read;
    }
  }

  /**
   * The records from `from` (a record's start) whose cells SIMD code found in one window
   * (stops.ts: records): cells that need nothing are handed over and left in place, the others
   * written by endCell. Returns where the first record it did not read starts. Cells that
   * records() counted for the sink (CsvCellSink.countingTable) are the sink's already: its
   * record() gets the record's index in the call, to take what was read of it.
   */
  private recordsOfWindow(buf: Buffer, from: number): number {
    const stops = this.stops;
    const columns = this.columns;
    // With no sink no cell is wanted: records() may write a record with nothing to rewrite as one entry.
    const table = columns === undefined ? NO_SINK_TABLE : (columns.countingTable?.() ?? 0);
    // Whole records may be joined (RUN) when none can be over the bound unseen.
    const end = stops.records(from, this.delimiter, table, this.maxRecordBytes >= LONGEST_RECORD_READ);
    if (end === from) return from;
    const base = stops.windowStart;
    const count = stops.entries[0]!;
    // Copied out first: a sink may run another guard of this thread, whose records() overwrites them.
    if (this.entries.length < count) this.entries = new Uint32Array(Math.max(count, 2 * this.entries.length));
    const entries = this.entries;
    entries.set(stops.entries.subarray(1, count + 1));
    const delimiterLength = this.delimiter === DELIMITER_CRLF ? 2 : 1;
    let cellStart = from;
    let recordStart = from;
    let cellEnd = from;
    let record = 0;
    for (let k = 0; k < count; k++) {
      const entry = entries[k]!;
      if (entry === RECORD_END) {
        this.endRecord(buf, cellEnd, delimiterLength, recordStart, table === 0 ? -1 : record++);
        this.recordsBySimd++;
        cellStart = recordStart = cellEnd + delimiterLength;
        continue;
      }
      if (entry >= APOSTROPHE) {
        // A formula in a record written as one: its `'` goes in, the cell after it as it came.
        this.flush(buf, base + ((entry & CELL_BITS) >>> 4));
        this.put(0x27);
        continue;
      }
      cellEnd = base + ((entry & CELL_BITS) >>> 4);
      if ((entry & CELL_FLAGS) === RUN && entry >= COUNTED) {
        // Whole CRLF records, their bytes as they came; the entry after is the last one's end.
        const joined = entry >>> COUNTED_SHIFT;
        this.endRun(buf, joined, record);
        record += joined;
        k++;
        cellStart = recordStart = cellEnd + delimiterLength;
        continue;
      }
      if ((entry & CELL_REWRITTEN) !== 0) {
        const quoted = (entry & CELL_QUOTED) !== 0;
        this.closeAt = cellEnd - 1 - cellStart;
        this.doubled = (entry & CELL_DOUBLED) !== 0;
        const state = quoted ? AFTER_CLOSE : UNQUOTED;
        // One records() counted is the sink's already.
        this.endCell(buf, cellStart, cellEnd, state, (entry & CELL_SPECIAL) !== 0, entry >= COUNTED);
      } else {
        // A cell records() counted (or a record's cells it wrote as one) is the sink's already.
        if (entry < COUNTED && columns?.wants(this.cellIndex) === true) {
          if ((entry & CELL_QUOTED) === 0)
            columns.cell(buf, this.cellIndex, false, false, cellStart, cellEnd, cellEnd, cellEnd);
          else
            columns.cell(
              buf,
              this.cellIndex,
              (entry & CELL_DOUBLED) !== 0,
              false,
              cellStart + 1,
              cellEnd - 1,
              cellEnd,
              cellEnd,
            );
        }
        this.cellIndex++;
      }
      cellStart = cellEnd + 1;
    }
    return end;
  }

  /**
   * The length of the record delimiter at `i` (a CR or LF), 0 when this line break is cell text,
   * -1 when the next chunk must tell. The first line break outside quotes sets the delimiter.
   */
  private recordDelimiterAt(buf: Buffer, i: number, final: boolean): number {
    const byte = buf[i];
    switch (this.delimiter) {
      case DELIMITER_LF:
        return byte === LF ? 1 : 0;
      case DELIMITER_CR:
        return byte === CR ? 1 : 0;
      case DELIMITER_CRLF:
        if (byte === LF) return 0;
        if (i + 1 < buf.length) return buf[i + 1] === LF ? 2 : 0;
        return final ? 0 : -1;
      default:
        if (byte === LF) {
          this.delimiter = DELIMITER_LF;
          return 1;
        }
        if (i + 1 < buf.length) {
          this.delimiter = buf[i + 1] === LF ? DELIMITER_CRLF : DELIMITER_CR;
          return this.delimiter === DELIMITER_CRLF ? 2 : 1;
        }
        if (!final) return -1;
        this.delimiter = DELIMITER_CR;
        return 1;
    }
  }

  /** The output buffer of a scan, with room for `room` bytes more: the other one of two, or a new one. */
  private startOutput(room: number, append: boolean): void {
    if (append) {
      this.reserve(room);
      return;
    }
    if (this.outputs) {
      this.turn ^= 1;
      this.out = this.outputs[this.turn]!;
      if (this.out.length < room) this.out = Buffer.allocUnsafe(room);
    } else this.out = Buffer.allocUnsafe(room);
    this.outAt = 0;
  }

  /** Copies the input from where copying stopped up to `to`, unchanged. */
  private flush(buf: Buffer, to: number): void {
    const from = this.copyFrom;
    this.copyFrom = to;
    if (to <= from) return;
    this.reserve(to - from);
    if (to - from < SHORT_COPY) {
      const out = this.out;
      let at = this.outAt;
      for (let j = from; j < to; j++) out[at++] = buf[j]!;
      this.outAt = at;
    } else this.outAt += buf.copy(this.out, this.outAt, from, to);
  }

  private put(byte: number): void {
    this.reserve(1);
    this.out[this.outAt++] = byte;
  }

  private reserve(bytes: number): void {
    if (this.outAt + bytes <= this.out.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.outAt + bytes));
    this.out.copy(grown, 0, 0, this.outAt);
    this.out = grown;
  }

  /**
   * One cell from `start` to `end` (its delimiter excluded), written in the rule's form;
   * `counted`: records() counted it for the sink already.
   */
  private endCell(
    buf: Buffer,
    start: number,
    end: number,
    state: number,
    special: boolean,
    counted = false,
  ): void {
    const quoted = state === AFTER_CLOSE || state === TAIL;
    const closeAt = quoted ? start + this.closeAt : end;
    const tailAt = state === TAIL ? start + this.tailAt : end;
    const contentAt = quoted ? start + 1 : start;
    // An empty quoted part leaves the tail's NUL as the first character: never a formula.
    const formula = startsFormula(buf, contentAt, closeAt);
    if (!counted)
      this.columns?.cell(
        buf,
        this.cellIndex,
        quoted && this.doubled,
        formula,
        contentAt,
        closeAt,
        tailAt,
        end,
      );
    this.cellIndex++;
    // Already in the rule's form: copied with the bytes around it.
    const inForm = quoted ? special && state === AFTER_CLOSE : !special;
    if (!formula && inForm) return;
    if (inForm) {
      // A formula in an otherwise kept cell: its apostrophe goes in, the rest goes with the bytes around it.
      this.flush(buf, contentAt);
      this.put(0x27);
      this.copyFrom = contentAt;
      return;
    }
    this.flush(buf, start);
    if (special) this.put(QUOTE);
    if (formula) this.put(0x27);
    this.copyFrom = contentAt;
    this.flush(buf, closeAt);
    if (state === TAIL) {
      this.copyFrom = tailAt;
      this.flush(buf, end);
    }
    if (special) this.put(QUOTE);
    this.copyFrom = end;
  }

  /**
   * Ends the record whose delimiter (of `length` bytes, 0 at the end of the body) is at `at`;
   * `counted`: its index among the records of the last records() call, which counted its cells.
   */
  private endRecord(buf: Buffer, at: number, length: number, recordStart: number, counted = -1): void {
    if (this.recordBytes + (at - recordStart) > this.maxRecordBytes) throw this.tooLarge();
    this.columns?.record(buf, counted);
    this.records++;
    this.cellIndex = 0;
    this.recordBytes = 0;
    if (length === 2) return;
    this.flush(buf, at);
    this.reserve(2);
    this.out[this.outAt++] = CR;
    this.out[this.outAt++] = LF;
    this.copyFrom = at + length;
  }

  /** `joined` records records() read whole and joined, from index `first` of its call: they need nothing here. */
  private endRun(buf: Buffer, joined: number, first: number): void {
    const columns = this.columns;
    if (columns !== undefined) for (let k = 0; k < joined; k++) columns.record(buf, first + k);
    this.records += joined;
    this.recordsBySimd += joined;
    this.cellIndex = 0;
    this.recordBytes = 0;
  }

  /** A line with nothing on it is left out, as csv-parse's skip_empty_lines does. */
  private skipEmptyLine(buf: Buffer, at: number, length: number): void {
    this.flush(buf, at);
    this.copyFrom = at + length;
  }
  private shapeError(what: string): CsvShapeError {
    return new CsvShapeError(`record ${(this.records + 1).toLocaleString('en-US')} ${what}`);
  }

  private tooLarge(): CsvShapeError {
    return this.shapeError(`is larger than ${this.maxRecordBytes / 1024 / 1024} MiB`);
  }
}
