import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvFormulaGuard, CsvShapeError } from '../../../src/reports/csv/guard.js';
import { CsvStops, RECORD_END } from '../../../src/reports/csv/stops.js';
import { wasmBytes } from '../../../src/reports/csv/stops-wasm.js';

const STOP_BYTES = new Set([0x2c, 0x22, 0x0d, 0x0a]);

/** The oracle: the first comma, quote, CR or LF at or after `from`, byte by byte. */
function nextByBytes(buf: Uint8Array, from: number): number {
  let i = Math.min(from, buf.length);
  while (i < buf.length && !STOP_BYTES.has(buf[i]!)) i++;
  return i;
}

/** Bytes where the four and their SIMD neighbours (bytes one apart, high bytes) are common. */
const bytes = (maxLength: number) =>
  fc
    .array(
      fc.oneof(fc.constantFrom(0x2c, 0x22, 0x0d, 0x0a, 0x2b, 0x23, 0x0b, 0x09, 0xac, 0xa2, 0), fc.nat(255)),
      {
        maxLength,
      },
    )
    .map((list) => Uint8Array.from(list));

describe.each([
  ['16 bytes at a time (WebAssembly SIMD)', true],
  ['byte by byte, where WebAssembly cannot run', false],
])('where the formula guard steps next, %s', (_, simd) => {
  const stopsOf = () => {
    const stops = new CsvStops({ simd });
    expect(stops.simd).toBe(simd);
    return stops;
  };

  it('finds what a byte-by-byte scan finds, from any place, forward and back', () => {
    fc.assert(
      fc.property(bytes(300), fc.array(fc.nat(320), { maxLength: 40, size: 'max' }), (buf, places) => {
        const stops = stopsOf();
        stops.reset(buf);
        for (const from of places) expect(stops.next(from)).toBe(nextByBytes(buf, from));
      }),
      { numRuns: 2_000 },
    );
  });

  it('finds every stop of a buffer of several windows, one after another and after jumps', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.nat(2 ** 31),
        fc.array(fc.nat(210 * 1024), { maxLength: 60, size: 'max' }),
        (every, seed, jumps) => {
          // About one stop in `every` bytes over 200 KiB: windows of 64 KiB end inside cells and on stops.
          let state = seed;
          const random = () => {
            state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
            return state / 2 ** 32;
          };
          const buf = Uint8Array.from({ length: 200 * 1024 }, () =>
            random() < 1 / every ? [0x2c, 0x22, 0x0d, 0x0a][Math.floor(random() * 4)]! : 0x61,
          );
          const all = [...buf.keys()].filter((i) => STOP_BYTES.has(buf[i]!));
          const stops = stopsOf();
          stops.reset(buf);
          const found: number[] = [];
          for (let i = stops.next(0); i < buf.length; i = stops.next(i + 1)) found.push(i);
          expect(found).toEqual(all);
          for (const from of [...jumps].sort((a, b) => a - b))
            expect(stops.next(from)).toBe(nextByBytes(buf, from));
          for (const from of jumps) expect(stops.next(from)).toBe(nextByBytes(buf, from));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('reads a new buffer after reset, not the bytes of the last one', () => {
    const stops = stopsOf();
    stops.reset(Buffer.from('ab,cd'));
    expect(stops.next(0)).toBe(2);
    stops.reset(Buffer.from('abcd"e'));
    expect(stops.next(0)).toBe(4);
    stops.reset(Buffer.alloc(0));
    expect(stops.next(0)).toBe(0);
    // The last buffer's stops lie past this one's end, in the 16 bytes read with its last ones.
    stops.reset(Buffer.from('abcdefgh,,,,'));
    expect(stops.next(0)).toBe(8);
    stops.reset(Buffer.from('abc'));
    expect(stops.next(0)).toBe(3);
    stops.release();
    expect(stops.next(0)).toBe(0);
  });

  it('steps right when guards take turns with the one classifier of their thread', () => {
    const a = Buffer.from(`${'a'.repeat(70_000)},${'b'.repeat(10)}"`);
    // Its first window alone overwrites every offset the first guard's window had.
    const b = Buffer.from(`${'x\n'.repeat(40_000)}${'y'.repeat(1_000)}\r`);
    const first = stopsOf();
    const second = stopsOf();
    first.reset(a);
    second.reset(b);
    expect([first.next(0), second.next(0), first.next(70_001), second.next(2), first.next(0)]).toEqual([
      70_000, 1, 70_011, 3, 70_000,
    ]);
    expect([second.next(80_000), first.next(70_001), second.next(4)]).toEqual([81_000, 70_011, 5]);
  });
});

describe('the thread’s one classifier', () => {
  it('keeps no guard’s bytes once its scan ended: not a carried cell, not after an error', () => {
    const held = (guard: CsvFormulaGuard) =>
      (guard as unknown as { stops: { buf: Uint8Array } }).stops.buf.length;
    const guard = new CsvFormulaGuard();
    guard.push(Buffer.from(`a,b\r\n${'x'.repeat(100_000)}`));
    expect(held(guard)).toBe(0);
    guard.end();
    expect(held(guard)).toBe(0);
    const refused = new CsvFormulaGuard();
    expect(() => refused.push(Buffer.from(`a,b\r\nx"y${'z'.repeat(70_000)}`))).toThrow(CsvShapeError);
    expect(held(refused)).toBe(0);
  });
});

describe('a guard where WebAssembly cannot run', () => {
  it('steps byte by byte and writes the same file, under node --jitless (no WebAssembly at all)', async () => {
    const script = [
      "import { CsvFormulaGuard } from './src/reports/csv/guard.ts';",
      "import { CsvStops } from './src/reports/csv/stops.ts';",
      'const guard = new CsvFormulaGuard();',
      `const out = Buffer.concat([guard.push(Buffer.from('a,b\\r\\n=1+1,"x,y"\\r\\n')), guard.end()]);`,
      'process.stdout.write(JSON.stringify({ simd: new CsvStops().simd, csv: out.toString() }));',
    ].join('\n');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--jitless', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: new URL('../../..', import.meta.url) },
    );
    expect(JSON.parse(stdout)).toEqual({ simd: false, csv: 'a,b\r\n\'=1+1,"x,y"\r\n' });
  });
});

/**
 * records() (stops.wat) with no tally, read byte by byte: the oracle of its 64-byte blocks. What
 * it reads of [from, to) of `buf`, as in the WebAssembly memory: its entries and where it stopped.
 */
function recordsByBytes(buf: Uint8Array, from: number, to: number, kind: number) {
  const isLead = (byte: number, quoted: boolean) =>
    [0x3d, 0x2b, 0x2d, 0x40, 0x09, 0xef].includes(byte) || (quoted && byte === 0x0d);
  const delimiter = (at: number) => {
    const byte = buf[at]!;
    if (kind === 2) return byte === 0x0a ? 1 : 0;
    if (kind === 3) return byte === 0x0d ? 1 : 0;
    return byte === 0x0d && buf[at + 1] === 0x0a ? 2 : 0;
  };
  const entries: number[] = [];
  let record = from;
  for (;;) {
    const kept = entries.length;
    const stop = () => ({ entries: entries.slice(0, kept), end: record });
    let at = record;
    if (at >= to || buf[at] === 0x0d || buf[at] === 0x0a) return stop();
    let byte: number;
    for (;;) {
      if (at >= to) return stop();
      let flags: number;
      byte = buf[at]!;
      if (byte === 0x22) {
        if (++at >= to) return stop();
        flags = 1 | (isLead(buf[at]!, true) ? 4 : 0);
        for (;;) {
          if (at >= to) return stop();
          if (buf[at] === 0x22) {
            if (at + 1 >= to) return stop();
            if (buf[at + 1] !== 0x22) break;
            flags |= 10;
            at += 2;
            continue;
          }
          if (buf[at] === 0x2c || buf[at] === 0x0d || buf[at] === 0x0a) flags |= 8;
          at++;
        }
        if ((flags & 8) === 0) flags |= 4;
        if (++at >= to) return stop();
        byte = buf[at]!;
      } else {
        flags = byte !== 0x0d && isLead(byte, false) ? 4 : 0;
        for (;;) {
          while (at < to && !STOP_BYTES.has(buf[at]!)) at++;
          if (at >= to) return stop();
          byte = buf[at]!;
          if (byte === 0x2c) break;
          if (byte === 0x22 || (kind === 1 && at + 1 >= to)) return stop();
          if (delimiter(at)) break;
          flags = 12;
          at++;
        }
      }
      entries.push(((at << 4) | flags) >>> 0);
      if (byte === 0x2c) {
        at++;
        continue;
      }
      break;
    }
    if ((byte !== 0x0d && byte !== 0x0a) || (kind === 1 && at + 1 >= to)) return stop();
    const length = delimiter(at);
    if (length === 0) return stop();
    entries.push(0xffff_ffff);
    record = at + length;
  }
}

interface RecordsExports {
  memory: { buffer: ArrayBuffer };
  records(from: number, to: number, kind: number, out: number, tally: number, joins: number): number;
}
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

describe('records(): the cells of whole records, 64 bytes at a time', () => {
  it('joins a run of whole CRLF records, each written as one entry, into one entry', () => {
    const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
    const exports = new wasm.Instance(new wasm.Module(wasmBytes)).exports as RecordsExports;
    const memory = new Uint8Array(exports.memory.buffer);
    // A tally table that wants no cell (stops.ts: NO_SINK_TABLE): each record is folded.
    const table = 47 * 64 * 1024;
    const words = new Int32Array(exports.memory.buffer, table, 128);
    words[64] = -1;
    words[72] = 1;
    const OUT = 6 * 64 * 1024;
    const read = (text: string, joins: number) => {
      const bytes = Buffer.from(text);
      memory.set(bytes, 0);
      memory.fill(0, bytes.length, bytes.length + 64);
      const end = exports.records(0, bytes.length, text.includes('\r\n') ? 1 : 2, OUT, table, joins);
      const count = new Uint32Array(exports.memory.buffer, OUT, 1)[0]!;
      return { end, entries: [...new Uint32Array(exports.memory.buffer, OUT + 4, count)] };
    };
    const run = (end: number, records: number) => ((end << 4) | 2 | (records << 21)) >>> 0;
    const one = (end: number) => ((end << 4) | (1 << 21)) >>> 0;
    // Records 1-2 joined; 3 needs its `'`; 4 alone; 5 is cut by the window's end.
    const text = 'a,b\r\nc,d\r\n=e,f\r\ng,h\r\ni,';
    expect(read(text, 1)).toEqual({
      end: 21,
      entries: [
        run(8, 2),
        RECORD_END,
        (0xffe0_0000 | (10 << 4)) >>> 0,
        one(14),
        RECORD_END,
        one(19),
        RECORD_END,
      ],
    });
    // Not asked, or not CRLF: one entry a record.
    expect(read(text, 0).entries.slice(0, 4)).toEqual([one(3), RECORD_END, one(8), RECORD_END]);
    expect(read('a,b\nc,d\ne', 1).entries).toEqual([one(3), RECORD_END, one(7), RECORD_END]);
    // A run holds 2,046 records at most: the slot bits' largest value below APOSTROPHE's.
    const many = read(`${'a,b\r\n'.repeat(3_000)}x`, 1).entries;
    expect(many).toEqual([run(2_045 * 5 + 3, 2_046), RECORD_END, run(2_999 * 5 + 3, 954), RECORD_END]);
  });

  it('reads what a byte-by-byte reading reads, wherever the window and the blocks end', () => {
    // The module alone, with a memory of its own: no guard's classifier is touched.
    const wasm = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
    const exports = new wasm.Instance(new wasm.Module(wasmBytes)).exports as RecordsExports;
    const memory = new Uint8Array(exports.memory.buffer);
    const OUT = 6 * 64 * 1024;
    const cell = fc.oneof(
      { weight: 4, arbitrary: fc.stringMatching(/^[a-z0-9=+\-@\t. ]{0,70}$/) },
      { weight: 2, arbitrary: fc.stringMatching(/^"([a-z,\r\n=]|"")*"$/) },
      { weight: 1, arbitrary: fc.constantFrom('\r', '\n', '"', 'a"b', '"a"b', '\uff1dx', '\r\n', '""') },
    );
    const body = fc
      .array(fc.array(cell, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 30 })
      .chain((records) =>
        fc.record({
          text: fc.constant(`${records.map((cells) => cells.join(',')).join('\r\n')}\r\n`),
          kind: fc.constantFrom(1, 2, 3),
          // Where the window starts and ends in the text, and the stale bytes past its padding.
          from: fc.nat(40),
          cut: fc.nat(2_000),
          stale: fc.constantFrom(0x2c, 0x22, 0x0a, 0x61),
        }),
      );
    fc.assert(
      fc.property(body, ({ text, kind, from, cut, stale }) => {
        const bytes = Buffer.from(text.replaceAll('\r\n', ['\r\n', '\n', '\r'][kind - 1]!));
        const to = Math.min(bytes.length, from + 1 + cut);
        memory.fill(stale, 0, 4096);
        memory.set(bytes.subarray(0, to), 0);
        memory.fill(0, to, to + 16);
        const end = exports.records(from, to, kind, OUT, 0, 0);
        const count = new Uint32Array(exports.memory.buffer, OUT, 1)[0]!;
        const entries = [...new Uint32Array(exports.memory.buffer, OUT + 4, count)];
        expect({ entries, end }).toEqual(recordsByBytes(memory, from, to, kind));
      }),
      { numRuns: 400 },
    );
  });
});
