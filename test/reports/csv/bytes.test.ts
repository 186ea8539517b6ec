import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvByteWriter } from '../../../src/reports/csv/bytes.js';
import { csvCell, csvRecord } from '../../../src/reports/csv/safety.js';

const cell = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({
    unit: fc.constantFrom(
      '"',
      ',',
      '\r',
      '\n',
      '\t',
      '=',
      '+',
      '-',
      '@',
      '＝',
      '＋',
      '－',
      '＠',
      'a',
      'é',
      '😀',
    ),
  }),
);

describe('CSV records written as bytes', () => {
  it('writes each cell from its UTF-8 bytes exactly as csvCell writes its text', () => {
    fc.assert(
      fc.property(fc.array(cell, { maxLength: 7 }), fc.nat({ max: 64 }), (cells, capacity) => {
        const writer = new CsvByteWriter(capacity);
        for (const [i, text] of cells.entries()) {
          const bytes = Buffer.from(text);
          writer.room(2 * bytes.length + 3);
          if (i > 0) writer.byte(0x2c);
          writer.cell(bytes, 0, bytes.length);
        }
        writer.endRecord();
        expect(writer.take().equals(Buffer.from(csvRecord(cells)))).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes text already in CSV form as UTF-8, and ASCII byte for byte, growing as it goes', () => {
    const writer = new CsvByteWriter(4);
    writer.text(csvCell('=1,"x" é\ud800'));
    writer.ascii('plain,ascii\r\n');
    expect(writer.length).toBeGreaterThan(4);
    expect(writer.take().toString()).toBe(`"'=1,""x"" é\ufffd"plain,ascii\r\n`);
    expect(writer.length).toBe(0);
  });
});
