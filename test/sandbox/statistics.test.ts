/**
 * The sandbox's GET /statistics as the vendor's document describes it: the key, the query's
 * binding, hourly and daily points keyed without a zone, zones of different traffic, and what a
 * purge does to the cache for a few hours.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEEDED_IDS } from '../../src/sandbox/seed.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import type { PurgeRecord } from '../../src/sandbox/state.js';
import { HOUR_MS, trafficHour } from '../../src/sandbox/statistics.js';
import { NOW, startTestSandbox } from './harness.js';

let sandbox: Sandbox;
beforeAll(async () => {
  ({ sandbox } = await startTestSandbox());
});
afterAll(async () => {
  await sandbox.close();
});

interface Body {
  TotalRequestsServed: number;
  CacheHitRate: number;
  RequestsServedChart: Record<string, number> | null;
  Error5xxChart: Record<string, number> | null;
  OriginResponseTimeChart: Record<string, number> | null;
}

const statistics = (query: string, key = sandbox.apiKey) =>
  fetch(`${sandbox.apiUrl}/statistics?${query}`, { headers: { AccessKey: key } });

const iso = (ms: number) => new Date(ms).toISOString();

describe('GET /statistics', () => {
  it('answers 401 with an empty body for a wrong key', async () => {
    const response = await statistics('pullZone=308006', 'not-the-key');
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('');
  });

  it.each([
    ['dateFrom=yesterday', 'dateFrom'],
    ['hourly=yes', 'hourly'],
    ['pullZone=abc', 'pullZone'],
    [`dateFrom=${iso(NOW)}&dateTo=${iso(NOW - HOUR_MS)}`, 'dateFrom'],
  ])('refuses %s with the core API validation error on %s', async (query, field) => {
    const response = await statistics(query);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ ErrorKey: 'validation_error', Field: field });
  });

  it('serves hourly points of the exact range keyed without a zone, and only the charts asked for', async () => {
    const response = await statistics(
      `pullZone=308006&dateFrom=${iso(NOW - 6 * HOUR_MS)}&dateTo=${iso(NOW)}&hourly=true&exactRange=true&loadRequestsServed=true`,
    );
    const body = (await response.json()) as Body;
    expect(Object.keys(body.RequestsServedChart!)).toEqual(
      [8, 9, 10, 11, 12, 13].map((hour) => `2026-11-21T${String(hour).padStart(2, '0')}:00:00`),
    );
    expect(body.Error5xxChart).toBeNull();
    expect(body.OriginResponseTimeChart).toBeNull();
    expect(body.TotalRequestsServed).toBe(
      Object.values(body.RequestsServedChart!).reduce((a, b) => a + b, 0),
    );
  });

  it('serves daily points without hourly, and nothing after now', async () => {
    const response = await statistics(
      `pullZone=308006&dateFrom=${iso(NOW - 3 * 86_400_000)}&dateTo=${iso(NOW)}&loadRequestsServed=true`,
    );
    const body = (await response.json()) as Body;
    expect(Object.keys(body.RequestsServedChart!)).toEqual([
      '2026-11-18T00:00:00',
      '2026-11-19T00:00:00',
      '2026-11-20T00:00:00',
      '2026-11-21T00:00:00',
    ]);
  });

  it('gives the busy zone more traffic than the quiet one', async () => {
    const total = async (zone: number) =>
      (
        (await (
          await statistics(`pullZone=${zone}&dateFrom=${iso(NOW - 86_400_000)}&dateTo=${iso(NOW)}`)
        ).json()) as Body
      ).TotalRequestsServed;
    const [firehose, www, quiet] = await Promise.all(
      [SEEDED_IDS.bigPullZone, SEEDED_IDS.pullZone, SEEDED_IDS.quietPullZone].map(total),
    );
    expect(firehose).toBeGreaterThan(www!);
    expect(www).toBeGreaterThan(quiet! * 100);
  });
});

describe("a purge in the sandbox's statistics", () => {
  const zone = SEEDED_IDS.pullZone;
  const at = NOW - 4 * HOUR_MS;
  const hour = (start: number, purges: PurgeRecord[]) => trafficHour(1, zone, start, NOW, purges)!;

  it('dips the cache hit rate and raises origin requests and response times for a few hours', () => {
    const purges: PurgeRecord[] = [{ at, pullZoneId: zone }];
    const after = hour(at, purges);
    const untouched = hour(at, []);
    expect(after.cacheHitRate).toBeLessThan(untouched.cacheHitRate - 30);
    expect(after.originRequests).toBeGreaterThan(untouched.originRequests * 3);
    expect(after.originMs).toBeGreaterThan(untouched.originMs);
    // The hour before is as it was, and the effect fades.
    expect(hour(at - HOUR_MS, purges)).toEqual(hour(at - HOUR_MS, []));
    expect(hour(at + 3 * HOUR_MS, purges).cacheHitRate).toBeGreaterThan(after.cacheHitRate);
  });

  it('dips less for one URL than for the whole zone, and not at all for another zone', () => {
    const whole = hour(at, [{ at, pullZoneId: zone }]);
    const url = hour(at, [{ at, pullZoneId: zone, url: 'https://www.example.com/app.js' }]);
    const elsewhere = hour(at, [{ at, pullZoneId: SEEDED_IDS.mediaPullZone }]);
    expect(url.cacheHitRate).toBeGreaterThan(whole.cacheHitRate);
    expect(url.cacheHitRate).toBeLessThan(hour(at, []).cacheHitRate);
    expect(elsewhere).toEqual(hour(at, []));
  });
});
