import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { originDayBody, originDayStream } from '../../../bench/origin-day.js';
import {
  type OriginFilters,
  type OriginView,
  summariseOriginErrors,
} from '../../../src/reports/origin/summary.js';
import { heapOutsideNewSpace } from '../../support/heap.js';
import { exists, inPieces, useReportScratch } from '../support.js';

const DAY = Date.UTC(2026, 10, 21);
const at = (hour: number, minute: number, second = 0, ms = 0) =>
  DAY + ((hour * 60 + minute) * 60 + second) * 1000 + ms;
const detail = (fields: Record<string, unknown>) => JSON.stringify({ PullZoneId: 308006, ...fields });
const QUOTED_URL = '/b, "quoted"\nline';
const HYPERLINK = '=HYPERLINK("http://evil.example","x")';

/**
 * Nine entries (one with a `log` that is not JSON, one without labels, one without a timestamp,
 * which the vendor does not require) and an element that is not an entry.
 */
const FIXTURE: unknown[] = [
  {
    logId: 'l1',
    timestamp: at(0, 10),
    log: detail({
      RequestUrl: '/a',
      Message: 'Origin DNS lookup failed',
      ErrorCode: 'dns_lookup',
      StatusCode: 502,
    }),
    labels: { ErrorCode: 'dns_lookup', StatusCode: '502', ServerZone: 'CA' },
  },
  {
    logId: 'l2',
    timestamp: at(0, 20),
    log: detail({
      RequestUrl: '/a',
      Message: 'Origin timed out',
      ErrorCode: 'http_timeout',
      StatusCode: 504,
    }),
    labels: { ErrorCode: 'http_timeout', StatusCode: '504', ServerZone: 'DE' },
  },
  {
    logId: 'l3',
    timestamp: at(1, 0),
    log: '{"RequestUrl":"/b","Mess',
    labels: { ErrorCode: 'dns_lookup', StatusCode: '502', ServerZone: 'DE' },
  },
  {
    logId: '=cmd|calc',
    timestamp: at(13, 5),
    log: detail({ RequestUrl: HYPERLINK, Message: '+1', ErrorCode: 'http_invalid_range', StatusCode: 416 }),
    labels: { ErrorCode: 'http_invalid_range', StatusCode: '416', ServerZone: 'UK' },
  },
  {
    logId: 'l5',
    timestamp: at(13, 30),
    log: detail({ RequestUrl: '@x', Message: '-2', ErrorCode: 'error', StatusCode: 500 }),
  },
  {
    logId: 'l6',
    timestamp: at(14, 0),
    log: detail({ RequestUrl: '/a', Message: '\tx', ErrorCode: 'network_io_error', StatusCode: 502 }),
    labels: { ErrorCode: 'network_io_error', StatusCode: '502', ServerZone: 'CA' },
  },
  {
    logId: 'l7',
    timestamp: at(14, 45),
    log: detail({ RequestUrl: QUOTED_URL, Message: '\rx', ErrorCode: 'http_loop_detected', StatusCode: 508 }),
    labels: { ErrorCode: 'http_loop_detected', StatusCode: '508', ServerZone: 'SG' },
  },
  {
    logId: 'l8',
    timestamp: at(23, 59, 59, 999),
    log: detail({ RequestUrl: QUOTED_URL, Message: 'new', ErrorCode: 'brand_new_code', StatusCode: 400 }),
    labels: { ErrorCode: 'brand_new_code', StatusCode: '400', ServerZone: 'CA' },
  },
  ['an', 'array'],
  { logId: 'no-timestamp', log: '{}' },
];

/** The body in small pieces, so entries and strings are cut across chunks. */
function bodyOf(document: unknown, pieceBytes = 37): AsyncGenerator<Buffer> {
  return inPieces(Buffer.from(JSON.stringify(document)), pieceBytes);
}

const { pool: reportPool, csvPath } = useReportScratch('report');

const HOURLY: OriginView = { grid: { startMs: DAY, widthMs: 3_600_000, count: 24 } };

async function summarise(filters: OriginFilters = {}) {
  const path = csvPath();
  const summary = await summariseOriginErrors({
    source: bodyOf({ logs: FIXTURE }),
    filters,
    view: HOURLY,
    csvPath: path,
    pool: reportPool(),
  });
  const text = await readFile(path, 'utf8');
  const rows = parse(text, { columns: true }) as Record<string, string>[];
  return { summary, text, rows };
}

/** The vendor's published example, beside the checkout; skipped with a notice when it is absent. */
const ORIGIN_FIXTURE = fileURLToPath(
  new URL('../../../../shared/reference/platform-fixtures/06-origin-errors-logs.json', import.meta.url),
);
if (!existsSync(ORIGIN_FIXTURE))
  console.warn('shared/reference/platform-fixtures not found: skipping the documented origin-log example');

describe('summarising an origin-error day', () => {
  it('counts every entry, keeps the malformed and the untimed one, and leaves out what is not an entry', async () => {
    const { summary } = await summarise();
    expect(summary).toMatchObject({
      scanned: 10,
      total: 9,
      malformed: 1,
      untimed: 1,
      skipped: 1,
      listed: true,
      firstSeenMs: at(0, 10),
      lastSeenMs: at(23, 59, 59, 999),
    });
    expect(summary.byStatus).toEqual([
      { status: '502', count: 3 },
      { status: '400', count: 1 },
      { status: '416', count: 1 },
      { status: '500', count: 1 },
      { status: '504', count: 1 },
      { status: '508', count: 1 },
      { status: 'unknown', count: 1 },
    ]);
    expect(summary.byErrorCode).toEqual([
      { code: 'dns_lookup', words: 'origin DNS lookup failed', count: 2 },
      { code: 'brand_new_code', words: null, count: 1 },
      { code: 'error', words: 'other error', count: 1 },
      { code: 'http_invalid_range', words: 'invalid range request', count: 1 },
      { code: 'http_loop_detected', words: 'request loop detected', count: 1 },
      { code: 'http_timeout', words: 'origin timed out', count: 1 },
      { code: 'network_io_error', words: 'network I/O error to origin', count: 1 },
      { code: 'unknown', words: null, count: 1 },
    ]);
    expect(summary.byServerZone).toEqual([
      { zone: 'CA', count: 3 },
      { zone: 'DE', count: 2 },
      { zone: 'unknown', count: 2 },
      { zone: 'SG', count: 1 },
      { zone: 'UK', count: 1 },
    ]);
    expect(summary.topUrls).toEqual([
      { url: '/a', count: 3, overcount: 0 },
      { url: QUOTED_URL, count: 2, overcount: 0 },
      { url: HYPERLINK, count: 1, overcount: 0 },
      { url: '@x', count: 1, overcount: 0 },
    ]);
    const perHour = new Array<number>(24).fill(0);
    Object.assign(perHour, { 0: 2, 1: 1, 13: 2, 14: 2, 23: 1 });
    // The entry without a timestamp is counted, but has no hour.
    expect(summary.buckets).toEqual(perHour);
    expect(summary.windowed).toBe(9);
    expect(summary.days).toEqual([{ entries: 10, listed: true }]);
    expect(summary.labelsSeen).toEqual({
      errorCodes: [
        'dns_lookup',
        'brand_new_code',
        'http_invalid_range',
        'http_loop_detected',
        'http_timeout',
        'network_io_error',
      ],
      serverZones: ['CA', 'DE', 'SG', 'UK'],
    });
    expect(summary.csv.rows).toBe(9);
  });

  it.each<[string, OriginFilters, string[]]>([
    ['an exact status', { status: { exact: [502] } }, ['l1', 'l3', 'l6']],
    ['a status class', { status: { classes: [5] } }, ['l1', 'l2', 'l3', 'l5', 'l6', 'l7']],
    ['an exact status or a class', { status: { exact: [504], classes: [4] } }, ['l2', "'=cmd|calc", 'l8']],
    ['an error code, whatever its case', { errorCode: 'DNS_LOOKUP' }, ['l1', 'l3']],
    ['a server zone, whatever its case', { serverZone: 'ca' }, ['l1', 'l6', 'l8']],
    ['a start time (--last)', { sinceMs: at(13, 30) }, ['l5', 'l6', 'l7', 'l8']],
    ['a window, its end left out', { sinceMs: at(1, 0), untilMs: at(14, 0) }, ['l3', "'=cmd|calc", 'l5']],
    ['all of them at once', { status: { classes: [5] }, serverZone: 'CA', sinceMs: at(1, 0) }, ['l6']],
  ])('keeps only the entries matching %s, in the counts and in the CSV', async (_, filters, ids) => {
    const { summary, rows } = await summarise(filters);
    expect(rows.map((row) => row.log_id)).toEqual(ids);
    expect(summary.total).toBe(ids.length);
    expect(summary.scanned).toBe(10);
    expect(summary.buckets.reduce((sum, count) => sum + count, 0)).toBe(ids.length);
    expect(summary.byStatus.reduce((sum, entry) => sum + entry.count, 0)).toBe(ids.length);
  });

  it('writes an RFC 4180 CSV with ISO times, labels for the malformed entry, and neutralised formulas', async () => {
    const { text, rows } = await summarise();
    expect(text.startsWith('timestamp,status,error_code,server_zone,url,message,log_id\r\n')).toBe(true);
    expect(rows).toHaveLength(9);
    expect(rows[0]).toEqual({
      timestamp: '2026-11-21T00:10:00.000Z',
      status: '502',
      error_code: 'dns_lookup',
      server_zone: 'CA',
      url: '/a',
      message: 'Origin DNS lookup failed',
      log_id: 'l1',
    });
    expect(rows[2]).toEqual({
      timestamp: '2026-11-21T01:00:00.000Z',
      status: '502',
      error_code: 'dns_lookup',
      server_zone: 'DE',
      url: '',
      message: '',
      log_id: 'l3',
    });
    expect(rows[3]).toMatchObject({ url: `'${HYPERLINK}`, message: "'+1", log_id: "'=cmd|calc" });
    expect(rows[4]).toMatchObject({
      url: "'@x",
      message: "'-2",
      status: '500',
      error_code: 'error',
      server_zone: '',
    });
    expect(rows[5]).toMatchObject({ message: "'\tx" });
    expect(rows[6]).toMatchObject({ message: "'\rx", url: QUOTED_URL });
    expect(rows[7]).toMatchObject({ timestamp: '2026-11-21T23:59:59.999Z', url: QUOTED_URL });
    expect(rows[8]).toEqual({
      timestamp: '',
      status: '',
      error_code: '',
      server_zone: '',
      url: '',
      message: '',
      log_id: 'no-timestamp',
    });
  });

  it.skipIf(!existsSync(ORIGIN_FIXTURE))(
    'reads the documented example of the origin-error endpoint',
    async () => {
      const fixture = JSON.parse(readFileSync(ORIGIN_FIXTURE, 'utf8')) as {
        documented_example: { '200': unknown };
      };
      const summary = await summariseOriginErrors({
        source: bodyOf(fixture.documented_example['200']),
        csvPath: csvPath(),
        pool: reportPool(),
      });
      expect(summary).toMatchObject({
        total: 1,
        malformed: 0,
        byErrorCode: [{ code: 'dns_lookup', words: 'origin DNS lookup failed', count: 1 }],
        byServerZone: [{ zone: 'CA', count: 1 }],
        topUrls: [{ url: '/apikey', count: 1, overcount: 0 }],
      });
    },
  );

  it.each([
    ['{}', false],
    ['{"logs":null}', false],
    ['{"logs":[]}', true],
    ['{"note":"no errors today"}', false],
  ])('reads the vendor-legal body %s as a day without entries', async (text, listed) => {
    const path = csvPath();
    const summary = await summariseOriginErrors({
      source: (async function* () {
        yield Buffer.from(text);
      })(),
      csvPath: path,
      pool: reportPool(),
    });
    expect(summary).toMatchObject({ scanned: 0, total: 0, listed, firstSeenMs: null, lastSeenMs: null });
    expect(summary.csv.rows).toBe(0);
  });

  it.each([
    ['a truncated body', JSON.stringify({ logs: FIXTURE }).slice(0, -30)],
    ['a body whose logs is not a list', '{"logs":"Unauthorized"}'],
    ['a body that is not an object', '[{"logId":"x"}]'],
  ])('refuses %s as an invalid response and leaves no CSV behind', async (_, text) => {
    const path = csvPath();
    const summary = summariseOriginErrors({
      source: (async function* () {
        yield Buffer.from(text);
      })(),
      csvPath: path,
      pool: reportPool(),
    });
    await expect(summary).rejects.toMatchObject({ kind: 'invalid-response', operation: 'logs.origin' });
    expect(await exists(path)).toBe(false);
  });

  it('passes on a download that fails half-way, and leaves no CSV behind', async () => {
    const path = csvPath();
    const summary = summariseOriginErrors({
      source: (async function* () {
        yield* bodyOf({ logs: FIXTURE });
        throw new Error('connection reset by peer');
      })(),
      csvPath: path,
      pool: reportPool(),
    });
    await expect(summary).rejects.toThrow('connection reset by peer');
    expect(await exists(path)).toBe(false);
  });

  it('summarises a 200,000-entry day off the event loop, its heap nowhere near the body size', async () => {
    const path = csvPath();
    const before = heapOutsideNewSpace();
    let peak = before;
    let lastEntries = 0;
    const summary = await summariseOriginErrors({
      source: originDayStream({ entries: 200_000, dayStartMs: DAY, malformedEvery: 10_000 }),
      csvPath: path,
      view: HOURLY,
      pool: reportPool(),
      onProgress: ({ entries }) => {
        expect(entries).toBeGreaterThanOrEqual(lastEntries);
        lastEntries = entries;
        peak = Math.max(peak, heapOutsideNewSpace());
      },
    });
    expect(summary).toMatchObject({ scanned: 200_000, total: 200_000, malformed: 20, skipped: 0 });
    expect(summary.csv.rows).toBe(200_000);
    expect(summary.topUrls).toHaveLength(10);
    expect(summary.buckets.every((count) => count > 7_000 && count < 9_700)).toBe(true);
    expect(summary.bodyBytes).toBeGreaterThan(60 * 1024 * 1024);
    // Holding the body would be ≥ 1×.
    expect(peak - before).toBeLessThan(summary.bodyBytes / 2);
    const csv = await readFile(path);
    expect(csv.length).toBe(summary.csv.bytes);
    let lines = 0;
    for (const byte of csv) if (byte === 0x0a) lines++;
    expect(lines).toBe(200_001);
  });
});

describe('summarising a window that spans UTC days', () => {
  const DAY_BEFORE = DAY - 86_400_000;
  const entry = (logId: string, timestamp: number | undefined, url: string, code: string, zone = 'DE') => ({
    logId,
    ...(timestamp === undefined ? {} : { timestamp }),
    log: detail({ RequestUrl: url, Message: 'm', ErrorCode: code, StatusCode: 502 }),
    labels: { ErrorCode: code, StatusCode: '502', ServerZone: zone },
  });
  const hour = 3_600_000;
  /** 2026-11-20 and 2026-11-21, each with entries on both sides of the window 22:20–00:20. */
  const yesterday = [
    entry('y-early', DAY_BEFORE + 20 * hour, '/old', 'http_timeout'),
    entry('y-prev', DAY_BEFORE + 21 * hour, '/old', 'http_timeout', 'UK'),
    entry('y-in-1', DAY - hour, '/a', 'dns_lookup'),
    entry('y-in-2', DAY - 1, '/new', 'dns_lookup'),
    entry('y-untimed', undefined, '/a', 'dns_lookup'),
  ];
  const today = [
    entry('t-in', DAY + 10 * 60_000, '/a', 'http_loop_detected', 'SG'),
    entry('t-after', DAY + 20 * 60_000, '/a', 'dns_lookup'),
    entry('t-untimed', undefined, '/a', 'dns_lookup'),
  ];
  const window = { sinceMs: DAY - 100 * 60_000, untilMs: DAY + 20 * 60_000 };

  async function summariseDays(
    bodies: unknown[],
    options: { filters?: OriginFilters; view?: OriginView } = {},
  ) {
    const opened: number[] = [];
    const path = csvPath();
    const summary = await summariseOriginErrors({
      days: bodies.map((body, index) => async () => {
        opened.push(index);
        return bodyOf(body, 29);
      }),
      filters: { ...window, ...options.filters },
      view: options.view,
      untimedDay: 1,
      csvPath: path,
      pool: reportPool(),
    });
    const rows = parse(await readFile(path, 'utf8'), { columns: true }) as Record<string, string>[];
    return { summary, rows, opened };
  }

  it('reads each day in turn and counts the entries of both that fall inside the window', async () => {
    const { summary, rows, opened } = await summariseDays([{ logs: yesterday }, { logs: today }]);
    expect(opened).toEqual([0, 1]);
    expect(rows.map((row) => row.log_id)).toEqual(['y-in-1', 'y-in-2', 't-in', 't-untimed']);
    expect(summary).toMatchObject({ scanned: 8, total: 4, windowed: 4, untimed: 1, listed: true });
    expect(summary.days).toEqual([
      { entries: 5, listed: true },
      { entries: 3, listed: true },
    ]);
    expect(summary.firstSeenMs).toBe(DAY - hour);
    expect(summary.lastSeenMs).toBe(DAY + 10 * 60_000);
  });

  it('tells a day the platform sent nothing for from one it sent entries for', async () => {
    const { summary } = await summariseDays([{}, { logs: today }]);
    expect(summary.days).toEqual([
      { entries: 0, listed: false },
      { entries: 3, listed: true },
    ]);
    expect(summary.total).toBe(2);
  });

  it('counts the chart by the view’s buckets, across midnight', async () => {
    const view: OriginView = { grid: { startMs: DAY - 2 * hour, widthMs: 15 * 60_000, count: 10 } };
    const { summary } = await summariseDays([{ logs: yesterday }, { logs: today }], { view });
    // 23:00 is bucket 4, 23:59:59.999 bucket 7, 00:10 bucket 8; the untimed entry has none.
    expect(summary.buckets).toEqual([0, 0, 0, 0, 1, 0, 0, 1, 1, 0]);
  });

  it('counts the earlier windows with the same filters, and which of the top URLs they saw', async () => {
    const view: OriginView = {
      comparisons: [
        { startMs: DAY_BEFORE + 20 * hour + 40 * 60_000, endMs: window.sinceMs },
        { startMs: DAY_BEFORE, endMs: DAY_BEFORE + 21 * hour + 1 },
      ],
    };
    const { summary, rows } = await summariseDays([{ logs: yesterday }, { logs: today }], { view });
    expect(rows).toHaveLength(4);
    const [previous, dayBefore] = summary.comparisons;
    expect(previous).toMatchObject({
      total: 1,
      byErrorCode: [{ code: 'http_timeout', count: 1 }],
      byServerZone: [{ zone: 'UK', count: 1 }],
      topUrls: [{ url: '/old', count: 1, overcount: 0 }],
      seenTopUrls: [],
      urlsEvicted: false,
    });
    expect(dayBefore).toMatchObject({ total: 2, byStatus: [{ status: '502', count: 2 }] });
    const filtered = await summariseDays([{ logs: yesterday }, { logs: today }], {
      view,
      filters: { serverZone: 'DE' },
    });
    expect(filtered.summary.comparisons.map((c) => c.total)).toEqual([0, 1]);
    // What was seen is read before the filters: a typo can be answered with what exists.
    expect(filtered.summary.labelsSeen.serverZones).toEqual(['DE', 'SG', 'UK']);
    expect(filtered.summary.windowed).toBe(4);
    expect(filtered.summary.total).toBe(3);
  });

  it('answers the same, to the byte, whether the texts are counted on a thread of their own or not', async () => {
    const view: OriginView = {
      grid: { startMs: DAY - 2 * hour, widthMs: 15 * 60_000, count: 10 },
      comparisons: [
        { startMs: DAY_BEFORE + 20 * hour, endMs: window.sinceMs },
        { startMs: DAY_BEFORE, endMs: DAY_BEFORE + 21 * hour + 1 },
      ],
    };
    const generated = (dayStartMs: number) =>
      inPieces(Buffer.concat([...originDayBody({ entries: 3_000, dayStartMs, malformedEvery: 7 })]), 4_096);
    const both = await Promise.all(
      [true, false].map(async (countApart) => {
        const path = csvPath();
        const summary = await summariseOriginErrors({
          days: [
            async () => generated(DAY_BEFORE),
            async () => bodyOf({ logs: [...yesterday, ...today] }),
            async () => generated(DAY),
          ],
          filters: { ...window, status: { classes: [5] } },
          view,
          untimedDay: 1,
          countApart,
          csvPath: path,
          pool: reportPool(),
        });
        return { summary: { ...summary, csv: { ...summary.csv, path: '' } }, csv: await readFile(path) };
      }),
    );
    expect(both[0]!.summary).toEqual(both[1]!.summary);
    expect(both[0]!.csv.equals(both[1]!.csv)).toBe(true);
    expect(both[0]!.summary).toMatchObject({ scanned: 6_008, total: expect.any(Number) });
    expect(both[0]!.summary.comparisons.map((c) => c.total)).not.toEqual([0, 0]);
  });

  it('stops at a day that cannot be fetched, and leaves no CSV behind', async () => {
    const path = csvPath();
    const summary = summariseOriginErrors({
      days: [
        async () => bodyOf({ logs: yesterday }),
        () => Promise.reject(new Error('503 from the platform')),
      ],
      filters: window,
      csvPath: path,
      pool: reportPool(),
    });
    await expect(summary).rejects.toThrow('503 from the platform');
    expect(await exists(path)).toBe(false);
  });

  it('does not fetch the next day once a day cannot be read', async () => {
    let opened = 0;
    const summary = summariseOriginErrors({
      days: [
        async () => inPieces(Buffer.from('{"logs":[{"logId":"x"},'), 7),
        async () => {
          opened++;
          return bodyOf({ logs: today });
        },
      ],
      filters: window,
      csvPath: csvPath(),
      pool: reportPool(),
    });
    await expect(summary).rejects.toMatchObject({ kind: 'invalid-response' });
    expect(opened).toBe(0);
  });

  it('refuses a second day cut short as an invalid response', async () => {
    const summary = summariseOriginErrors({
      days: [
        async () => bodyOf({ logs: yesterday }),
        async () => inPieces(Buffer.from(JSON.stringify({ logs: today }).slice(0, -20)), 29),
      ],
      filters: window,
      csvPath: csvPath(),
      pool: reportPool(),
    });
    await expect(summary).rejects.toMatchObject({ kind: 'invalid-response' });
  });
});

describe('cancelling a summary', () => {
  let server: Server;
  let url: string;
  let responsesClosedEarly = 0;

  beforeAll(async () => {
    server = createServer((_, res) => {
      res.on('close', () => {
        if (!res.writableFinished) responsesClosedEarly++;
      });
      originDayStream({ entries: 200_000, dayStartMs: DAY }).pipe(res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/308006/11-21-2026`;
  });

  afterAll(async () => {
    server.close();
  });

  it('stops the download and the worker, and deletes the partial CSV', async () => {
    const path = csvPath();
    const controller = new AbortController();
    const response = await request(url, { signal: controller.signal });
    let partialSeen = false;
    let abortedAt = 0;
    const summary = summariseOriginErrors({
      source: response.body,
      csvPath: path,
      pool: reportPool(),
      signal: controller.signal,
      onProgress: ({ bytes }) => {
        if (bytes < 2 * 1024 * 1024) return;
        void exists(path).then((found) => {
          partialSeen ||= found;
        });
        abortedAt ||= performance.now();
        controller.abort();
      },
    });
    await expect(summary).rejects.toMatchObject({ kind: 'aborted', operation: 'logs.origin' });
    // The worker stopped on its own, well before the grace period after which its thread is terminated.
    expect(performance.now() - abortedAt).toBeLessThan(1_500);
    expect(partialSeen).toBe(true);
    expect(await exists(path)).toBe(false);
    await expect.poll(() => responsesClosedEarly).toBe(1);
    // One worker thread: the next summary can only run once the cancelled one has let go of it.
    const next = await summarise();
    expect(next.summary.total).toBe(9);
  });

  it('does not start when it is cancelled before it began', async () => {
    const path = csvPath();
    const summary = summariseOriginErrors({
      source: bodyOf({ logs: FIXTURE }),
      csvPath: path,
      pool: reportPool(),
      signal: AbortSignal.abort(),
    });
    await expect(summary).rejects.toMatchObject({ kind: 'aborted' });
    expect(await exists(path)).toBe(false);
  });
});
