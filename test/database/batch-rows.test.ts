import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BatchRowEvent,
  type BatchRowOptions,
  BatchRowScanner,
  BatchRowsError,
} from '../../src/database/batch-rows.js';

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

/** Each row's cells as text, and blobs as hex, with the bytes decoded apart put back in their place. */
function cellsOf(events: BatchRowEvent[]): string[][] {
  return events.flatMap((event) => {
    if (event.kind !== 'row') return [];
    const row = event.value as { type: string; value?: string; base64?: string }[];
    return [
      row.map((cell, index) => {
        const apart = event.blobs?.find((blob) => blob.cell === index);
        if (apart) return `blob:${Buffer.from(apart.bytes).toString('hex')}`;
        if (cell.type === 'blob') return `blob:${Buffer.from(cell.base64 ?? '', 'base64').toString('hex')}`;
        return `${cell.type}:${cell.value ?? ''}`;
      }),
    ];
  });
}

function scanWith(options: BatchRowOptions, pieces: string[]): BatchRowEvent[] {
  const scanner = new BatchRowScanner(1, options);
  return pieces.flatMap((piece) => scanner.push(piece));
}

/** The text in pieces of `size` characters. */
const pieces = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

describe('reading long values apart from their row', () => {
  const value = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }).map((text) => ({ type: 'text', value: text })),
    fc.tuple(fc.uint8Array({ maxLength: 40 }), fc.boolean()).map(([bytes, padded]) => ({
      type: 'blob',
      base64: Buffer.from(bytes)
        .toString('base64')
        .replace(padded ? /^$/ : /=+$/, ''),
    })),
    fc.constantFrom({ type: 'null' }, { type: 'integer', value: '-12' }, { type: 'float', value: 2.5 }),
  );

  it('gives every value as JSON.parse reads it, however the body is cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(value, { minLength: 1, maxLength: 3 }), { maxLength: 4 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 1, max: 8 }),
        (rows, offsets, largeValueChars) => {
          const text = document(rows);
          const expected = cellsOf(scan([text]).events);
          expect(cellsOf(scanWith({ largeValueChars }, cut(text, offsets)))).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('puts a long text back in its row, and gives a long blob as bytes beside it', () => {
    const long = 'é\\"\n\u0001😀'.repeat(20_000);
    const bytes = Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7) % 256));
    const row = [
      { type: 'text', value: long },
      { type: 'blob', base64: bytes.toString('base64') },
    ];
    const events = scanWith({ largeValueChars: 1024 }, pieces(document([row]), 4096));
    const read = events.find((event) => event.kind === 'row');
    expect(read?.value).toEqual([
      { type: 'text', value: long },
      { type: 'blob', base64: '' },
    ]);
    expect(read?.blobs?.map((blob) => [blob.cell, Buffer.from(blob.bytes)])).toEqual([[1, bytes]]);
  });
});

describe('the budget of value bytes', () => {
  it('stops in the middle of a value once it passes the budget, before the value is read', () => {
    for (const cell of [
      { type: 'text', value: 'x'.repeat(1_000_000) },
      { type: 'text', value: 'é'.repeat(500_000) },
      { type: 'blob', base64: 'A'.repeat(1_000_000) },
    ]) {
      const scanner = new BatchRowScanner(1, { maxValueBytes: 100_000, largeValueChars: 10_000 });
      let fed = 0;
      const events: BatchRowEvent[] = [];
      for (const piece of pieces(document([[cell]]), 4096)) {
        fed += piece.length;
        events.push(...scanner.push(piece));
        if (events.some((event) => event.kind === 'over-budget')) break;
      }
      expect(events.map((event) => event.kind)).toEqual(['cols', 'over-budget']);
      // 100,000 bytes are at most 133,336 characters of base64, and the piece that passed them.
      expect(fed).toBeLessThan(140_000);
      expect(scanner.push('more')).toEqual([]);
    }
  });

  it('counts what the rows before took, and keeps a value of exactly what is left', () => {
    const rows = Array.from({ length: 12 }, () => [{ type: 'text', value: 'y'.repeat(100) }]);
    const events = scanWith({ maxValueBytes: 1000 }, [document(rows)]);
    expect(events.filter((event) => event.kind === 'row')).toHaveLength(10);
    expect(events.at(-1)).toEqual({ kind: 'over-budget' });
  });

  it('does not stop for a value that escapes take room for on the wire', () => {
    const cell = { type: 'text', value: '\u0001\n"'.repeat(30_000) };
    const events = scanWith(
      { maxValueBytes: 90_000, largeValueChars: 1024 },
      pieces(document([[cell]]), 4096),
    );
    expect(cellsOf(events)).toEqual([[`text:${cell.value}`]]);
  });

  it('refuses a row whose structure, not its values, is too large to keep', () => {
    const row = [{ type: 'text', value: 'a', padding: 'p'.repeat(2 * 1024 * 1024) }];
    expect(() => scanWith({}, pieces(document([row]), 65_536))).toThrow(/too large/);
  });
});
