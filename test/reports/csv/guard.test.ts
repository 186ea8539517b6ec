import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MOST_HEADER_COLUMNS } from '../../../src/reports/csv/columns.js';
import { type CsvColumnTap, CsvFormulaGuard, CsvShapeError } from '../../../src/reports/csv/guard.js';
import { neutraliseFormula, safeCsvOptions } from '../../../src/reports/csv/safety.js';
import { throughGuard } from '../support.js';

/** The Shield export's path before the guard, kept as its oracle: parse → neutralise → stringify. */
function oracle(body: Buffer): { csv: Buffer; records: string[][] } | { error: string } {
  let records: string[][];
  try {
    records = parse(body, { bom: true, relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (error) {
    return { error: (error as Error).message };
  }
  const neutralised = records.map((record) => record.map(neutraliseFormula));
  return { csv: Buffer.from(stringify(neutralised, safeCsvOptions())), records };
}

/** The body through the guard in the given pieces; the tap's rows when one is given. */
function guarded(
  body: Buffer,
  cuts: readonly number[] = [],
  columns: readonly string[] = [],
  reuseOutput = false,
  simd = true,
): { csv: Buffer; records: number; rows: string[][] } | { error: Error } {
  const rows: string[][] = [];
  const tap: CsvColumnTap = { columns, onRow: (cells) => rows.push(cells) };
  const guard = new CsvFormulaGuard({ reuseOutput, simd, ...(columns.length > 0 ? { columns: tap } : {}) });
  const points = [...new Set(cuts.map((cut) => cut % (body.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  try {
    let from = 0;
    for (const point of [...points, body.length]) {
      // A reused output is only valid until the push after next: keep a copy.
      out.push(Buffer.from(guard.push(body.subarray(from, point))));
      from = point;
    }
    out.push(Buffer.from(guard.end()));
  } catch (error) {
    return { error: error as Error };
  }
  return { csv: Buffer.concat(out), records: guard.records, rows };
}

const FORMULA_LEADS = ['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'];
const BOM = '\uFEFF';

/** Text a cell may hold: formula leads, quotes, delimiters and every line break among ordinary text. */
const cellText = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.string({ maxLength: 4 }) },
      { weight: 3, arbitrary: fc.constantFrom(...FORMULA_LEADS) },
      { weight: 3, arbitrary: fc.constantFrom('"', ',', '\r', '\n', '\r\n', "'", ' ', '\0', BOM) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('ünï', '🚀', '\uFF1D1+1', '=HYPERLINK("http://evil.example")'),
      },
    ),
    { maxLength: 4 },
  )
  .map((parts) => parts.join(''));

/** A cell as the platform may write it: bare (as it is, so maybe malformed) or quoted, quotes doubled. */
const cell = fc.oneof(
  cellText,
  cellText.map((text) => `"${text.replaceAll('"', '""')}"`),
  fc.constant(''),
);

const lineBreak = fc.constantFrom('\r\n', '\n', '\r');

/** Records of cells joined by commas and line breaks, a BOM and empty lines among them. */
const csvText = fc
  .tuple(
    fc.boolean(),
    fc.array(fc.tuple(fc.array(cell, { minLength: 1, maxLength: 5 }), lineBreak), { maxLength: 6 }),
    fc.boolean(),
  )
  .map(
    ([bom, records, lastBreak]) =>
      (bom ? BOM : '') +
      records
        .map(([cells, end], i) => cells.join(',') + (i < records.length - 1 || lastBreak ? end : ''))
        .join(''),
  );

/** Any sequence of CSV's tokens: mostly malformed, to hold the refusals to csv-parse's. */
const tokenSoup = fc
  .array(
    fc.constantFrom(
      '"',
      '""',
      ',',
      '\r',
      '\n',
      '\r\n',
      'a',
      'bc',
      ' ',
      '\0',
      "'",
      BOM,
      'é',
      ...FORMULA_LEADS,
    ),
    { maxLength: 24 },
  )
  .map((tokens) => tokens.join(''));

/** Bytes that are not UTF-8 (a lone continuation, a cut sequence, a surrogate), among CSV. */
const notUtf8 = fc
  .array(
    fc.oneof(
      csvText.map((text) => Buffer.from(text)),
      fc.constantFrom(
        Buffer.from([0x80]),
        Buffer.from([0xe2, 0x82]),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from([0xef, 0xbc]),
        Buffer.from([0xc3]),
      ),
    ),
    { maxLength: 6 },
  )
  .map((parts) => Buffer.concat(parts));

const cuts = fc.array(fc.nat({ max: 400 }), { maxLength: 8 });

function expectSameAsOracle(body: Buffer, at: readonly number[], reuseOutput = false, simd = true): void {
  const expected = oracle(body);
  const actual = guarded(body, at, [], reuseOutput, simd);
  if ('error' in expected) {
    expect(actual, `csv-parse refused it: ${expected.error}`).toHaveProperty('error');
    expect((actual as { error: Error }).error).toBeInstanceOf(CsvShapeError);
    return;
  }
  if ('error' in actual) throw actual.error;
  expect(actual.csv.toString('latin1')).toBe(expected.csv.toString('latin1'));
  expect(actual.records).toBe(expected.records.length);
}

describe('the formula guard of the Shield export', () => {
  it('writes exactly what csv-parse, neutralise and csv-stringify write, cut at any chunk boundary', () => {
    fc.assert(
      fc.property(csvText, cuts, fc.boolean(), fc.boolean(), (text, at, reuse, simd) =>
        expectSameAsOracle(Buffer.from(text), at, reuse, simd),
      ),
      { numRuns: 3_000 },
    );
  });

  it('writes what the oracle writes over many SIMD windows, with cells and quotes across their ends', () => {
    // The guard steps between stops found 64 KiB at a time (stops.ts): a body of several windows,
    // its records repeated with long cells among them, cut anywhere in it.
    const longCell = fc.integer({ min: 1, max: 70_000 }).map((length) => `"${'x,""y'.repeat(length / 5)}"`);
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            csvText,
            longCell.map((text) => `a,${text}\r\n`),
          ),
          { minLength: 1, maxLength: 6 },
        ),
        fc.array(fc.nat(), { maxLength: 8 }),
        (parts, at) => {
          const records = parts.map((part) => (/[\r\n]$/.test(part) || part === '' ? part : `${part}\r\n`));
          // Records that are all empty repeat to nothing: a record of one cell stands in.
          const unit = records.join('') || 'a\r\n';
          let text = unit;
          while (text.length < 200 * 1024) text += unit;
          expectSameAsOracle(Buffer.from(text), at, true);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('reads most records by SIMD and writes what the oracle writes, with each record delimiter', () => {
    // After the first record the guard hands windows of records to SIMD code (stops.ts: records),
    // which finds their cells and leaves to the guard only what needs it: many records, all of one delimiter.
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 400 }),
        lineBreak,
        fc.array(fc.nat({ max: 30_000 }), { maxLength: 6 }),
        (records, end, at) =>
          expectSameAsOracle(Buffer.from(records.map((cells) => cells.join(',') + end).join('')), at, true),
      ),
      { numRuns: 300 },
    );
  });

  it('reads a Shield export of ordinary rows by SIMD, nearly all of it, and the same as byte by byte', () => {
    for (const end of ['\r\n', '\n', '\r']) {
      const rows = [['timestamp', 'ruleId', 'action', 'ip', 'url', 'note']];
      for (let i = 0; i < 5_000; i++)
        rows.push([
          new Date(Date.UTC(2026, 10, 21) + i * 1_000).toISOString(),
          i % 7 === 0 ? '=HYPERLINK("http://evil.example","x")' : '941100',
          ['Block', 'Log', ''][i % 3]!,
          `203.0.113.${i % 256}`,
          i % 5 === 0 ? `/search?q=${i},"quoted"` : `/assets/app.${i}.js`,
          i % 11 === 0 ? '-sqlmap' : i % 13 === 0 ? 'two\nlines' : '',
        ]);
      const body = Buffer.from(
        stringify(rows, { record_delimiter: end === '\r\n' ? 'windows' : end === '\n' ? 'unix' : end }),
      );
      const byBytes = new CsvFormulaGuard({ simd: false });
      const bySimd = new CsvFormulaGuard();
      const written = (guard: CsvFormulaGuard) => Buffer.concat([guard.push(body), guard.end()]);
      expect(written(bySimd).equals(written(byBytes))).toBe(true);
      expectSameAsOracle(body, [1_000, 70_000, 200_000], true);
      expect(bySimd.records).toBe(rows.length);
      // Some 8 windows: a record a window's end cuts is read from the next one, not byte by byte.
      expect(rows.length - bySimd.recordsBySimd, 'records read byte by byte').toBeLessThanOrEqual(2);
      expect(byBytes.recordsBySimd).toBe(0);
    }
  });

  it('carries a chunk’s last record whole to the next chunk, where SIMD code reads it', () => {
    for (const end of ['\r\n', '\n', '\r']) {
      const rows = [['timestamp', 'action', 'ip', 'note']];
      for (let i = 0; i < 3_000; i++)
        rows.push([
          new Date(Date.UTC(2026, 10, 21) + i * 1_000).toISOString(),
          'Block',
          `203.0.113.${i % 256}`,
          i % 9 === 0 ? '=1+1' : 'ok',
        ]);
      const body = Buffer.from(stringify(rows, { record_delimiter: end }));
      // 40 chunks, each cut inside a record.
      const cuts = Array.from({ length: 40 }, (_, k) => Math.floor(((k + 1) * body.length) / 41) + 7);
      const bySimd = new CsvFormulaGuard();
      const written = throughGuard(bySimd, body, cuts);
      expect(written.equals(throughGuard(new CsvFormulaGuard({ simd: false }), body, cuts))).toBe(true);
      expectSameAsOracle(body, cuts, true);
      expect(bySimd.records).toBe(rows.length);
      expect(rows.length - bySimd.recordsBySimd, 'records read byte by byte').toBeLessThanOrEqual(2);
    }
  });

  it('reads its own records when a sink runs another guard of the thread between them', () => {
    // The thread's guards share one WebAssembly memory: the other guard's records overwrite it.
    const other = new CsvFormulaGuard();
    const rows: string[] = [];
    const outer = new CsvFormulaGuard({
      columns: {
        columns: ['h'],
        onRow: ([h = '']) => {
          rows.push(h);
          other.push(Buffer.from(`${h}\nb,b,b,b,b\n`));
        },
      },
    });
    const body = Buffer.from(`h\n${'a,=1\n'.repeat(50)}`);
    const written = Buffer.concat([outer.push(body), outer.end()]);
    expect(written.toString()).toBe(`h\r\n${"a,'=1\r\n".repeat(50)}`);
    expect(rows).toEqual(Array(50).fill('a'));
    expect(outer.recordsBySimd).toBeGreaterThan(40);
  });

  it('refuses what csv-parse refuses and reads the rest the same, on malformed CSV', () => {
    fc.assert(
      fc.property(tokenSoup, cuts, fc.boolean(), fc.boolean(), (text, at, reuse, simd) =>
        expectSameAsOracle(Buffer.from(text), at, reuse, simd),
      ),
      { numRuns: 3_000 },
    );
  });

  it('turns bytes that are not UTF-8 into U+FFFD as csv-parse does', () => {
    fc.assert(
      fc.property(notUtf8, cuts, (body, at) => expectSameAsOracle(body, at)),
      { numRuns: 1_000 },
    );
  });

  it('neutralises every formula lead, quoted or not, wherever the chunk boundary falls', () => {
    for (const lead of FORMULA_LEADS) {
      const body = Buffer.from(`${BOM}a,b\r\n${lead}1,"${lead}2"\r\nx,"${lead}say ""hi"", then"\r\n`);
      for (let cut = 0; cut <= body.length; cut++)
        for (let second = cut; second <= body.length; second++) expectSameAsOracle(body, [cut, second]);
      const result = guarded(body);
      if ('error' in result) throw result.error;
      expect(parse(result.csv)).toEqual([
        ['a', 'b'],
        [`'${lead}1`, `'${lead}2`],
        ['x', `'${lead}say "hi", then`],
      ]);
    }
  });

  it('keeps the platform bytes of cells that need nothing, and unquotes the ones that need no quotes', () => {
    const body = Buffer.from('id,url\r\n1,/a?b=1\r\n"2","/c"\r\n"3","x,y"\r\n');
    expect(guarded(body)).toMatchObject({
      csv: Buffer.from('id,url\r\n1,/a?b=1\r\n2,/c\r\n3,"x,y"\r\n'),
      records: 4,
    });
  });

  it('takes the first line break as the record delimiter and any other one as cell text, as csv-parse does', () => {
    const result = guarded(Buffer.from('a,b\nc\r,\rd\n'));
    expect(result).toMatchObject({ csv: Buffer.from('a,b\r\n"c\r","\'\rd"\r\n'), records: 2 });
  });

  it.each([
    ['a quote never closed', 'a,b\r\n"never closed,2\r\n', 'record 2 opens a quote that is never closed'],
    [
      'a quote inside a bare cell',
      'a,b\r\n1,x"y\r\n',
      'record 2 has a quote inside a cell that does not start with one',
    ],
    [
      'text after a closing quote',
      'a,b\r\n"x"y,2\r\n',
      'record 2 has text after the closing quote of a cell',
    ],
    [
      'a quoted cell followed by a lone CR',
      'a,b\r\n"x"\r,2\r\n',
      'record 2 has text after the closing quote',
    ],
  ])('refuses %s and says where', (_, text, message) => {
    expect(oracle(Buffer.from(text))).toHaveProperty('error');
    const result = guarded(Buffer.from(text), [7]);
    expect(result).toHaveProperty('error');
    const { error } = result as { error: Error };
    expect(error).toBeInstanceOf(CsvShapeError);
    expect(error.message).toContain(message);
  });

  it('reads a NUL after a closing quote as csv-parse does: the cell goes on, and it is still guarded', () => {
    const body = Buffer.from('a,b\r\n"=x"\0,y\r\n');
    expectSameAsOracle(body, []);
    expect(guarded(body)).toMatchObject({ csv: Buffer.from("a,b\r\n'=x\0,y\r\n") });
  });

  it('refuses a UTF-16 export instead of reading it as UTF-8', () => {
    const body = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\r\n=1,2\r\n', 'utf16le')]);
    for (const at of [[], [1], [2], [3]]) {
      const result = guarded(body, at);
      expect((result as { error: Error }).error?.message).toMatch(/UTF-16/);
    }
  });

  it('refuses a header wider than a spreadsheet when its names are read, and reads one as wide', () => {
    const tap: CsvColumnTap = { columns: ['c1'], onRow: () => undefined };
    const header = (columns: number) =>
      Buffer.from(`${Array.from({ length: columns }, (_, i) => `c${i}`).join(',')}\r\n1,2\r\n`);
    expect(() => new CsvFormulaGuard({ columns: tap }).push(header(MOST_HEADER_COLUMNS + 1))).toThrow(
      /record 1 \(the header\) has more than 16,384 columns/,
    );
    const rows: string[][] = [];
    const guard = new CsvFormulaGuard({ columns: { columns: ['c1'], onRow: (row) => rows.push(row) } });
    guard.push(header(MOST_HEADER_COLUMNS));
    guard.end();
    expect(rows).toEqual([['2']]);
    // Without a reader of names, the header is only bytes: its width is the record bound's business.
    expect(() => new CsvFormulaGuard().push(header(MOST_HEADER_COLUMNS + 1))).not.toThrow();
  });

  it('refuses a record over the size bound, wherever the chunks end, and holds no more than that', () => {
    const guardOf = () => new CsvFormulaGuard({ maxRecordBytes: 64 });
    const long = Buffer.from(`a,b\r\n"${'x'.repeat(100)}",y\r\n`);
    expect(() => guardOf().push(long)).toThrow(/record 2 is larger than/);
    const guard = guardOf();
    expect(() => {
      for (let i = 0; i < long.length; i += 10) guard.push(long.subarray(i, i + 10));
    }).toThrow(CsvShapeError);
    // Past the first record, the records SIMD code reads are held to the bound too.
    const many = Buffer.from(`a,b\r\n${'1,2\r\n'.repeat(10)}${'x'.repeat(70)},y\r\n`);
    const reading = guardOf();
    expect(() => reading.push(many)).toThrow(/record 12 is larger than/);
    expect(reading.recordsBySimd).toBe(10);
    const fits = guardOf();
    expect(Buffer.concat([fits.push(Buffer.from(`a,b\r\n${'x'.repeat(50)},y\r\n`)), fits.end()]).length).toBe(
      5 + 54,
    );
    // A record of exactly the bound, wherever the chunks end: between its CR and LF too, where
    // the CR may still begin the delimiter.
    // After a record SIMD code read (carried whole from its start), and after the header; the
    // quoted one is written unquoted, as it is read in one chunk.
    for (const exact of [
      Buffer.from(`a,b\r\n${'x'.repeat(62)},y\r\nz\r\n`),
      Buffer.from(`a,b\r\nc,d\r\n${'x'.repeat(62)},y\r\nz\r\n`),
      Buffer.from(`a,b\r\nc,d\r\n"${'x'.repeat(60)}",y\r\nz\r\n`),
    ]) {
      const whole = throughGuard(guardOf(), exact, []).toString();
      for (let cut = 0; cut <= exact.length; cut++)
        expect(throughGuard(guardOf(), exact, [cut]).toString(), `cut at ${cut}`).toBe(whole);
    }
  });

  it('writes nothing for an empty body, or one of empty lines and a BOM', () => {
    for (const text of ['', BOM, '\r\n\r\n', `${BOM}\n\n`])
      expect(guarded(Buffer.from(text))).toMatchObject({
        csv: Buffer.alloc(0),
        records: 0,
      });
  });
});

describe('the named cells of every row, read in the same pass', () => {
  it('hands over the cells of the named columns as csv-parse reads them, cut at any chunk boundary', () => {
    const names = ['action', 'ip', 'nope'];
    fc.assert(
      fc.property(
        fc.shuffledSubarray(['ts', 'action', 'ip', 'ua'], { minLength: 1 }),
        fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { maxLength: 5 }),
        cuts,
        (header, rows, at) => {
          const body = Buffer.from([header, ...rows].map((cells) => `${cells.join(',')}\r\n`).join(''));
          const expected = oracle(body);
          const actual = guarded(body, at, names);
          if ('error' in expected || 'error' in actual) {
            expect('error' in actual).toBe('error' in expected);
            return;
          }
          const [head = [], ...data] = expected.records;
          expect(actual.rows).toEqual(
            data.map((record) =>
              names.map((name) => (head.indexOf(name) < 0 ? '' : (record[head.indexOf(name)] ?? ''))),
            ),
          );
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('hands over cells as the platform sent them, not neutralised', () => {
    const result = guarded(Buffer.from('rule,action\r\n"=1+1",Block\r\n'), [], ['rule', 'action']);
    expect(result).toMatchObject({
      rows: [['=1+1', 'Block']],
      csv: Buffer.from("rule,action\r\n'=1+1,Block\r\n"),
    });
  });
});
