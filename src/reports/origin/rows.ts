/**
 * The CSV rows of entries in the platform's form, copied from the body's bytes by WebAssembly
 * (rows.wat) instead of joined as text: on a million-entry day, joining the rows and writing them
 * out as bytes took some 0.5 s of the report thread's 1.3 s; one call a row here, a fifth of that.
 * PlatformEntries finds each row's fields in the window of the body it reads, which is copied
 * here once a row needs it; a label set's cells are kept here once, and found by their place.
 *
 * Where WebAssembly cannot run (`--jitless`, an address-space limit too small for its memory),
 * `createPlatformRows` gives undefined and the rows are joined as text, as before.
 */
import type { CsvByteWriter } from '../csv/bytes.js';
import { wasmBytes } from './rows-wasm.js';

/** The longest window of the body copied here: platform-entries.ts reads it in windows no longer. */
export const ROWS_WINDOW = 64 * 1024;
/**
 * The label sets kept at once, and the longest cells of one (platform-entries.ts: LABEL_SETS, and
 * a set is kept when the text of its values is 256 characters at most, so its cells are shorter).
 */
export const KEPT_SETS = 4096;
export const KEPT_CELLS_CHARS = 256;

/** The layout of the memory (rows.wat), in bytes: the ISO text of the current minute at 0. */
const ISO_AT = 0;
/** Room for the cells of every set kept: the sets are forgotten when there are more, not before. */
const LABELS_AT = 64;
const LABELS_BYTES = KEPT_SETS * KEPT_CELLS_CHARS;
/** The cells of a set not kept (longer): no longer than the window its values were read from. */
const ONCE_AT = LABELS_AT + LABELS_BYTES;
const OUT_AT = ONCE_AT + ROWS_WINDOW;
/** Rows are handed to the CSV writer once the next might not fit here. */
const OUT_BYTES = 512 * 1024;
const WINDOW_AT = OUT_AT + OUT_BYTES;
/** The window, and the 16 bytes after it that rows.wat reads (and does not count) at its end. */
const MEMORY_BYTES = WINDOW_AT + ROWS_WINDOW + 16;
/** Bytes a row may add to its fields and cells: `'`, the ISO text, `SS.mmmZ`, 3 quoted cells' marks, commas, CRLF. */
const ROW_FRAME = 1 + 32 + 7 + 3 * 3 + 2 + 2;

interface RowsExports {
  memory: { buffer: ArrayBuffer };
  row(
    out: number,
    isoLength: number,
    msOfMinute: number,
    labelsAt: number,
    labelsLength: number,
    urlAt: number,
    urlLength: number,
    messageAt: number,
    messageLength: number,
    logIdAt: number,
    logIdLength: number,
  ): number;
}

/** What this file uses of WebAssembly: Node has it all, the project's type libraries (no DOM) do not declare it. */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

/** The compiled module, once a thread: each PlatformRows has an instance of its own. */
let compiled: object | null | undefined;

/** A writer of rows, or undefined where WebAssembly cannot run here. */
export function createPlatformRows(): PlatformRows | undefined {
  const wasm = (globalThis as unknown as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (wasm === undefined || compiled === null) return undefined;
  try {
    compiled ??= new wasm.Module(wasmBytes);
    return new PlatformRows(new wasm.Instance(compiled).exports as RowsExports);
  } catch {
    // No room for its memory (an address-space limit), or no WebAssembly at all: rows as text.
    compiled ??= null;
    return undefined;
  }
}

/** A label set's cells, `,status,error_code,server_zone,`, kept in the memory: where, and how long. */
export interface KeptCells {
  readonly at: number;
  readonly length: number;
}

export class PlatformRows {
  private readonly bytes: Uint8Array;
  private readonly row: RowsExports['row'];
  /** Where the window copied lies in the body; none yet. */
  private windowFrom = 0;
  private windowTo = 0;
  /** The cells kept end here; a set's cells that are not kept are written here too, for one row. */
  private labelsEnd = LABELS_AT;
  private out = OUT_AT;
  /** Timestamps of a day come in order: the ISO text of the current minute is written once. */
  private isoMinute = Number.NaN;
  private isoLength = 0;

  constructor(exports: RowsExports) {
    this.bytes = new Uint8Array(exports.memory.buffer);
    if (this.bytes.length < MEMORY_BYTES)
      throw new RangeError(
        `the rows' memory has ${this.bytes.length} bytes, and its layout needs ${MEMORY_BYTES}`,
      );
    this.row = exports.row;
  }

  /**
   * Keeps a label set's cells (ASCII, at most KEPT_CELLS_CHARS): where they are, or undefined
   * once KEPT_SETS are kept. Then every set kept is forgotten (`forgetCells`) and kept again.
   */
  keepCells(cells: string): KeptCells | undefined {
    if (cells.length > KEPT_CELLS_CHARS)
      throw new RangeError(`a label set's cells of ${cells.length} characters are too long to keep`);
    if (this.labelsEnd + cells.length > LABELS_AT + LABELS_BYTES) return undefined;
    const at = this.labelsEnd;
    this.labelsEnd += this.writeAscii(cells, at);
    return { at, length: cells.length };
  }

  /** Forgets every label set's cells kept: their places are written over next. */
  forgetCells(): void {
    this.labelsEnd = LABELS_AT;
  }

  /** A label set's cells (ASCII, at most ROWS_WINDOW) for the next row only: a set too long to keep. */
  cellsOnce(cells: string): KeptCells {
    if (cells.length > ROWS_WINDOW)
      throw new RangeError(`a label set's cells of ${cells.length} characters are longer than a window`);
    return { at: ONCE_AT, length: this.writeAscii(cells, ONCE_AT) };
  }

  /** The window `from…to` of `body` (at most ROWS_WINDOW bytes) that holds the next rows' fields. */
  window(body: Uint8Array, from: number, to: number): void {
    if (to - from > ROWS_WINDOW || from < 0 || from > to || to > body.length)
      throw new RangeError(
        `bytes ${from}…${to} of ${body.length} are not a window of at most ${ROWS_WINDOW}`,
      );
    this.bytes.set(body.subarray(from, to), WINDOW_AT);
    this.windowFrom = from;
    this.windowTo = to;
  }

  /**
   * Writes one row: the time `timestamp`, the label set's `cells`, and the URL, message and log
   * id at these offsets of the body, in the window last given. Rows that would not fit go to `csv` first.
   */
  write(
    csv: CsvByteWriter,
    timestamp: number,
    cells: KeptCells,
    url: number,
    urlLength: number,
    message: number,
    messageLength: number,
    logId: number,
    logIdLength: number,
  ): void {
    const from = this.windowFrom;
    const to = this.windowTo;
    // Each field lies in the window; what is cheap to check is checked, so that no caller's slip
    // reads other bytes of the memory or writes a row over them.
    if (
      !(url >= from && url + urlLength <= to && message >= from && message + messageLength <= to) ||
      !(
        logId >= from &&
        logId + logIdLength <= to &&
        urlLength >= 0 &&
        messageLength >= 0 &&
        logIdLength >= 0
      )
    )
      throw new RangeError(`a row's fields are not in the window ${from}…${to} of the body`);
    const longest = ROW_FRAME + cells.length + urlLength + messageLength + logIdLength;
    if (this.out + longest > OUT_AT + OUT_BYTES) this.flush(csv);
    const minute = Math.floor(timestamp / 60_000);
    if (minute !== this.isoMinute) {
      this.isoMinute = minute;
      // The ISO text up to the seconds: `2026-11-21T10:00:`, or with a sign and six digits of year.
      this.isoLength = this.writeAscii(new Date(minute * 60_000).toISOString().slice(0, -7), ISO_AT);
    }
    const shift = WINDOW_AT - this.windowFrom;
    this.out = this.row(
      this.out,
      this.isoLength,
      timestamp - minute * 60_000,
      cells.at,
      cells.length,
      url + shift,
      urlLength,
      message + shift,
      messageLength,
      logId + shift,
      logIdLength,
    );
  }

  /** Hands the rows written to `csv`. */
  flush(csv: CsvByteWriter): void {
    if (this.out === OUT_AT) return;
    csv.bytes(this.bytes.subarray(OUT_AT, this.out));
    this.out = OUT_AT;
  }

  /** Writes ASCII text at `at`: its length. */
  private writeAscii(text: string, at: number): number {
    const bytes = this.bytes;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) throw new RangeError('the rows are written from ASCII text only');
      bytes[at + i] = code;
    }
    return text.length;
  }
}
