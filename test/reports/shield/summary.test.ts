import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvFormulaGuard } from '../../../src/reports/csv/guard.js';
import {
  EventTimeReader,
  eventTimeOfBytes,
  eventTimeOfText,
} from '../../../src/reports/shield/event-time.js';
import {
  IP_TRACK_CAPACITY,
  LABEL_CAPACITY,
  MAX_BUCKETS,
  type ShieldColumn,
  type ShieldSummary,
  ShieldTally,
} from '../../../src/reports/shield/summary.js';
import { throughGuard } from '../support.js';

/** The body through the guard in pieces cut at `cuts`: the CSV file it writes and the summary. */
function summarise(
  body: Buffer,
  cuts: readonly number[] = [],
  simd = true,
): { csv: Buffer; summary: ShieldSummary } {
  const tally = new ShieldTally(simd ? {} : { simd: false });
  const csv = throughGuard(new CsvFormulaGuard({ cells: tally, simd }), body, cuts);
  return { csv, summary: tally.summary() };
}

const csvOf = (records: string[][]) => Buffer.from(stringify(records, { record_delimiter: '\r\n' }));

/** Header names as an export might spell them: any case, with `_`, `-` or a space. */
const HEADER_NAMES: Record<ShieldColumn, string[]> = {
  timestamp: ['timestamp', 'Timestamp', 'TIME', 'date_time'],
  action: ['action', 'Action', 'ACTION'],
  ruleId: ['ruleId', 'RuleID', 'rule_id', 'Rule ID'],
  ruleName: ['ruleName', 'RULENAME', 'rule-name'],
  country: ['country', 'Country', 'countryCode'],
  asn: ['asn', 'ASN'],
  ip: ['ip', 'IP', 'remoteIp', 'client_ip'],
};
const OTHER_COLUMNS = ['url', 'userAgent', 'feature'];

/** Cell values per dimension: formula leads, quotes, line breaks, commas, unicode and empty cells among them. */
const VALUES: Record<Exclude<ShieldColumn, 'timestamp'>, string[]> = {
  action: ['Block', 'Log', 'Challenge', '', '=cmd|x', 'blöck'],
  ruleId: ['941100', '942100', '=HYPERLINK("http://evil.example")', '', 'r,1'],
  ruleName: ['XSS "quoted"', 'SQLi\r\nline', '', '+name', 'ünï 🚀'],
  country: ['DE', 'FR', '', '-X', '\tTAB'],
  asn: ['13335', 'AS 1', '@x', ''],
  ip: ['203.0.113.9', '198.51.100.7', '2001:db8::1', '', '\rip'],
};

const START = Date.UTC(2026, 10, 21, 13, 47, 12);
const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The bucket sizes the issue asks for, by the span the events cover. */
const expectedBucket = (span: number) =>
  span <= HOUR ? MINUTE : span <= 6 * HOUR ? 5 * MINUTE : span <= 24 * HOUR ? 15 * MINUTE : HOUR;

const exportCase = fc
  .record({
    columns: fc.shuffledSubarray([...(Object.keys(HEADER_NAMES) as ShieldColumn[]), ...OTHER_COLUMNS], {
      minLength: 1,
    }),
    spellings: fc.array(fc.nat(), { minLength: 10, maxLength: 10 }),
    spanMs: fc.constantFrom(30 * MINUTE, 3 * HOUR, 12 * HOUR, 48 * HOUR, 72 * HOUR),
    rows: fc.array(
      fc.record({
        picks: fc.array(fc.nat(), { minLength: 10, maxLength: 10 }),
        at: fc.double({ min: 0, max: 1, noNaN: true }),
        time: fc.constantFrom('iso', 'iso', 'iso', 'unix-ms', 'unix-s', 'junk', 'empty'),
        keep: fc.option(fc.nat(), { nil: undefined }),
      }),
      { maxLength: 60 },
    ),
    cuts: fc.array(fc.nat({ max: 5_000 }), { maxLength: 8 }),
  })
  .map(({ columns, spellings, spanMs, rows, cuts }) => {
    const header = columns.map((column, i) =>
      column in HEADER_NAMES
        ? HEADER_NAMES[column as ShieldColumn][spellings[i]! % HEADER_NAMES[column as ShieldColumn].length]!
        : column,
    );
    const records = rows.map(({ picks, at, time, keep }) => {
      const ms = START + Math.floor(at * spanMs);
      const cells = columns.map((column, i) => {
        if (column === 'timestamp')
          return time === 'iso'
            ? new Date(ms).toISOString()
            : time === 'unix-ms'
              ? String(ms)
              : time === 'unix-s'
                ? String(Math.floor(ms / 1000))
                : time === 'junk'
                  ? 'not a time'
                  : '';
        const pool = VALUES[column as keyof typeof VALUES] ?? ['/a', 'curl/8', '=x'];
        return pool[picks[i]! % pool.length]!;
      });
      // Ragged rows: some lack their last cells.
      return keep === undefined ? cells : cells.slice(0, 1 + (keep % cells.length));
    });
    return { columns, header, records, cuts };
  });

/** Counts of each column of the CSV file, read back with csv-parse. */
function countedFromCsv(csv: Buffer, columns: readonly string[]) {
  const [, ...rows] = parse(csv, { relax_column_count: true, skip_empty_lines: true }) as string[][];
  const by = (column: string) => {
    const index = columns.indexOf(column);
    if (index < 0) return undefined;
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(row[index] ?? '', (counts.get(row[index] ?? '') ?? 0) + 1);
    return counts;
  };
  return { rows, by };
}

const asMap = (values: { value: string; count: number }[] | undefined) =>
  values && new Map(values.map(({ value, count }) => [value, count]));

describe('the Shield summary, counted in the same pass as the CSV', () => {
  it('counts what the CSV file holds, by every column the header names, cut at any chunk boundary', () => {
    fc.assert(
      fc.property(exportCase, ({ columns, header, records, cuts }) => {
        const { csv, summary } = summarise(csvOf([header, ...records]), cuts);
        const { rows, by } = countedFromCsv(csv, columns);
        expect(summary.events).toBe(rows.length);
        expect(asMap(summary.byAction?.values)).toEqual(by('action'));
        expect(asMap(summary.byCountry?.values)).toEqual(by('country'));
        expect(asMap(summary.byAsn?.values)).toEqual(by('asn'));
        const ips = by('ip');
        expect(summary.topIps && new Map(summary.topIps.ips.map(({ ip, count }) => [ip, count]))).toEqual(
          ips,
        );
        for (const column of ['timestamp', 'action', 'ruleId', 'ruleName', 'country', 'asn', 'ip'] as const)
          expect(summary.columns[column]).toBe(
            columns.includes(column) ? header[columns.indexOf(column)] : undefined,
          );

        const idAt = columns.indexOf('ruleId');
        const nameAt = columns.indexOf('ruleName');
        if (idAt < 0 && nameAt < 0) expect(summary.byRule).toBeUndefined();
        else {
          const rules = new Map<string, number>();
          for (const row of rows) {
            const key = `${idAt < 0 ? '' : (row[idAt] ?? '')} / ${nameAt < 0 ? '' : (row[nameAt] ?? '')}`;
            rules.set(key, (rules.get(key) ?? 0) + 1);
          }
          expect(
            new Map(summary.byRule!.rules.map((rule) => [`${rule.id} / ${rule.name}`, rule.count])),
          ).toEqual(rules);
        }

        const timeAt = columns.indexOf('timestamp');
        if (timeAt < 0) expect(summary.timeline).toBeUndefined();
        else {
          const times = rows.map((row) => {
            const cell = row[timeAt] ?? '';
            if (/^\d{13}$/.test(cell)) return Number(cell);
            if (/^\d{10}$/.test(cell)) return Number(cell) * 1000;
            return cell.endsWith('Z') ? Date.parse(cell) : Number.NaN;
          });
          const timed = times.filter((ms) => !Number.isNaN(ms));
          const timeline = summary.timeline!;
          expect(timeline.untimed).toBe(rows.length - timed.length);
          expect(timeline.counts.reduce((sum, n) => sum + n, 0)).toBe(timed.length);
          if (timed.length === 0) expect(timeline.counts).toEqual([]);
          else {
            const first = Math.min(...timed);
            const last = Math.max(...timed);
            expect([timeline.firstMs, timeline.lastMs]).toEqual([first, last]);
            expect(timeline.bucketMs).toBe(expectedBucket(last - first));
            expect(timeline.startMs).toBe(Math.floor(first / timeline.bucketMs) * timeline.bucketMs);
            const expected = new Array<number>(timeline.counts.length).fill(0);
            for (const ms of timed) expected[Math.floor((ms - timeline.startMs) / timeline.bucketMs)]!++;
            expect(timeline.counts).toEqual(expected);
            // The span the events cover, and no more.
            expect(timeline.startMs + timeline.counts.length * timeline.bucketMs).toBeGreaterThan(last);
            expect(timeline.startMs + (timeline.counts.length - 1) * timeline.bucketMs).toBeLessThanOrEqual(
              last,
            );
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('counts the same whether SIMD code or the byte-by-byte guard found the cells', () => {
    // Past the first record the guard hands windows of records to SIMD code (csv/stops.ts): the
    // summary's cells then come from it, formulas, quotes and short rows included.
    fc.assert(
      fc.property(exportCase, fc.constantFrom('\r\n', '\n'), ({ header, records, cuts }, end) => {
        const body = Buffer.from(
          stringify([header, ...records], { record_delimiter: end === '\n' ? 'unix' : 'windows' }),
        );
        expect(summarise(body, cuts, true)).toEqual(summarise(body, cuts, false));
      }),
      { numRuns: 300 },
    );
  });

  it('finds columns whatever their case and leaves out what the file lacks', () => {
    const { summary } = summarise(
      csvOf([
        ['TIMESTAMP', 'Action', 'URL'],
        ['2026-11-21T14:00:01Z', 'Block', '/a'],
        ['2026-11-21T14:00:02Z', 'block', '/b'],
      ]),
    );
    expect(summary).toEqual({
      events: 2,
      columns: { timestamp: 'TIMESTAMP', action: 'Action' },
      byAction: {
        values: [
          { value: 'Block', count: 1 },
          { value: 'block', count: 1 },
        ],
        other: 0,
      },
      timeline: {
        startMs: Date.UTC(2026, 10, 21, 14),
        bucketMs: MINUTE,
        counts: [2],
        firstMs: Date.UTC(2026, 10, 21, 14, 0, 1),
        lastMs: Date.UTC(2026, 10, 21, 14, 0, 2),
        untimed: 0,
      },
    });
  });

  it('reads a header alone, or nothing at all, as no events', () => {
    expect(summarise(csvOf([['action', 'ip']])).summary).toMatchObject({
      events: 0,
      byAction: { values: [] },
    });
    expect(summarise(Buffer.alloc(0)).summary).toEqual({ events: 0, columns: {} });
  });

  it('counts a cell that csv-parse continues after a NUL as the text the file holds', () => {
    const { csv, summary } = summarise(Buffer.from('action,ip\r\n"=Blo"\0ck,1.2.3.4\r\n'));
    expect(parse(csv)).toEqual([
      ['action', 'ip'],
      ["'=Blo\0ck", '1.2.3.4'],
    ]);
    expect(summary.byAction?.values).toEqual([{ value: "'=Blo\0ck", count: 1 }]);
  });

  it('sums values past the capacity as other, and keeps every event in the count', () => {
    const rows = Array.from({ length: LABEL_CAPACITY + 25 }, (_, i) => [`AS${i}`, i % 2 ? 'Block' : 'Log']);
    const { summary } = summarise(csvOf([['asn', 'action'], ...rows, ['AS0', 'Log']]));
    expect(summary.events).toBe(LABEL_CAPACITY + 26);
    expect(summary.byAsn!.values).toHaveLength(LABEL_CAPACITY);
    expect(summary.byAsn!.other).toBe(25);
    expect(summary.byAsn!.values[0]).toEqual({ value: 'AS0', count: 2 });
  });

  it('finds the busiest IPs among more distinct ones than it tracks', () => {
    const rows: string[][] = [];
    for (let i = 0; i < IP_TRACK_CAPACITY * 3; i++) {
      rows.push([`10.0.${i >> 8}.${i & 255}`]);
      if (i % 20 === 0) rows.push(['203.0.113.9']);
    }
    const { summary } = summarise(csvOf([['Remote IP'], ...rows]));
    expect(summary.topIps!.ips[0]).toMatchObject({ ip: '203.0.113.9', count: (IP_TRACK_CAPACITY * 3) / 20 });
  });

  it('widens the buckets of events spread over years to a readable number', () => {
    const { summary } = summarise(
      csvOf([['time'], ['2020-01-01T00:00:00Z'], ['2026-11-21T14:00:00Z'], ['2026-11-21T14:00:30Z']]),
    );
    const timeline = summary.timeline!;
    expect(timeline.counts.length).toBeLessThanOrEqual(MAX_BUCKETS + 1);
    expect(timeline.counts.reduce((sum, n) => sum + n, 0)).toBe(3);
    expect(timeline.bucketMs % HOUR).toBe(0);
  });
});

describe("an event's time from its cell", () => {
  const bytes = (text: string) => {
    const buf = Buffer.from(`,${text},`);
    return eventTimeOfBytes(buf, 1, buf.length - 1);
  };

  it.each([
    ['2026-11-21T14:00:01Z', Date.UTC(2026, 10, 21, 14, 0, 1)],
    ['2026-11-21T14:00:01.5Z', Date.UTC(2026, 10, 21, 14, 0, 1, 500)],
    ['2026-11-21 14:00:01.123456z', Date.UTC(2026, 10, 21, 14, 0, 1, 123)],
    ['2026-11-21T14:00:01', Date.UTC(2026, 10, 21, 14, 0, 1)],
    ['2026-11-21T14:00:01+02:00', Date.UTC(2026, 10, 21, 12, 0, 1)],
    ['2026-11-21T14:00:01-0130', Date.UTC(2026, 10, 21, 15, 30, 1)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['1763733601000', 1_763_733_601_000],
    ['1763733601', 1_763_733_601_000],
    ['1763733601.25', 1_763_733_601_250],
    ['Sat, 21 Nov 2026 14:00:01 GMT', Date.UTC(2026, 10, 21, 14, 0, 1)],
  ])('reads %s', (text, ms) => {
    expect(bytes(text)).toBe(ms);
    expect(eventTimeOfText(text)).toBe(ms);
  });

  it.each([
    '',
    'not a time',
    '2026-13-01T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-11-21T25:00:00Z',
    '1e400',
  ])('reads %s as no time', (text) => {
    expect(bytes(text)).toBeNaN();
    expect(eventTimeOfText(text)).toBeNaN();
  });

  it('reads a run of cells as it reads each alone, where their minutes repeat or nearly do', () => {
    // The reader keeps the last minute read: cells sharing it, or sharing all but a byte of it,
    // with any seconds, fraction and offset after it, good or not.
    const minutes = [
      '2026-11-21T14:05',
      '2026-11-21 14:05',
      '2026-11-21T14:06',
      '2026-11-22T14:05',
      '2026-02-30T14:05',
      '2026-11-21T24:05',
      '2026-11-21T14:5:',
    ];
    const tails = [
      ':07Z',
      ':07.25Z',
      ':59+02:00',
      ':60Z',
      ':07-0130',
      ':07',
      ':7Z',
      '07Z',
      ':07.Z',
      ':07Zx',
      ':07+24:00',
      '',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...minutes), fc.constantFrom(...tails)), {
          minLength: 1,
          maxLength: 30,
        }),
        (cells) => {
          const reader = new EventTimeReader();
          const body = Buffer.from(cells.map(([minute, tail]) => `${minute}${tail}`).join(','));
          let from = 0;
          for (const [minute, tail] of cells) {
            const to = from + Buffer.byteLength(minute + tail);
            const expected = eventTimeOfText(minute + tail);
            const read = reader.ofBytes(body, from, to);
            if (Number.isNaN(expected)) expect(read).toBeNaN();
            else expect(read).toBe(expected);
            from = to + 1;
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads every ISO instant a Date can represent as Date.parse does', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date(Date.UTC(1, 0, 1)),
          max: new Date(Date.UTC(9999, 11, 31)),
          noInvalidDate: true,
        }),
        (date) => {
          const iso = date.toISOString();
          expect(bytes(iso)).toBe(Date.parse(iso));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
