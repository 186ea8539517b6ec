import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BatchRowEvent, BatchRowScanner, BatchRowsError } from '../../src/database/batch-rows.js';

const ROWS = [
  [
    { type: 'integer', value: '1' },
    { type: 'text', value: 'plain' },
  ],
  [
    { type: 'integer', value: '2' },
    { type: 'text', value: 'brackets ] [ } { and "quotes" and \\ and \u00e9\u{1f600}' },
  ],
  [{ type: 'null' }, { type: 'blob', base64: 'iVBORw' }],
];
const COLS = [
  { name: 'id', decltype: 'INTEGER' },
  { name: 'note', decltype: null },
];

/** A batch answer as sqld sends it: BEGIN, the statement, COMMIT, a skipped ROLLBACK; then close. */
function document(rows: unknown[] = ROWS, spacing = ''): string {
  const stmt = (cols: unknown[], values: unknown[]) => ({
    cols,
    rows: values,
    affected_row_count: 0,
    last_insert_rowid: null,
    replication_index: null,
  });
  return JSON.stringify(
    {
      baton: null,
      base_url: null,
      results: [
        {
          type: 'ok',
          response: {
            type: 'batch',
            result: {
              step_results: [stmt([], []), stmt(COLS, rows), stmt([], []), null],
              step_errors: [null, null, null, null],
              replication_index: null,
            },
          },
        },
        { type: 'ok', response: { type: 'close' } },
      ],
    },
    null,
    spacing,
  );
}

function scan(pieces: string[]): { events: BatchRowEvent[]; skeleton: unknown } {
  const scanner = new BatchRowScanner(1);
  const events = pieces.flatMap((piece) => scanner.push(piece));
  return { events, skeleton: scanner.end() };
}

/** The document cut at the given offsets. */
function cut(text: string, offsets: number[]): string[] {
  const points = [...new Set(offsets.map((offset) => offset % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const point of points) {
    pieces.push(text.slice(from, point));
    from = point;
  }
  pieces.push(text.slice(from));
  return pieces;
}

describe('reading the rows of a batch answer as it streams', () => {
  it('gives the cols first, then every row of the statement step, and keeps the rest as a document', () => {
    const { events, skeleton } = scan([document()]);
    expect(events).toEqual([{ kind: 'cols', value: COLS }, ...ROWS.map((value) => ({ kind: 'row', value }))]);
    const expected = JSON.parse(document([]));
    expected.results[0].response.result.step_results[1].cols = null;
    expect(skeleton).toEqual(expected);
  });

  it('reads the same however the body is cut into chunks, white space included', () => {
    const whole = scan([document()]);
    fc.assert(
      fc.property(fc.boolean(), fc.array(fc.nat(), { maxLength: 12 }), (spaced, offsets) => {
        const text = document(ROWS, spaced ? '  ' : '');
        expect(scan(cut(text, offsets))).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  it('reads every chunking, one character at a time included', () => {
    const text = document();
    expect(scan([...text])).toEqual(scan([text]));
  });

  it('leaves rows of other steps in the document', () => {
    const text = document().replace(
      '"step_results":[{"cols":[],"rows":[]',
      '"step_results":[{"cols":[],"rows":[[{"type":"null"}]]',
    );
    const { events, skeleton } = scan([text]);
    expect(events.filter((event) => event.kind === 'row')).toHaveLength(ROWS.length);
    expect(JSON.stringify(skeleton)).toContain('"rows":[[{"type":"null"}]]');
  });

  it('refuses what is not a Hrana answer', () => {
    const fails = (pieces: string[]) => () => scan(pieces);
    expect(fails([document().slice(0, -5)])).toThrow(BatchRowsError);
    expect(fails([`${document()} {}`])).toThrow(BatchRowsError);
    expect(fails([document().replace('"rows":[[', '"rows":[1,[')])).toThrow(BatchRowsError);
    expect(fails(['{"results":[}'])).toThrow(BatchRowsError);
    expect(fails(['not json'])).toThrow(BatchRowsError);
  });

  it('refuses a document that is more than rows and too large to keep', () => {
    const huge = JSON.stringify({ results: [], padding: 'x'.repeat(2 * 1024 * 1024) });
    expect(() => scan([huge])).toThrow(/too large/);
  });
});
