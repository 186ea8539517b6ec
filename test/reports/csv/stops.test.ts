import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvFormulaGuard, CsvShapeError } from '../../../src/reports/csv/guard.js';
import { CsvStops } from '../../../src/reports/csv/stops.js';

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
