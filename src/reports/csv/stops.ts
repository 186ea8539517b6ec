/**
 * The formula guard's way through a CSV: where the next comma, quote or line break is. The
 * bytes are classified 16 at a time by a WebAssembly SIMD function (stops.wat) over a window of
 * the buffer, and the guard's JavaScript steps from one offset to the next: a cell costs a few
 * steps, not one per byte. Each guard has its own instance (its memory is one window, 384 KiB).
 */
import { wasmBytes } from './stops-wasm.js';

/** Bytes classified per call; the memory holds the window, 16 bytes of padding and an offset per byte. */
const WINDOW = 64 * 1024;
const OFFSETS_AT = WINDOW + 16;

interface StopsExports {
  memory: { buffer: ArrayBuffer };
  stops(from: number, to: number, out: number): number;
}

/** What this file uses of WebAssembly: Node has it all, the project's type libraries (no DOM) do not declare it. */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

let compiled: object | undefined;

export class CsvStops {
  private readonly bytes: Uint8Array;
  private readonly offsets: Uint32Array;
  private readonly classify: StopsExports['stops'];
  private buf: Uint8Array = new Uint8Array(0);
  // The window classified last: [start, end) of `buf`, its `count` offsets, and the next to read.
  private start = 0;
  private end = 0;
  private count = 0;
  private at = 0;

  constructor() {
    compiled ??= new wasm.Module(wasmBytes);
    const exports = new wasm.Instance(compiled).exports as StopsExports;
    this.bytes = new Uint8Array(exports.memory.buffer);
    this.offsets = new Uint32Array(exports.memory.buffer, OFFSETS_AT, WINDOW);
    this.classify = exports.stops;
  }

  /** Reads `buf` from now on: call before next() whenever the buffer or its bytes change. */
  reset(buf: Uint8Array): void {
    this.buf = buf;
    this.start = this.end = this.count = this.at = 0;
  }

  /** The first comma, quote, CR or LF at or after `from`, or the buffer's length when there is none. */
  next(from: number): number {
    let i = from;
    for (;;) {
      if (i >= this.start && i < this.end) {
        const { offsets, count } = this;
        const target = i - this.start;
        let at = this.at;
        // The guard reads forward; a step back restarts the window's offsets.
        if (at > 0 && offsets[at - 1]! >= target) at = 0;
        while (at < count && offsets[at]! < target) at++;
        this.at = at;
        if (at < count) return this.start + offsets[at]!;
        i = this.end;
      }
      if (i >= this.buf.length) return this.buf.length;
      this.fill(i);
    }
  }

  private fill(from: number): void {
    const to = Math.min(this.buf.length, from + WINDOW);
    const length = to - from;
    this.bytes.set(this.buf.subarray(from, to), 0);
    this.bytes.fill(0, length, length + 16);
    this.count = this.classify(0, length, OFFSETS_AT);
    this.start = from;
    this.end = to;
    this.at = 0;
  }
}
