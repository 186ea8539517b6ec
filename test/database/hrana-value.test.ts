import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Cell,
  decodeHranaValue,
  encodeHranaValue,
  HranaValueSchema,
} from '../../src/database/hrana-value.js';

const bytesOf = (cell: Cell) => (cell instanceof ArrayBuffer ? [...new Uint8Array(cell)] : cell);

describe('the Hrana value codec', () => {
  it('reads each wire type as its cell: integers exact, blobs as bytes of their own', () => {
    expect(decodeHranaValue({ type: 'null' })).toBeNull();
    expect(decodeHranaValue({ type: 'integer', value: '9007199254740993' })).toBe(9007199254740993n);
    expect(decodeHranaValue({ type: 'float', value: 1.5 })).toBe(1.5);
    expect(decodeHranaValue({ type: 'text', value: 'ünï' })).toBe('ünï');
    const blob = decodeHranaValue({ type: 'blob', base64: 'AAEC/w' });
    expect(blob).toBeInstanceOf(ArrayBuffer);
    expect((blob as ArrayBuffer).byteLength).toBe(4);
    expect(bytesOf(blob)).toEqual([0, 1, 2, 255]);
  });

  it('writes a cell as the wire value that reads back as the same cell, blobs without padding', () => {
    const cell = fc.oneof(
      fc.constant(null),
      fc.bigInt(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string(),
      fc.uint8Array().map((bytes) => new Uint8Array(bytes).buffer as ArrayBuffer),
    );
    fc.assert(
      fc.property(cell, (value) => {
        const wire = encodeHranaValue(value);
        expect(HranaValueSchema.parse(wire)).toEqual(wire);
        if (wire.type === 'blob') expect(wire.base64).not.toMatch(/=$/);
        expect(bytesOf(decodeHranaValue(wire))).toEqual(bytesOf(value));
      }),
    );
  });

  it('writes what is no cell as its text', () => {
    expect(encodeHranaValue(undefined)).toEqual({ type: 'null' });
    expect(encodeHranaValue(true)).toEqual({ type: 'text', value: 'true' });
  });
});
