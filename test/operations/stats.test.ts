/**
 * `/edge stats` through the engine against the sandbox over HTTP: the headline's numbers against
 * the previous window, the window's limits, what the platform may send (no points, null maps,
 * chart keys with and without a zone), the CSV, the charts' alt text, hourly against daily
 * queries, the next-step buttons between stats and logs, and the pull zone's secrets kept out
 * of everything.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fitReply } from '../../src/reply/fit.js';
import type { Reply, ReplyButton } from '../../src/reply/model.js';
import {
  answered,
  answers,
  buttonsOf,
  type EngineTestbed,
  fieldsOf,
  filesIn,
  fileText,
  headlineIn,
  type Recorded,
  readableOf,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';

const AT = '2026-11-21T14:20:00.000Z';
const HOUR = 3_600_000;

let bed: EngineTestbed;
let channels = 0;
beforeAll(async () => {
  bed = await startEngineTestbed();
  bed.clock.set(AT);
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => {
  bed.sandbox.faults.clear();
});

/** Runs in a channel of its own, so that no answer is shared with an earlier one. */
const run = (text: string) => bed.run(text, { channelId: `C0STATS${++channels}` });

const statisticsQueries = () => bed.sandbox.requests.byRoute('statistics').map((request) => request.query);

/** The window's numbers as the platform serves them, read by the bot's own client. */
const platformStats = (fromMs: number, toMs: number) =>
  bed.runtime.services.platform.getStatistics({ pullZoneId: 308006, fromMs, toMs });

function threadOf(headline: Reply): Reply {
  expect(headline.thread).toHaveLength(1);
  return headline.thread![0]!;
}

const buttonNamed = (reply: Reply, text: string): ReplyButton => {
  const button = buttonsOf(reply).find((b) => b.text === text);
  if (!button) throw new Error(`no "${text}" button: ${JSON.stringify(buttonsOf(reply))}`);
  return button;
};

/** A StatisticsModel body of two hours, served instead of the sandbox's own. */
const twoHours = (keys: [string, string], extra: Record<string, unknown> = {}) => ({
  TotalRequestsServed: 3000,
  TotalBandwidthUsed: 5_000_000,
  CacheHitRate: 80,
  AverageOriginResponseTime: 120,
  RequestsServedChart: { [keys[0]]: 1000, [keys[1]]: 2000 },
  CacheHitRateChart: { [keys[0]]: 90, [keys[1]]: 75 },
  Error4xxChart: { [keys[0]]: 10, [keys[1]]: 20 },
  Error5xxChart: { [keys[0]]: 0, [keys[1]]: 82 },
  OriginResponseTimeChart: null,
  BandwidthUsedChart: null,
  ...extra,
});

describe('/edge stats', () => {
  it('posts a headline with each number against the previous window of the same length, and the worst point', async () => {
    const now = Date.parse(AT);
    const current = await platformStats(now - 6 * HOUR, now);
    const previous = await platformStats(now - 12 * HOUR, now - 6 * HOUR);
    const before = bed.sandbox.requests.count('statistics');
    const headline = headlineIn(await run('stats 308006'));

    // Two statistics calls, for the last 6 hours and the 6 before them.
    const asked = statisticsQueries().slice(before);
    expect(asked.map((query) => [query.dateFrom, query.dateTo]).sort()).toEqual(
      [
        ['2026-11-21T02:20:00.000Z', '2026-11-21T08:20:00.000Z'],
        ['2026-11-21T08:20:00.000Z', '2026-11-21T14:20:00.000Z'],
      ].sort(),
    );
    const fields = fieldsOf(headline);
    const thousands = (n: number) => n.toLocaleString('en-US');
    expect(fields.get('Requests')).toBe(
      `${thousands(current.totals.requests!)} · ↑ ${Math.round(((current.totals.requests! - previous.totals.requests!) / previous.totals.requests!) * 100)}% (was ${thousands(previous.totals.requests!)})`,
    );
    expect(fields.get('Cache hit rate')).toContain(`${current.totals.cacheHitRate!.toFixed(1)}%`);
    expect(fields.get('Origin response (median)')).toContain(`${current.totals.originResponseMs} ms`);
    for (const label of ['Bandwidth', '4xx share', '5xx share'])
      expect(fields.get(label)).toMatch(/ · [↑↓→] .*\(was /);
    // The worst point is the hour with the highest 5xx share.
    const shares = current.points.map((point) => ({
      at: point.atMs,
      share: point.errors5xx! / point.requests!,
    }));
    const worst = shares.reduce((a, b) => (b.share > a.share ? b : a));
    expect(fields.get('Worst point')).toBe(
      `5xx peaked at ${(worst.share * 100).toFixed(2)}% at ${new Date(worst.at).toISOString().slice(11, 16)} UTC`,
    );
    expect(wordsOf(headline)).toContain('www-example');
    expect(wordsOf(headline)).toContain('Against the previous 6h');
  });

  it('refuses an unknown pull zone as other commands do, before reading any statistics', async () => {
    const before = bed.sandbox.requests.count('statistics');
    const said = answered(await run('stats 123456'));
    expect(said).toContain('No pull zone 123456 was found');
    expect(said).toContain('/edge pullzones');
    expect(bed.sandbox.requests.count('statistics')).toBe(before);
  });

  it.each([
    ['stats 308006 --last 91d', '--last covers at most 90d for /edge stats'],
    ['stats 308006 --from -100d --to -1d', 'a window covers at most 90 days for /edge stats'],
    ['stats 308006 today', '/edge stats takes no day ("today"): use --last 24h'],
    ['stats yesterday', '/edge stats takes no day ("yesterday")'],
    ['stats 308006 --last 2h --from -3h', '--last and --from/--to both set the window'],
    ['stats 308006 --from 2099-01-01T00:00Z', '--from is in the future'],
    ['stats 308006 --last soon', '--last: "soon" is not a duration'],
    ['stats abc', 'the pull zone id must be a number'],
    ['stats 308006 --last 30m', '--last covers at least 1h for /edge stats'],
    ['stats 308006 --from 2026-11-21T12:00Z --to 2026-11-21T12:30Z', 'a window covers at least 1 hour'],
  ])('answers %s with what to type instead, and calls nothing', async (command, error) => {
    const before = bed.sandbox.requests.count();
    const said = answers(await run(command))
      .map(readableOf)
      .join('\n');
    expect(said).toContain(error);
    expect(said).toContain('/edge stats [PULLZONE_ID] [--last 6h | --from T --to T]');
    expect(bed.sandbox.requests.count()).toBe(before);
  });

  it('says privately when the platform returned no points, and posts no file', async () => {
    bed.sandbox.faults.set('statistics', {
      status: 200,
      body: { TotalRequestsServed: 0, RequestsServedChart: null, CacheHitRateChart: {}, Error5xxChart: null },
    });
    const records = await run('stats 308006 --last 2h');
    const [reply] = answers(records);
    expect(reply?.visibility).toBe('ephemeral');
    expect(answered(records)).toContain('The platform returned no statistics points for pull zone 308006');
    expect(filesIn(records)).toEqual([]);
  });

  it('reads chart keys with and without a zone as UTC, and null maps as missing series', async () => {
    // 12:00 without a zone is UTC; 14:00+01:00 is 13:00 UTC.
    bed.sandbox.faults.set('statistics', {
      status: 200,
      body: twoHours(['2026-11-21T12:00:00', '2026-11-21T14:00:00+01:00']),
    });
    const records = await run('stats 308006 --from 2026-11-21T12:00Z --to 2026-11-21T14:00Z');
    const headline = headlineIn(records);
    expect(fieldsOf(headline).get('Worst point')).toBe('5xx peaked at 4.1% at 13:00 UTC');
    // Its points are not the previous window's (10:00–12:00): the share stands without a comparison.
    expect(fieldsOf(headline).get('5xx share')).toBe('2.7%');
    const [file] = filesIn(records);
    const rows = parseCsv(fileText(file!), { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => row.timestamp)).toEqual([
      '2026-11-21T12:00:00.000Z',
      '2026-11-21T13:00:00.000Z',
    ]);
    // Null and missing maps leave their columns empty.
    expect(
      rows.map((row) => [row.origin_response_time_ms, row.bandwidth_bytes, row.origin_requests]),
    ).toEqual([
      ['', '', ''],
      ['', '', ''],
    ]);
    expect(rows[1]).toMatchObject({ requests: '2000', errors_5xx: '82', share_5xx_percent: '4.1' });
  });

  it('leaves out the points dated outside the window, and says how many', async () => {
    // The worst 5xx share is on a point a year out of the window: it is not this window's.
    bed.sandbox.faults.set('statistics', {
      status: 200,
      body: twoHours(['2026-11-21T12:00:00Z', '2025-11-21T13:00:00Z'], {
        RequestsServedChart: {
          '2026-11-21T12:00:00Z': 1000,
          '2025-11-21T13:00:00Z': 2000,
          '2099-01-01T00:00:00Z': 5,
        },
      }),
    });
    const records = await run('stats 308006 --from 2026-11-21T12:00Z --to 2026-11-21T14:00Z');
    const headline = headlineIn(records);
    expect(fieldsOf(headline).get('Worst point')).not.toContain('13:00');
    const [file] = filesIn(records);
    const rows = parseCsv(fileText(file!), { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => row.timestamp)).toEqual(['2026-11-21T12:00:00.000Z']);
    expect(readableOf(threadOf(headline))).toContain('2 points dated outside the window were left out');
  });

  it('attaches stats-ID-FROM-TO.csv with every series, one row per point, rates in percent', async () => {
    const now = Date.parse(AT);
    const expected = await platformStats(now - 6 * HOUR, now);
    const records = await run('stats 308006 --last 6h');
    const files = filesIn(records);
    expect(files.map((file) => file.filename)).toEqual(['stats-308006-20261121T0820Z-20261121T1420Z.csv']);
    const text = fileText(files[0]!);
    expect(text.split('\r\n')[0]).toBe(
      'timestamp,requests,origin_requests,bandwidth_bytes,cache_hit_rate_percent,errors_4xx,errors_5xx,share_4xx_percent,share_5xx_percent,origin_response_time_ms',
    );
    const rows = parseCsv(text, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(expected.points.length);
    expect(
      rows.map((row) => [
        row.timestamp,
        Number(row.requests),
        Number(row.cache_hit_rate_percent),
        Number(row.errors_5xx),
      ]),
    ).toEqual(
      expected.points.map((point) => [
        new Date(point.atMs).toISOString(),
        point.requests,
        point.cacheHitRate,
        point.errors5xx,
      ]),
    );
    expect(files[0]!.comment).toContain('percent (0–100)');
  });

  it('shows every point in the thread as a table row: its hour as text, each number in a number column', async () => {
    const now = Date.parse(AT);
    const expected = await platformStats(now - 6 * HOUR, now);
    const thread = threadOf(headlineIn(await run('stats 308006 --last 6h')));
    const tables = thread.blocks.flatMap((block) => (block.type === 'table' ? [block.table] : []));
    expect(tables).toHaveLength(1);
    const table = tables[0]!;
    expect(table.columns).toEqual([
      { header: 'Hour (UTC)', kind: 'text' },
      { header: 'Requests', kind: 'number' },
      { header: 'Bandwidth (MB)', kind: 'number' },
      { header: 'Cache hit rate %', kind: 'number' },
      { header: '4xx share %', kind: 'number' },
      { header: '5xx share %', kind: 'number' },
      { header: 'Origin response ms', kind: 'number' },
    ]);
    expect(table.rows).toHaveLength(expected.points.length);
    // 08:20 to 14:20: the first hour is cut by the window's start, the last one still runs.
    expect(table.rows.map((row) => row[0])).toEqual([
      '08:00 (partial)',
      '09:00',
      '10:00',
      '11:00',
      '12:00',
      '13:00',
      '14:00 (partial)',
    ]);
    const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
    expect(table.rows.map((row) => row.slice(1))).toEqual(
      expected.points.map((point) => [
        point.requests,
        round(point.bandwidthBytes! / 1_000_000, 1),
        round(point.cacheHitRate!, 1),
        round((point.errors4xx! / point.requests!) * 100, 2),
        round((point.errors5xx! / point.requests!) * 100, 2),
        round(point.originResponseMs!, 0),
      ]),
    );
    // The text of a chart not drawn is not repeated: the table has its numbers.
    expect(thread.blocks.filter((block) => block.type === 'code')).toEqual([]);
  });

  it('shows the first 99 points of a longer window, says so, and has them all in the CSV beside it', async () => {
    const thread = threadOf(headlineIn(await run('stats 308006 --last 7d')));
    const table = thread.blocks.flatMap((block) => (block.type === 'table' ? [block.table] : []))[0]!;
    expect(table.rows.length).toBeGreaterThan(100);
    expect(table.rows[0]![0]).toMatch(/^\d\d-\d\d \d\d:00 \(partial\)$/);
    const csv = thread.files!.find((file) => file.filename.endsWith('.csv'))!;
    expect(table.file).toBe(csv.filename);
    expect(parseCsv(fileText(csv), { columns: true })).toHaveLength(table.rows.length);
    // As Slack shows it, the pictures uploaded beside it: a table block of 99 rows, and the note.
    const fitted = fitReply(thread, { uploadImage: () => true });
    const shown = fitted.blocks.filter((block) => block.type === 'table');
    expect(shown.map((block) => block.type === 'table' && block.rows.length)).toEqual([99]);
    expect(JSON.stringify(fitted.blocks)).toContain(
      `Showing the first 99 of ${table.rows.length} rows; every row is in the attached CSV.`,
    );
    // Nothing else was cut: the CSV is the only file, no overflow of the whole answer.
    expect(fitted.overflow).toBeUndefined();
    expect(fitted.files.map((file) => file.filename)).toEqual([csv.filename]);
  });

  it('draws three charts in the thread, each with alt text that says what it shows', async () => {
    const thread = threadOf(headlineIn(await run('stats 308006 --last 6h')));
    const images = thread.blocks.flatMap((block) => (block.type === 'image' ? [block.image] : []));
    expect(images.map((image) => image.filename)).toEqual([
      'stats-requests-308006-20261121T0820Z-20261121T1420Z.png',
      'stats-cache-308006-20261121T0820Z-20261121T1420Z.png',
      'stats-origin-time-308006-20261121T0820Z-20261121T1420Z.png',
    ]);
    const [requests, cache, origin] = images.map((image) => image.altText);
    expect(requests).toMatch(
      /^Chart: Requests and error shares · pull zone 308006\. 7 points, one per hour, from 08:00 to 15:00 UTC on 2026-11-21\./,
    );
    expect(requests).toMatch(/requests as bars: total [\d,]+, peak [\d,]+ at \d\d:00 UTC\./);
    expect(requests).toMatch(/5xx share as a line: peaked at [\d.]+% at \d\d:00 UTC/);
    expect(requests).toContain('2 bars cover only part of their hour.');
    expect(cache).toMatch(/cache hit rate as a line: peaked at [\d.]+% at \d\d:00 UTC, lowest [\d.]+%/);
    expect(origin).toMatch(/origin response time as a line: peaked at \d+ ms at \d\d:00 UTC/);
    for (const image of images) expect(image.png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('asks for hourly points with the exact range up to 7 days, daily points beyond', async () => {
    const before = bed.sandbox.requests.count('statistics');
    await run('stats 308006 --last 7d');
    await run('stats 308006 --last 8d');
    const [week, weekBefore, longer, longerBefore] = statisticsQueries().slice(before);
    for (const query of [week, weekBefore])
      expect(query).toMatchObject({
        pullZone: '308006',
        hourly: 'true',
        exactRange: 'true',
        loadErrors: 'true',
        loadOriginResponseTimes: 'true',
        loadRequestsServed: 'true',
        loadBandwidthUsed: 'true',
      });
    for (const query of [longer, longerBefore]) {
      expect(query).toMatchObject({ pullZone: '308006', loadErrors: 'true', loadRequestsServed: 'true' });
      expect(query).not.toHaveProperty('hourly');
      expect(query).not.toHaveProperty('exactRange');
    }
  });

  it('points from the stats headline to the origin errors of the same window, and back', async () => {
    const channelId = `C0STATS${++channels}`;
    const stats = headlineIn(await bed.run('stats 308006 --last 2h', { channelId }));
    const toLogs = buttonNamed(stats, 'Origin errors for this window');
    expect(toLogs.value).toBe('logs 308006 --from 2026-11-21T12:20:00.000Z --to 2026-11-21T14:20:00.000Z');

    const logs = headlineIn(await bed.click(toLogs, { channelId }));
    expect(wordsOf(logs)).toContain('origin errors');
    const toStats = buttonNamed(logs, 'Edge numbers for this window');
    // From the start of the hour: the platform counts by the hour, so the same points are read.
    expect(toStats.value).toBe('stats 308006 --from 2026-11-21T12:00:00.000Z --to 2026-11-21T14:20:00.000Z');

    const again = headlineIn(await bed.click(toStats, { channelId }));
    // The same requests; the window before is 20 minutes longer, so the comparison differs.
    const requests = (headline: typeof stats) => fieldsOf(headline).get('Requests')?.split(' · ')[0];
    expect(requests(again)).toBe(requests(stats));
  });

  it('offers the edge numbers of at least the hour before from a shorter origin-error window', async () => {
    const channelId = `C0STATS${++channels}`;
    const logs = headlineIn(await bed.run('logs 308006 --last 15m', { channelId }));
    const toStats = buttonNamed(logs, 'Edge numbers for this window');
    expect(toStats.value).toBe('stats 308006 --from 2026-11-21T13:20:00.000Z --to 2026-11-21T14:20:00.000Z');
    expect(fieldsOf(headlineIn(await bed.click(toStats, { channelId }))).get('Requests')).toBeDefined();
  });

  it('offers the edge numbers in the Investigate form, run as /edge stats for its window', async () => {
    const outcome = await bed.submit(
      { callbackId: 'investigate:run', privateMetadata: '' },
      {
        what: 'stats',
        zone: 'pullzone:308006',
        from: String(Date.parse('2026-11-21T10:00:00Z')),
        to: String(Date.parse('2026-11-21T12:00:00Z')),
      },
      { channelId: `C0STATS${++channels}` },
    );
    if ('errors' in outcome) throw new Error(JSON.stringify(outcome.errors));
    const headline = headlineIn(outcome.records);
    expect(wordsOf(headline)).toContain('2026-11-21 10:00–12:00 UTC');
    expect(filesIn(outcome.records).map((file) => file.filename)).toEqual([
      'stats-308006-20261121T1000Z-20261121T1200Z.csv',
    ]);
  });

  it("keeps the pull zone's secrets out of every message, file, log line and audit row", async () => {
    const key = bed.sandbox.pullZoneSecurityKey(308006)!;
    const secrets = [key, `aws-key-${key}`, `aws-secret-${key}`, `log-token-${key}`];
    const records: Recorded[] = [...(await run('stats 308006')), ...(await run('stats 308006 --last 8d'))];
    const everything = [
      JSON.stringify(records, (_, value) => (Buffer.isBuffer(value) ? value.toString('latin1') : value)),
      ...filesIn(records).map(fileText),
      ...bed.logs,
      JSON.stringify(await bed.runtime.services.audit.list({ limit: 200 })),
    ].join('\n');
    expect(headlineIn(records.slice(0, records.length / 2)).visibility).toBe('channel');
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).not.toContain(key.slice(0, 8));
  });
});
