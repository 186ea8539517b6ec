import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiErrorDataSchema } from '../../src/platform/schemas.js';
import { ORIGIN_ERROR_CODES, OriginLogDetailSchema } from '../../src/reports/origin/entry.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { type Clock, NOW, startTestSandbox, TODAY_PATH } from './harness.js';

/** The sandbox's seeded entries carry every field of the vendor's LogEntry, though the vendor requires none. */
const SeededEntrySchema = z.object({
  logId: z.string(),
  timestamp: z.number(),
  log: z.string(),
  labels: z.object({ ErrorCode: z.string(), StatusCode: z.string(), ServerZone: z.string() }),
});
const LogDaySchema = z.object({ logs: z.array(SeededEntrySchema) });

let sandbox: Sandbox;
let clock: Clock;

beforeAll(async () => {
  ({ sandbox, clock } = await startTestSandbox());
});
afterAll(async () => {
  await sandbox.close();
});

const getDay = (pullZoneId: number | string, date: string, key = sandbox.apiKey) =>
  fetch(`${sandbox.loggingUrl}/${pullZoneId}/${date}`, { headers: { AccessKey: key } });

const logsOf = async (pullZoneId: number, date: string) => {
  const response = await getDay(pullZoneId, date);
  expect(response.status).toBe(200);
  return LogDaySchema.parse(await response.json()).logs;
};

const DAY = 86_400_000;
const pathDate = (ms: number) => {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}-${date.getUTCFullYear()}`;
};

describe('GET {logging_url}/{pullZoneId}/{MM-dd-yyyy}', () => {
  it("serves today's errors up to now, in time order, with the documented fields", async () => {
    const logs = await logsOf(sandbox.ids.pullZone, TODAY_PATH);
    expect(logs.length).toBeGreaterThan(50);
    const startOfDay = Math.floor(NOW / DAY) * DAY;
    for (const [index, entry] of logs.entries()) {
      expect(entry.timestamp).toBeGreaterThanOrEqual(startOfDay);
      expect(entry.timestamp).toBeLessThanOrEqual(NOW);
      if (index > 0) expect(entry.timestamp).toBeGreaterThanOrEqual(logs[index - 1]?.timestamp ?? 0);
      expect(entry.logId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(Object.keys(ORIGIN_ERROR_CODES)).toContain(entry.labels.ErrorCode);
      expect(['400', '416', '500', '502', '504', '508']).toContain(entry.labels.StatusCode);
      expect(entry.labels.ServerZone).toMatch(/^[A-Z]{2,3}$/);
    }
  });

  it('keeps labels in step with the JSON inside each log string, and includes some that are not JSON', async () => {
    const logs = await logsOf(sandbox.ids.pullZone, pathDate(NOW - DAY));
    let malformed = 0;
    for (const entry of logs) {
      let detail: unknown;
      try {
        detail = JSON.parse(entry.log);
      } catch {
        malformed++;
        expect(entry.labels.ErrorCode).toBeTruthy();
        continue;
      }
      const parsed = OriginLogDetailSchema.parse(detail);
      expect(parsed.ErrorCode).toBe(entry.labels.ErrorCode);
      expect(String(parsed.StatusCode)).toBe(entry.labels.StatusCode);
      expect(parsed.PullZoneId).toBe(sandbox.ids.pullZone);
    }
    expect(malformed).toBeGreaterThanOrEqual(2);
    expect(malformed).toBeLessThan(10);
  });

  it('has a URL that tries to ping the channel', async () => {
    const logs = await logsOf(sandbox.ids.pullZone, pathDate(NOW - 2 * DAY));
    expect(logs.some((entry) => entry.log.includes('<!channel>'))).toBe(true);
  });

  it('mixes several error codes, statuses and server zones', async () => {
    const logs = await logsOf(sandbox.ids.pullZone, pathDate(NOW - 3 * DAY));
    expect(new Set(logs.map((entry) => entry.labels.ErrorCode)).size).toBeGreaterThanOrEqual(6);
    expect(new Set(logs.map((entry) => entry.labels.StatusCode)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(logs.map((entry) => entry.labels.ServerZone)).size).toBeGreaterThanOrEqual(6);
  });

  it('gives the same entries for the same seed and date', async () => {
    const first = await (await getDay(sandbox.ids.mediaPullZone, pathDate(NOW - 4 * DAY))).text();
    const second = await (await getDay(sandbox.ids.mediaPullZone, pathDate(NOW - 4 * DAY))).text();
    expect(first).toBe(second);
    expect(first).not.toBe(await (await getDay(sandbox.ids.mediaPullZone, pathDate(NOW - 5 * DAY))).text());
  });

  it('has errors for the previous seven days and none before or after', async () => {
    expect((await logsOf(sandbox.ids.apiPullZone, pathDate(NOW - 7 * DAY))).length).toBeGreaterThan(0);
    expect(await logsOf(sandbox.ids.apiPullZone, pathDate(NOW - 8 * DAY))).toEqual([]);
    expect(await logsOf(sandbox.ids.apiPullZone, pathDate(NOW + DAY))).toEqual([]);
  });

  it('answers days older than the days-kept knob with an empty list, for every zone', async () => {
    sandbox.knobs.setLogDaysKept(1);
    sandbox.knobs.setLogDay(sandbox.ids.quietPullZone, 10);
    try {
      expect((await logsOf(sandbox.ids.apiPullZone, pathDate(NOW - DAY))).length).toBeGreaterThan(0);
      expect(await logsOf(sandbox.ids.apiPullZone, pathDate(NOW - 2 * DAY))).toEqual([]);
      expect(await logsOf(sandbox.ids.quietPullZone, pathDate(NOW - DAY))).toHaveLength(10);
      expect(await logsOf(sandbox.ids.quietPullZone, pathDate(NOW - 2 * DAY))).toEqual([]);
    } finally {
      sandbox.knobs.clear();
    }
    expect((await logsOf(sandbox.ids.apiPullZone, pathDate(NOW - 2 * DAY))).length).toBeGreaterThan(0);
  });

  it('serves an empty day for the quiet pull zone', async () => {
    const response = await getDay(sandbox.ids.quietPullZone, TODAY_PATH);
    expect(await response.json()).toEqual({ logs: [] });
  });

  it("serves nothing stamped after its clock's now, on a day sized by the knob too, and nothing on a day to come", async () => {
    // The busy zone's days are sized by the knob: 1,000,000 entries, here fewer to read quickly.
    sandbox.knobs.setLogDay(sandbox.ids.bigPullZone, 2_400);
    try {
      const startOfDay = Math.floor(NOW / DAY) * DAY;
      const upToNow = await logsOf(sandbox.ids.bigPullZone, TODAY_PATH);
      // 14:00 is 14/24 of the day: about 1,400 of the day's 2,400.
      expect(upToNow.length).toBeGreaterThan(1_350);
      expect(upToNow.length).toBeLessThan(1_450);
      expect(Math.max(...upToNow.map((entry) => entry.timestamp))).toBeLessThanOrEqual(NOW);
      expect(await logsOf(sandbox.ids.bigPullZone, pathDate(NOW + DAY))).toEqual([]);
      // As the clock moves on, the entries it has reached are served, and still none after it.
      clock.now = NOW + 2 * 3_600_000;
      const later = await logsOf(sandbox.ids.bigPullZone, TODAY_PATH);
      expect(later.slice(0, upToNow.length)).toEqual(upToNow);
      expect(later.length).toBeGreaterThan(upToNow.length + 150);
      expect(Math.max(...later.map((entry) => entry.timestamp))).toBeLessThanOrEqual(clock.now);
      expect(Math.min(...later.map((entry) => entry.timestamp))).toBeGreaterThanOrEqual(startOfDay);
      // A whole day that is over is served whole.
      expect(await logsOf(sandbox.ids.bigPullZone, pathDate(NOW - DAY))).toHaveLength(2_400);
    } finally {
      clock.now = NOW;
      sandbox.knobs.clear();
    }
  });

  it('serves a day of any size set by the knob', async () => {
    sandbox.knobs.setLogDay(sandbox.ids.quietPullZone, 1234);
    try {
      expect(await logsOf(sandbox.ids.quietPullZone, '01-02-2020')).toHaveLength(1234);
    } finally {
      sandbox.knobs.clear();
    }
    expect(await logsOf(sandbox.ids.quietPullZone, '01-02-2020')).toHaveLength(0);
  });

  it.each(['2026-11-21', '11-31-2026', '1-2-2026', 'today'])('refuses the date %s with 400', async (date) => {
    const response = await getDay(sandbox.ids.pullZone, date);
    expect(response.status).toBe(400);
    expect(ApiErrorDataSchema.parse(await response.json()).Field).toBe('dateTime');
  });

  it('answers 404 for an unknown pull zone', async () => {
    expect((await getDay(999, TODAY_PATH)).status).toBe(404);
    expect((await getDay('abc', TODAY_PATH)).status).toBe(404);
  });

  it('answers 401 with an empty body without a valid AccessKey', async () => {
    const response = await getDay(sandbox.ids.pullZone, TODAY_PATH, 'wrong');
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('');
  });
});
