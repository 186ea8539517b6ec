/**
 * The formula guard's way through a CSV: where the next comma, quote or line break is. The
 * bytes are classified 16 at a time by a WebAssembly SIMD function (stops.wat) over a window of
 * the buffer, and the guard's JavaScript steps from one offset to the next: a cell costs a few
 * steps, not one per byte. Most records need no steps at all: records() finds the cells of every
 * record of the window that reads as CSV should (from a bitmask of each 64 bytes' stops), with
 * what the guard must rewrite flagged. Where
 * WebAssembly cannot run (`--jitless`, an address-space limit too small for its memory), the
 * same steps are taken byte by byte in JavaScript.
 *
 * One WebAssembly instance serves every guard of a thread (V8 reserves gigabytes of address
 * space for each memory): a guard's scan runs to its end without yielding, and a guard whose
 * window another one overwrote classifies it again.
 */
import { wasmBytes } from './stops-wasm.js';

/** Bytes read per window; the memory holds the window, 16 bytes of padding and an offset per byte. */
const WINDOW = 64 * 1024;
/** No record records() reads is longer: it reads within one window. */
export const LONGEST_RECORD_READ = WINDOW;
const OFFSETS_AT = WINDOW + 16;
/** Where `records` writes its count and entries (stops.wat): page 6 on, room for two per window byte. */
const RECORDS_AT = 6 * 64 * 1024;
/** Bytes classified at a time (a multiple of 16): the guard reads most records whole (records()), not by their stops. */
const CLASSIFIED = 2 * 1024;
/** A window that ends closer than this to a record's start is filled again from there before records(). */
const RECORDS_AHEAD = 4 * 1024;

/** An entry of records() that ends a record; any other is a cell's end × 16 plus its flags (stops.wat). */
export const RECORD_END = 0xffff_ffff;
/** An entry's bits from this one up hold the slot + 1 of a cell records() counted (0: not counted). */
export const COUNTED_SHIFT = 21;
/**
 * The flags (low 4 bits) of an entry from COUNTED up, below APOSTROPHE, that stands for a run of
 * whole CRLF records, ending where it says, their bytes as they came: as many as its slot bits
 * say. No cell has these flags (a doubled quote is only ever in a quoted cell).
 */
export const RUN = 2;
/** An entry's bits that hold its cell's end × 16 and its flags. */
export const CELL_BITS = (1 << COUNTED_SHIFT) - 1;
/** Bits of the slot + 1 in an entry (and in what records() reads of a record): a counter holds fewer slots. */
export const COUNTED_SLOT_BITS = 32 - COUNTED_SHIFT;

/** Where one summary's counters live in the memory (stops.wat: page 15 on), so that records() counts its cells. */
const COUNTING_AT = 15 * 64 * 1024;
const COUNTING_BYTES = 32 * 64 * 1024;
/**
 * The tally table (stops.wat: `$countRecord`), i32s: a counter's address per column, for the
 * first COUNTED_COLUMNS; then TIME_COLUMN, READ and NOTHING_WANTED; at MINUTE_AT bytes, the
 * minute last read (then, at 296, the one a records() call started with); at ROLES_AT, a byte
 * per column: its role.
 */
export const COUNTED_COLUMNS = 64;
/** The column of the events' times, -1 for none. */
export const TIME_COLUMN = 64;
/** The address of what records() read of each record: two u32s per record of a call (stops.wat). */
export const READ = 65;
/**
 * What records() read of a record's time is its ms from the call's minute (CountingLease:
 * callMinuteAt), plus this: a time of another minute is read there too.
 */
export const READ_TIME_BIAS = 0x4000_0000;
/** 1 when no cell is wanted at all. */
const NOTHING_WANTED = 72;
const MINUTE_AT = 264;
/** The minute a records() call reads its times from (stops.wat: `$time`), an f64. */
const CALL_MINUTE_AT = 296;
export const ROLES_AT = 320;
const TALLY_BYTES = 512;
/** What a lease holds for counters after its table. */
export const COUNTING_MEMORY_BYTES = COUNTING_BYTES - TALLY_BYTES;
/** The table records() takes for a guard with no sink: no cell wanted, nothing to count. */
export const NO_SINK_TABLE = COUNTING_AT + COUNTING_BYTES;
/** Most records one records() call reads: each takes two bytes at least (a cell and its delimiter). */
export const MOST_RECORDS = (WINDOW + 16) / 2;
/** An entry from this one up is of a cell records() counted, or of a record's cells it wrote as one. */
export const COUNTED = 1 << COUNTED_SHIFT;
/**
 * An entry from this one up (RECORD_END aside) is where the guard puts a `'` in a record records()
 * wrote as one: at its CELL_BITS' offset × 16. A counted cell's slot + 1 never reaches its top bits.
 */
export const APOSTROPHE = 0xffe0_0000;

interface StopsExports {
  memory: { buffer: ArrayBuffer };
  stops(from: number, to: number, out: number): number;
  records(from: number, to: number, kind: number, out: number, tally: number, joins: number): number;
}

/** What this file uses of WebAssembly: Node has it all, the project's type libraries (no DOM) do not declare it. */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

/** The thread's classifier: its memory as bytes and offsets, and which CsvStops' window it holds. */
interface Classifier {
  bytes: Uint8Array;
  offsets: Uint32Array;
  /** What records() wrote: its count, then its entries. */
  entries: Uint32Array;
  classify: StopsExports['stops'];
  records: StopsExports['records'];
  holder: CsvStops | undefined;
}

/** The thread's classifier, made on first use; null where WebAssembly cannot run here. */
let shared: Classifier | null | undefined;

/**
 * The memory records() counts in, lent to one summary of the thread at a time: its tally table
 * (the counter of each column, by address, 0 for none) and the counters' blocks after it.
 */
export interface CountingLease {
  buffer: ArrayBuffer;
  /** The tally table, as records() takes it, at `tally`. */
  table: Int32Array;
  tally: number;
  /** Where the tally table holds the minute last read (event-time.ts: MinuteCache). */
  minuteAt: number;
  /** Where it holds the minute a records() call read its times from: what READ_TIME_BIAS counts from. */
  callMinuteAt: number;
  /** Where the counters' blocks may go: [from, to). */
  from: number;
  to: number;
}

/** Who holds the thread's counting memory: a holder collected without giving it back no longer does. */
let countingHolder: WeakRef<object> | undefined;

/**
 * The thread's counting memory for `holder`, cleared, or undefined when another summary holds it
 * (or WebAssembly cannot run): that one counts in JavaScript alone. Give it back with endCounting.
 */
export function leaseCounting(holder: object): CountingLease | undefined {
  const classifierHere = classifier();
  if (classifierHere === null || countingHolder?.deref() !== undefined) return undefined;
  countingHolder = new WeakRef(holder);
  const buffer = classifierHere.bytes.buffer as ArrayBuffer;
  const table = tableAt(buffer, COUNTING_AT);
  return {
    buffer,
    table,
    tally: COUNTING_AT,
    minuteAt: COUNTING_AT + MINUTE_AT,
    callMinuteAt: COUNTING_AT + CALL_MINUTE_AT,
    from: COUNTING_AT + TALLY_BYTES,
    to: COUNTING_AT + COUNTING_BYTES,
  };
}

/** A tally table at `at`, cleared: no column counted, no time column. */
function tableAt(buffer: ArrayBuffer, at: number): Int32Array {
  new Uint8Array(buffer, at, TALLY_BYTES).fill(0);
  const table = new Int32Array(buffer, at, TALLY_BYTES / 4);
  table[TIME_COLUMN] = -1;
  return table;
}

/** Gives the counting memory back; the holder must have moved its counters out first. */
export function endCounting(holder: object): void {
  if (countingHolder?.deref() === holder) countingHolder = undefined;
}

function classifier(): Classifier | null {
  if (shared === undefined) shared = newClassifier();
  return shared;
}

function newClassifier(): Classifier | null {
  const wasm = (globalThis as unknown as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (wasm === undefined) return null;
  try {
    const exports = new wasm.Instance(new wasm.Module(wasmBytes)).exports as StopsExports;
    tableAt(exports.memory.buffer, NO_SINK_TABLE)[NOTHING_WANTED] = 1;
    return {
      bytes: new Uint8Array(exports.memory.buffer),
      offsets: new Uint32Array(exports.memory.buffer, OFFSETS_AT, WINDOW),
      entries: new Uint32Array(exports.memory.buffer, RECORDS_AT, 2 * WINDOW + 1),
      classify: exports.stops,
      records: exports.records,
      holder: undefined,
    };
  } catch {
    // No room for its memory (an address-space limit): the byte-by-byte way.
    return null;
  }
}

const NOTHING = new Uint8Array(0);
const NO_ENTRIES = new Uint32Array(1);

/** The four bytes a CSV's structure is made of: 1 at a comma, a quote, a CR or an LF. */
export const STOP_BYTES = new Uint8Array(256);
for (const byte of [0x2c, 0x22, 0x0d, 0x0a]) STOP_BYTES[byte] = 1;

export class CsvStops {
  private readonly shared: Classifier | null;
  private buf: Uint8Array = new Uint8Array(0);
  // The window in the classifier's memory, [start, end) of `buf`; the part of it classified last,
  // its `count` offsets (from `classifiedFrom`), and the next to read.
  private start = 0;
  private end = 0;
  private classifiedFrom = 0;
  private classifiedTo = 0;
  private count = 0;
  private at = 0;

  /** `simd: false` steps byte by byte, as where WebAssembly cannot run (for tests). */
  constructor(options: { simd?: boolean } = {}) {
    this.shared = options.simd === false ? null : classifier();
  }

  /** Whether the SIMD classifier is in use. */
  get simd(): boolean {
    return this.shared !== null;
  }

  /** Reads `buf` from now on: call before next() whenever the buffer or its bytes change. */
  reset(buf: Uint8Array): void {
    this.buf = buf;
    this.start = this.end = this.classifiedFrom = this.classifiedTo = this.count = this.at = 0;
  }

  /**
   * Lets the buffer go (the thread's classifier remembers this object): call when a scan ends,
   * so that a guard's carried cell (megabytes at most) is not kept alive by the last one to scan.
   */
  release(): void {
    this.reset(NOTHING);
  }

  /** The first comma, quote, CR or LF at or after `from`, or the buffer's length when there is none. */
  next(from: number): number {
    const shared = this.shared;
    if (shared === null) return this.nextByBytes(from);
    let i = from;
    for (;;) {
      if (i >= this.classifiedFrom && i < this.classifiedTo && shared.holder === this) {
        const { count } = this;
        const offsets = shared.offsets;
        const target = i - this.classifiedFrom;
        let at = this.at;
        // The guard reads forward; a step back restarts the offsets.
        if (at > 0 && offsets[at - 1]! >= target) at = 0;
        while (at < count && offsets[at]! < target) at++;
        this.at = at;
        if (at < count) return this.classifiedFrom + offsets[at]!;
        i = this.classifiedTo;
      }
      if (i >= this.buf.length) return this.buf.length;
      if (shared.holder !== this || i < this.start || i >= this.end) this.fill(shared, i);
      this.classify(shared, i);
    }
  }

  /**
   * Reads, from `from` (where a record starts), the records the formula guard writes as they are
   * (stops.wat: records), with `delimiter` their record delimiter (1 CRLF, 2 LF, 3 CR): returns
   * where the first record it did not read starts (`from` when none, and always without SIMD).
   * `entries` then holds their count and entries, whose offsets count from `windowStart`. With
   * `tally` (a CountingLease's), the named cells of each record read are counted as it ends; with
   * `joins` too, a run of CRLF records each written as one entry is one entry (RUN).
   */
  records(from: number, delimiter: number, tally = 0, joins = false): number {
    const shared = this.shared;
    if (shared === null) return from;
    if (tally !== 0 && tally !== NO_SINK_TABLE && tally !== COUNTING_AT)
      throw new TypeError("records() counts with a CountingLease's tally table, or none");
    if (
      shared.holder !== this ||
      from < this.start ||
      (from + RECORDS_AHEAD > this.end && this.end < this.buf.length)
    )
      this.fill(shared, from);
    return (
      this.start +
      shared.records(from - this.start, this.end - this.start, delimiter, RECORDS_AT, tally, joins ? 1 : 0)
    );
  }

  /** Whether records() from `at` would fill the window again, the buffer going on past its end: it ends too near for a record. */
  windowEndsNear(at: number): boolean {
    return this.shared !== null && at + RECORDS_AHEAD > this.end && this.end < this.buf.length;
  }

  /** records()' count (at 0) and entries (from 1): valid until the next call on this thread, by any guard. */
  get entries(): Uint32Array {
    return this.shared?.entries ?? NO_ENTRIES;
  }

  /** Where the window records() read starts in the buffer. */
  get windowStart(): number {
    return this.start;
  }

  private nextByBytes(from: number): number {
    const buf = this.buf;
    let i = from;
    while (i < buf.length && STOP_BYTES[buf[i]!] === 0) i++;
    return Math.min(i, buf.length);
  }

  /** Copies the window from `from` into the classifier's memory; none of it is classified yet. */
  private fill(shared: Classifier, from: number): void {
    const to = Math.min(this.buf.length, from + WINDOW);
    const length = to - from;
    shared.bytes.set(this.buf.subarray(from, to), 0);
    shared.bytes.fill(0, length, length + 16);
    shared.holder = this;
    this.start = from;
    this.end = to;
    this.classifiedFrom = this.classifiedTo = 0;
  }

  /**
   * Finds the stops of the window's next CLASSIFIED bytes from `from` (where records() read all,
   * the guard needs none). A whole number of 16-byte blocks is read, the padding past the window's end being zeros.
   */
  private classify(shared: Classifier, from: number): void {
    const to = Math.min(this.end, from + CLASSIFIED);
    this.count = shared.classify(from - this.start, to - this.start, OFFSETS_AT);
    this.classifiedFrom = from;
    this.classifiedTo = to;
    this.at = 0;
  }
}
