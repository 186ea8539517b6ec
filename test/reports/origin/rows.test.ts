/**
 * The rows' writer in WebAssembly (rows.ts) on its own: what its caller may get wrong is refused,
 * not written from other bytes of its memory. scan.test.ts holds its rows to JSON.parse's.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CsvByteWriter } from '../../../src/reports/csv/bytes.js';
import {
  createPlatformRows,
  KEPT_CELLS_CHARS,
  PlatformRows,
  ROWS_WINDOW,
} from '../../../src/reports/origin/rows.js';

const DAY = Date.UTC(2026, 10, 21);

function rows(): PlatformRows {
  const made = createPlatformRows();
  if (!made) throw new Error('WebAssembly runs here');
  return made;
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the rows written in WebAssembly', () => {
  it('writes a row from the window given, its cells quoted and guarded as csvCell does', () => {
    const writer = rows();
    const csv = new CsvByteWriter();
    const body = Buffer.from('xx/a,b|=sum(1)|id-1yy');
    writer.window(body, 2, 19);
    const cells = writer.keepCells(',502,dns,DE,')!;
    writer.write(csv, DAY + 61_234, cells, 2, 4, 7, 7, 15, 4);
    writer.flush(csv);
    expect(csv.take().toString('latin1')).toBe(
      '2026-11-21T00:01:01.234Z,502,dns,DE,"/a,b",\'=sum(1),id-1\r\n',
    );
  });

  it('refuses a field outside the window given, and a row with no window yet', () => {
    const writer = rows();
    const csv = new CsvByteWriter();
    const cells = writer.keepCells(',502,dns,DE,')!;
    expect(() => writer.write(csv, DAY, cells, 0, 1, 0, 0, 0, 0)).toThrow(RangeError);
    writer.window(Buffer.from('0123456789'), 2, 8);
    for (const [url, urlLength, message, logId] of [
      [1, 2, 2, 2],
      [2, 7, 2, 2],
      [2, 1, 9, 2],
      [2, 1, 2, 8],
      [2, -1, 2, 2],
      [2, 1, 1, 2],
      [2, 1, 2, 1],
    ] as const)
      expect(() => writer.write(csv, DAY, cells, url, urlLength, message, 1, logId, 1)).toThrow(RangeError);
    expect(() => writer.write(csv, DAY, cells, 2, 1, 2, -1, 2, 1)).toThrow(RangeError);
    expect(() => writer.write(csv, DAY, cells, 2, 1, 2, 1, 2, -1)).toThrow(RangeError);
    writer.flush(csv);
    expect(csv.length).toBe(0);
  });

  it('refuses a window longer than its room, cells too long to keep or not ASCII', () => {
    const writer = rows();
    expect(() => writer.window(Buffer.alloc(ROWS_WINDOW + 1), 0, ROWS_WINDOW + 1)).toThrow(RangeError);
    expect(() => writer.window(Buffer.alloc(10), 4, 2)).toThrow(RangeError);
    expect(() => writer.window(Buffer.alloc(10), -1, 2)).toThrow(RangeError);
    expect(() => writer.window(Buffer.alloc(10), 4, 11)).toThrow(RangeError);
    expect(() => writer.keepCells(`,${'x'.repeat(KEPT_CELLS_CHARS)},`)).toThrow(RangeError);
    expect(() => writer.keepCells(',502,dné,DE,')).toThrow(RangeError);
    expect(() => writer.cellsOnce(`,${'x'.repeat(ROWS_WINDOW)},`)).toThrow(RangeError);
  });

  it('is not made where WebAssembly cannot make its memory, and the rows are then joined as text', () => {
    const wasm = (globalThis as unknown as { WebAssembly: { Module: unknown } }).WebAssembly;
    vi.stubGlobal('WebAssembly', {
      Module: wasm.Module,
      Instance: class {
        constructor() {
          throw new RangeError('WebAssembly.Instance(): Out of memory: Cannot allocate Wasm memory');
        }
      },
    });
    expect(createPlatformRows()).toBeUndefined();
    vi.unstubAllGlobals();
    expect(createPlatformRows()).toBeDefined();
  });

  it('reads no byte past a field for its comma, and keeps the cells of 4,096 sets, not one more', () => {
    const writer = rows();
    const csv = new CsvByteWriter();
    const body = Buffer.from('ab,cd,ef,');
    writer.window(body, 0, body.length);
    for (let set = 0; set < 4_096; set++)
      expect(writer.keepCells(`,${String(set).padEnd(KEPT_CELLS_CHARS - 2, 'x')},`)).toBeDefined();
    expect(writer.keepCells(',502,dns,DE,')).toBeUndefined();
    writer.forgetCells();
    writer.write(csv, DAY, writer.keepCells(',502,dns,DE,')!, 0, 2, 3, 2, 6, 2);
    writer.flush(csv);
    expect(csv.take().toString('latin1')).toBe('2026-11-21T00:00:00.000Z,502,dns,DE,ab,cd,ef\r\n');
  });

  it('refuses a memory too small for its layout', () => {
    const exports = { memory: { buffer: new ArrayBuffer(64 * 1024) }, row: () => 0 };
    expect(() => new PlatformRows(exports)).toThrow(/layout needs/);
  });
});
