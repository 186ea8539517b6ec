import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CSV_PIECE_CHARS, csvCell, csvRowPieces, hasLongValue, tableCell } from '../../src/database/cells.js';
import type { Cell } from '../../src/database/hrana-value.js';
import { csvRecord } from '../../src/reports/csv/safety.js';

const cell: fc.Arbitrary<Cell> = fc.oneof(
  fc.constant(null),
  fc.bigInt(),
  fc.double({ noNaN: true }),
  fc.string({ unit: 'binary' }),
  fc.uint8Array({ maxLength: 16 }).map((bytes) => new Uint8Array(bytes).buffer),
  // Longer than a piece, with what needs quoting or neutralising at either end.
  fc
    .tuple(fc.constantFrom('', '=', '"', 'a,'), fc.constantFrom('x', '"', '😀', '\n'))
    .map(([head, unit]) => `${head}${unit.repeat(CSV_PIECE_CHARS)}`),
  fc.constant(new Uint8Array(CSV_PIECE_CHARS).fill(0xab).buffer),
);

describe('query cells in the CSV file', () => {
  it('writes a blob in hexadecimal', () => {
    expect(csvCell(new Uint8Array([0xde, 0xad, 0xbe, 0xef]).buffer)).toBe('deadbeef');
  });

  it('writes a row with a long value in pieces, byte for byte as in one record', () => {
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 4 }), (cells) => {
        const whole = csvRecord(cells.map(csvCell));
        expect([...csvRowPieces(cells)].join('')).toBe(whole);
        // Quotes double in a piece, and a surrogate pair is never split.
        if (hasLongValue(cells))
          for (const piece of csvRowPieces(cells))
            expect(piece.length).toBeLessThanOrEqual(2 * CSV_PIECE_CHARS + 2);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps for the table only what it can show of a long value', () => {
    expect(tableCell('x'.repeat(1000), 32)).toBe('x'.repeat(33));
    expect(tableCell('short', 32)).toBe('short');
    expect(tableCell(new ArrayBuffer(1))).toBe('<blob 1 byte>');
  });
});
