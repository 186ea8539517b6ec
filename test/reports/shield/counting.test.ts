import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvFormulaGuard } from '../../../src/reports/csv/guard.js';
import { IP_TRACK_CAPACITY, LABEL_CAPACITY, ShieldTally } from '../../../src/reports/shield/summary.js';
import { throughGuard } from '../support.js';

/**
 * The guard's SIMD pass counts most of the summary's cells in the WebAssembly memory
 * (csv/stops.wat: `$countRecord`); ByteCounter and the event-time reader in JavaScript alone,
 * on the byte-by-byte guard, are the oracle.
 */

/** `body` cut at `cuts` through a guard into `tally`: the CSV file it writes. */
const run = (tally: ShieldTally, body: Buffer, cuts: readonly number[], simd: boolean) =>
  throughGuard(new CsvFormulaGuard({ cells: tally, simd }), body, cuts);

/** The body counted with the SIMD pass: its summary, the cells that pass counted, the CSV file. */
function simd(body: Buffer, cuts: readonly number[] = []) {
  const tally = new ShieldTally();
  try {
    expect(tally.countsInWebAssembly).toBe(true);
    const csv = run(tally, body, cuts, true);
    return { csv, counted: tally.cellsCountedBySimd, summary: tally.summary() };
  } finally {
    // A failing case must not keep the memory from the cases after it.
    tally.release();
  }
}

const oracle = (body: Buffer) => {
  const tally = new ShieldTally({ simd: false });
  const csv = run(tally, body, [], false);
  return { csv, summary: tally.summary() };
};

const MINUTE = '2026-11-21T14:05';
/** Time cells that share a minute, or nearly, in every form the reader knows and some it refuses. */
const timeCell = fc.oneof(
  fc
    .record({
      minute: fc.constantFrom(
        MINUTE,
        MINUTE,
        MINUTE,
        '2026-11-21T14:06',
        '2026-11-21 14:05',
        '2026-02-30T14:05',
      ),
      second: fc.constantFrom('00', '07', '59', '60', '5x', '-1'),
      // Past three digits JavaScript's arithmetic decides: 17 nines or more round up to a whole second.
      fraction: fc.constantFrom(
        '',
        '',
        '.',
        '.5',
        '.25',
        '.125',
        '.1239',
        '.123456',
        '.99999999999999999999',
        '.x',
      ),
      zone: fc.constantFrom('Z', 'Z', 'z', '', '+02:00', '-0130', 'ZZ', ' '),
    })
    .map(({ minute, second, fraction, zone }) => `${minute}:${second}${fraction}${zone}`),
  fc.constantFrom('', '1763733601000', '1763733601', 'not a time', `${MINUTE}`),
);

/** Values of a label column: a few common ones, many rare ones, long and cut ones, quoted and formula ones. */
const labelCell = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom('Block', 'Log', 'Challenge', '941100', 'XSS Attack Detected', 'DE'),
  },
  { weight: 3, arbitrary: fc.nat({ max: 3 * LABEL_CAPACITY }).map((n) => `v${n}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'x'.repeat(256),
      'x'.repeat(257),
      'é'.repeat(130),
      `${'y'.repeat(255)}€`,
      'a "quoted", value',
      'line\r\nbreak',
      '=cmd|x',
      '-1',
      '',
      'Block\u0000',
      '\uFFFD\u00ff',
    ),
  },
);

/** IPs: a few heavy hitters among many more distinct ones than the counter tracks, and long ones. */
const ipCell = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('203.0.113.9', '198.51.100.7', '2001:db8::1') },
  {
    weight: 5,
    arbitrary: fc
      .nat({ max: 4 * IP_TRACK_CAPACITY })
      .map((n) => `10.${n >> 16}.${(n >> 8) & 255}.${n & 255}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('i'.repeat(64), 'i'.repeat(65), `${'j'.repeat(63)}ü`, '"q"', '@ip', ''),
  },
);

const NAMED = ['timestamp', 'ruleId', 'ruleName', 'action', 'country', 'asn', 'ip'] as const;

const exportCase = fc.record({
  // Where each named column goes among filler ones: past column 64 too, where JavaScript counts.
  places: fc.array(fc.nat({ max: 70 }), { minLength: NAMED.length, maxLength: NAMED.length }),
  width: fc.integer({ min: 1, max: 72 }),
  rows: fc.array(
    fc.record({
      time: timeCell,
      labels: fc.array(labelCell, { minLength: 5, maxLength: 5 }),
      ip: ipCell,
      keep: fc.option(fc.nat(), { nil: undefined, freq: 8 }),
    }),
    { minLength: 20, maxLength: 300 },
  ),
  // Past the first window: what it first sees, JavaScript counts; SIMD code counts what it then sees again.
  repeat: fc.integer({ min: 5, max: 40 }),
  end: fc.constantFrom('\r\n', '\n', '\r'),
  cuts: fc.array(fc.nat({ max: 400_000 }), { maxLength: 6 }),
});

type ExportCase = typeof exportCase extends fc.Arbitrary<infer T> ? T : never;

function bodyOf({ places, width, rows, repeat, end }: ExportCase) {
  const columns = Array.from({ length: Math.max(width, ...places.map((p) => p + 1)) }, (_, i) => `c${i}`);
  const at = new Map<string, number>();
  NAMED.forEach((name, i) => {
    let place = places[i]!;
    while ([...at.values()].includes(place)) place = (place + 1) % columns.length;
    if (at.size < columns.length) {
      at.set(name, place);
      columns[place] = name;
    }
  });
  const records: string[][] = [];
  for (let r = 0; r < repeat; r++)
    for (const { time, labels, ip, keep } of rows) {
      const cells = columns.map((_, i) => `f${i}`);
      const put = (name: string, value: string) => {
        const place = at.get(name);
        if (place !== undefined) cells[place] = value;
      };
      put('timestamp', time);
      for (const [i, name] of ['ruleId', 'ruleName', 'action', 'country', 'asn'].entries())
        put(name, labels[(i + r) % 5]!);
      put('ip', r % 3 === 0 ? ip : `${ip}${r % 7}`);
      records.push(keep === undefined ? cells : cells.slice(0, 1 + (keep % cells.length)));
    }
  return Buffer.from(stringify([columns, ...records], { record_delimiter: end }));
}

/** `length` rows made by `row`, the named columns first, as one body `repeat` times. */
const rowsBody = (
  length: number,
  row: (i: number) => Omit<ExportCase['rows'][number], 'keep'>,
  { width, repeat, end }: Pick<ExportCase, 'width' | 'repeat' | 'end'>,
) =>
  bodyOf({
    places: [0, 1, 2, 3, 4, 5, 6],
    width,
    rows: Array.from({ length }, (_, i) => ({ ...row(i), keep: undefined })),
    repeat,
    end,
    cuts: [],
  });

describe('the Shield summary counted by the guard’s SIMD pass', () => {
  it('counts as ByteCounter and the event-time reader do in JavaScript alone, past every bound', () => {
    let countedBySimd = 0;
    fc.assert(
      fc.property(exportCase, (example) => {
        const body = bodyOf(example);
        const { csv, counted, summary } = simd(body, example.cuts);
        countedBySimd += counted;
        // Rows repeat: past the first windows, SIMD code finds what JavaScript counted first.
        if (body.length > 256 * 1024) expect(counted).toBeGreaterThan(0);
        const expected = oracle(body);
        expect(summary).toEqual(expected.summary);
        expect(csv.equals(expected.csv)).toBe(true);
      }),
      // Cases of hundreds of kilobytes: shrinking one would take minutes; the seed reproduces it.
      { numRuns: 40, endOnFailure: true },
    );
    expect(countedBySimd).toBeGreaterThan(10_000);
  });

  it('keeps the busiest IPs when SIMD code counts their hits, as Space-Saving keeps them', () => {
    // A counter nearly full, then hits on the first IPs it took (counted in WebAssembly, while
    // no eviction can come first), then more new IPs than it holds: each takes the slot of the
    // least counted IP (the heap is put in order at the first eviction), never of one hit before.
    const filler = 'f'.repeat(100);
    const ip = (n: number) => `10.0.${n >> 8}.${n & 255}`;
    const rows = [['ip', 'filler']];
    for (let n = 0; n < IP_TRACK_CAPACITY - 10; n++) rows.push([ip(n), filler]);
    for (let hit = 0; hit < 20; hit++) for (let n = 0; n < 50; n++) rows.push([ip(n), filler]);
    for (let n = 0; n < 1.5 * IP_TRACK_CAPACITY; n++) rows.push([ip(IP_TRACK_CAPACITY + n), filler]);
    const body = Buffer.from(stringify(rows, { record_delimiter: '\r\n' }));
    const { counted, summary } = simd(body);
    // The hits came after the first windows: SIMD code counted them.
    expect(counted).toBeGreaterThanOrEqual(900);
    expect(summary).toEqual(oracle(body).summary);
    expect(summary.topIps!.ips.slice(0, 50)).toEqual(
      Array.from({ length: 50 }, (_, n) => ({ ip: ip(n), count: 21, overcount: 0 })).sort((a, b) =>
        a.ip < b.ip ? -1 : 1,
      ),
    );
  });

  it('counts IPs in the order they come once they outnumber the counter, wherever the body is cut', () => {
    // Once full, each new IP evicts the least counted: a hit counted in WebAssembly before an
    // eviction JavaScript makes for an earlier record would change which IP goes (the review's finding).
    const ip = (n: number) => `10.0.${n >> 8}.${n & 255}`;
    const head = Buffer.from(
      `ip\n${Array.from({ length: IP_TRACK_CAPACITY }, (_, n) => `${ip(n)}\n`).join('')}`,
    );
    const tail = Buffer.from([ip(5), '9.9.9.9', ip(0), ip(6), ip(7)].map((value) => `${value}\n`).join(''));
    const body = Buffer.concat([head, tail]);
    const expected = oracle(body).summary;
    expect(expected.topIps!.ips[0]).toEqual({ ip: ip(0), count: 2, overcount: 1 });
    expect(simd(body, [head.length]).summary).toEqual(expected);
    expect(simd(body).summary).toEqual(expected);
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 2.5 * IP_TRACK_CAPACITY }), { minLength: 1_000, maxLength: 6_000 }),
        fc.array(fc.nat({ max: 200_000 }), { maxLength: 6 }),
        (picks, cuts) => {
          const more = Buffer.from(picks.map((n) => `${ip(n % 7 === 0 ? n % 40 : n)}\n`).join(''));
          const body = Buffer.concat([head, more]);
          expect(simd(body, cuts).summary).toEqual(oracle(body).summary);
        },
      ),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it('reads each time as the event-time reader does, to the millisecond', () => {
    // Rows of one minute, so that SIMD code reads their times, in every form it takes or leaves;
    // a time a millisecond off moves an event to the next minute's bucket or moves the span.
    const forms = [
      '07Z',
      '59.999Z',
      '59.99999999999999999999Z',
      '59.9999z',
      '00.5',
      '30.25Z',
      '59.9999999999999999',
      '59+00:00',
      '01.Z',
      '60Z',
    ];
    const filler = 'f'.repeat(60);
    const rows = [['time', 'filler']];
    for (let i = 0; i < 12_000; i++)
      rows.push([`${MINUTE}:${i % 2 ? forms[(i >> 1) % forms.length] : '07Z'}`, filler]);
    const body = Buffer.from(stringify(rows, { record_delimiter: '\n' }));
    const { counted, summary } = simd(body);
    // Three rows in four: the rest are in forms it leaves to JavaScript.
    expect(counted).toBeGreaterThan(6_000);
    expect(summary).toEqual(oracle(body).summary);
    expect(summary.timeline).toMatchObject({ bucketMs: 60_000, lastMs: Date.parse('2026-11-21T14:06:00Z') });
  });

  it('reads times of a new minute nearly every row as the event-time reader does, across days, months and years', () => {
    // A sparse log: each row in another minute, so SIMD code reads each minute itself. Leap days
    // and the centuries' rules, the ends of months and years, and dates that do not exist.
    const starts = [
      '1899-12-31T23:00',
      '1900-02-28T22:00',
      '2000-02-28T22:00',
      '2027-12-31T23:00',
      '9999-12-29T00:00',
    ];
    const odd = [
      '2026-02-29T10:00',
      '1900-02-29T10:00',
      '2026-04-31T10:00',
      '2026-11-21T24:00',
      '2026-11-21T10:60',
      '0000-03-01T10:00',
      '0001-01-01T00:00',
      '2026-1x-21T10:00',
      '2026-11-21X10:00',
      '2026-00-10T10:00',
    ];
    const rows = [['time', 'filler']];
    const filler = 'f'.repeat(40);
    for (let i = 0; i < 12_000; i++) {
      // 2,400 rows from each start, 61 seconds apart: some 40 hours.
      const minute = new Date(Date.parse(`${starts[Math.floor(i / 2_400)]}Z`) + (i % 2_400) * 61_000);
      const second = `${String(i % 60).padStart(2, '0')}.${i % 1000}Z`;
      rows.push([
        `${i % 97 === 0 ? odd[i % odd.length] : minute.toISOString().slice(0, 16)}:${second}`,
        filler,
      ]);
    }
    const body = Buffer.from(stringify(rows, { record_delimiter: '\r\n' }));
    const { counted, summary } = simd(body);
    expect(summary).toEqual(oracle(body).summary);
    // All but the odd ones and those after a jump of months within their window (some 1,500): a
    // time more than 11 days from the first one its window's pass read is read in JavaScript.
    expect(counted).toBeGreaterThan(0.8 * 12_000);
  });

  it('refuses a sink that names a table of its own for the SIMD pass to count with', () => {
    // records() writes where the table says: only a lent table, or none, may be named.
    const sink = {
      wants: () => true,
      cell: () => undefined,
      record: () => undefined,
      settle: () => undefined,
      countingTable: () => 70_000,
    };
    const guard = new CsvFormulaGuard({ cells: sink });
    const rows = Array.from({ length: 3_000 }, (_, i) => `${i},Block,10.0.0.${i & 255}\n`).join('');
    expect(() => guard.push(Buffer.from(`n,action,ip\n${rows}`))).toThrow(TypeError);
  });

  it('counts cells that start a formula there too, as the file writes them, after their apostrophe', () => {
    // Bare and quoted, ASCII and full-width: each is written as it came after a `'`, and the
    // record stays one that SIMD code reads whole.
    const body = rowsBody(
      20_000,
      (i) => ({
        time: `${MINUTE}:${String(i % 60).padStart(2, '0')}Z`,
        labels: [
          i % 2 === 0 ? '=HYPERLINK("http://evil.example","x")' : `r${i % 3}`,
          i % 3 === 0 ? '\uff1dSUM(A1)' : 'XSS',
          i % 4 === 0 ? '+Block' : 'Log',
          i % 5 === 0 ? '-DE' : '\tDE',
          '@AS1',
        ],
        ip: i % 2 === 0 ? '10.0.0.1' : '-10.0.0.2',
      }),
      { width: 9, repeat: 1, end: '\r\n' },
    );
    const { csv, counted, summary } = simd(body, [70_000]);
    const expected = oracle(body);
    expect(summary).toEqual(expected.summary);
    expect(csv.equals(expected.csv)).toBe(true);
    // Seven counted cells a row (the time, five labels, the IP), all by SIMD code but the first
    // window's (some 1,100 rows), which JavaScript counts as it first meets their keys.
    expect(counted).toBeGreaterThan(0.9 * 7 * 20_000);
  });

  it('lends the memory to one summary at a time; a second counts in JavaScript, alongside', () => {
    const body = rowsBody(
      3 * IP_TRACK_CAPACITY,
      (i) => ({
        time: `${MINUTE}:${String(i % 60).padStart(2, '0')}.${i % 1000}Z`,
        labels: [`r${i % 7}`, `name ${i % 5}`, ['Block', 'Log'][i % 2]!, 'DE', `AS${i % 1100}`],
        ip: i % 3 === 0 ? '203.0.113.9' : `10.0.${i >> 8}.${i & 255}`,
      }),
      { width: 9, repeat: 2, end: '\r\n' },
    );
    const expected = oracle(body);
    const first = new ShieldTally();
    const second = new ShieldTally();
    expect([first.countsInWebAssembly, second.countsInWebAssembly]).toEqual([true, false]);
    // Their guards take turns, chunk by chunk, as two exports on one thread would.
    const guards = [first, second].map((cells) => new CsvFormulaGuard({ cells }));
    for (let at = 0; at < body.length; at += 70_000)
      for (const guard of guards) guard.push(body.subarray(at, at + 70_000));
    for (const guard of guards) guard.end();
    expect(first.cellsCountedBySimd).toBeGreaterThan(0);
    expect(second.cellsCountedBySimd).toBe(0);
    expect(first.summary()).toEqual(expected.summary);
    expect(second.summary()).toEqual(expected.summary);
    // Both are done: the next one counts there again.
    const third = new ShieldTally();
    expect(third.countsInWebAssembly).toBe(true);
    third.release();
  });

  it('keeps its counts when it gives the memory back halfway, and the next summary starts from nothing', () => {
    const body = rowsBody(
      8_000,
      (i) => ({
        time: `${MINUTE}:${String(i % 60).padStart(2, '0')}Z`,
        labels: [`r${i % 3}`, 'XSS', 'Block', ['DE', 'US'][i % 2]!, 'AS1'],
        ip: `10.0.0.${i % 300}`,
      }),
      { width: 7, repeat: 1, end: '\n' },
    );
    const expected = oracle(body);
    const tally = new ShieldTally();
    const guard = new CsvFormulaGuard({ cells: tally });
    const half = body.length >> 1;
    const csv = [Buffer.from(guard.push(body.subarray(0, half)))];
    const before = tally.cellsCountedBySimd;
    expect(before).toBeGreaterThan(0);
    tally.release();
    expect(tally.countsInWebAssembly).toBe(false);
    // Another summary takes the memory and fills it while the first one goes on without it.
    const next = new ShieldTally();
    expect(next.countsInWebAssembly).toBe(true);
    const nextGuard = new CsvFormulaGuard({ cells: next });
    nextGuard.push(body);
    nextGuard.end();
    csv.push(Buffer.from(guard.push(body.subarray(half))), Buffer.from(guard.end()));
    expect(tally.cellsCountedBySimd).toBe(before);
    expect(tally.summary()).toEqual(expected.summary);
    expect(Buffer.concat(csv).equals(expected.csv)).toBe(true);
    expect(next.summary()).toEqual(expected.summary);
  });
});
