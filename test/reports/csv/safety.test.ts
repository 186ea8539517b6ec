import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  csvCellPieces,
  csvRecord,
  neutraliseFormula,
  safeCsvOptions,
} from '../../../src/reports/csv/safety.js';

const hostile = ['=HYPERLINK("http://evil.example","click")', '+1', '-2', '@x', '\tx', '\rx', '＝1+1'];

describe('formula neutralisation', () => {
  it.each(hostile)('prefixes %j with a quote mark', (cell) => {
    expect(neutraliseFormula(cell)).toBe(`'${cell}`);
  });

  it.each(['', 'plain', '/api/v1?a=1', "'=already", ' =spaced', '1-2'])('leaves %j as it is', (cell) => {
    expect(neutraliseFormula(cell)).toBe(cell);
  });

  it('is idempotent, so a cell passed through twice is not prefixed twice', () => {
    fc.assert(
      fc.property(fc.string(), (cell) => {
        expect(neutraliseFormula(neutraliseFormula(cell))).toBe(neutraliseFormula(cell));
      }),
    );
  });
});

const cell = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(...hostile),
  fc
    .tuple(fc.constantFrom('=', '+', '-', '@', '\t', '\r', '"', ',', '\n', '\uFF20', "'"), fc.string())
    .map(([head, tail]) => head + tail),
);

describe('the CSV options every writer uses', () => {
  it('frames records with CRLF and quotes only cells that need it', () => {
    const text = stringify(
      [
        ['a', 'b,c', 'say "hi"', 'two\nlines'],
        ['1', '', 'x', 'y'],
      ],
      safeCsvOptions(),
    );
    expect(text).toBe('a,"b,c","say ""hi""","two\nlines"\r\n1,,x,y\r\n');
  });

  it.each(hostile)('writes %j neutralised', (cell) => {
    const [[written]] = parse(stringify([[cell]], safeCsvOptions())) as string[][] as [[string]];
    expect(written).toBe(`'${cell}`);
  });

  it('applies the same rule as neutraliseFormula to any text, and round-trips through a parser', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }),
        (rows) => {
          const width = rows[0]!.length;
          const table = rows.map((row) => Array.from({ length: width }, (_, i) => row[i] ?? ''));
          const back = parse(stringify(table, safeCsvOptions()), { relax_column_count: true }) as string[][];
          expect(back).toEqual(table.map((row) => row.map(neutraliseFormula)));
        },
      ),
    );
  });
});

describe('the fast record writer of the origin-log CSV', () => {
  it('writes byte for byte what csv-stringify writes with the same options', () => {
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 8 }), (row) => {
        expect(csvRecord(row)).toBe(stringify([row], safeCsvOptions()));
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes the header and a hostile row as a spreadsheet should read them', () => {
    expect(csvRecord(['timestamp', 'url'])).toBe('timestamp,url\r\n');
    expect(csvRecord(['=HYPERLINK("x")', 'a,b', '-2', ''])).toBe(`"'=HYPERLINK(""x"")","a,b",'-2,\r\n`);
  });
});

describe('a long cell written in pieces', () => {
  it('joins to what csvRecord writes for it, and no piece splits a surrogate pair', () => {
    fc.assert(
      fc.property(cell, fc.integer({ min: 1, max: 5 }), (text, size) => {
        const pieces = [...csvCellPieces(text, size)];
        expect(pieces.join('')).toBe(csvRecord([text]).slice(0, -2));
        for (const piece of pieces.slice(0, -1)) expect(piece).not.toMatch(/[\uD800-\uDBFF]$/);
      }),
      { numRuns: 1_000 },
    );
  });
});
