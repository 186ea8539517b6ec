import { describe, expect, it } from 'vitest';
import {
  bucketGrid,
  bucketWidthFor,
  COMPARISON_EXTRA_DAYS,
  chartBuckets,
  DAY_MS,
  HOUR_MS,
  MINUTE_MS,
  percentChange,
  planOriginFetch,
  utcDaysTouched,
} from '../../../src/reports/origin/window.js';

const at = (iso: string) => Date.parse(iso);
const day = (iso: string) => at(`${iso}T00:00:00Z`);

describe('the buckets of an origin-error window', () => {
  it.each([
    ['15 minutes', 15 * MINUTE_MS, MINUTE_MS],
    ['1 hour', HOUR_MS, MINUTE_MS],
    ['61 minutes', 61 * MINUTE_MS, 5 * MINUTE_MS],
    ['2 hours', 2 * HOUR_MS, 5 * MINUTE_MS],
    ['6 hours', 6 * HOUR_MS, 5 * MINUTE_MS],
    ['7 hours', 7 * HOUR_MS, 15 * MINUTE_MS],
    ['a day', DAY_MS, 15 * MINUTE_MS],
    ['25 hours', 25 * HOUR_MS, HOUR_MS],
    ['72 hours', 72 * HOUR_MS, HOUR_MS],
  ])('are %s wide for a window of that length', (_, length, width) => {
    expect(bucketWidthFor(length)).toBe(width);
  });

  it('sit on the UTC grid of their width, the first one holding the window’s start', () => {
    const window = { startMs: at('2026-11-21T16:10:27Z'), endMs: at('2026-11-21T18:10:27Z') };
    expect(bucketGrid(window)).toEqual({
      startMs: at('2026-11-21T16:10:00Z'),
      widthMs: 5 * MINUTE_MS,
      count: 25,
    });
  });

  it('are drawn up to now and no further, the running one and a cut first one marked partial', () => {
    const window = { startMs: at('2026-11-21T16:10:27Z'), endMs: at('2026-11-21T18:10:27Z') };
    const grid = bucketGrid(window);
    const buckets = chartBuckets(grid, new Array(grid.count).fill(1), window, window.endMs);
    expect(buckets).toHaveLength(25);
    expect(buckets[0]).toEqual({ start: new Date('2026-11-21T16:10:00Z'), count: 1, partial: true });
    expect(buckets[1]).toEqual({ start: new Date('2026-11-21T16:15:00Z'), count: 1 });
    expect(buckets.at(-1)).toEqual({ start: new Date('2026-11-21T18:10:00Z'), count: 1, partial: true });
  });

  it('of a day still running stop at now instead of showing the hours to come as zeros', () => {
    const window = { startMs: day('2026-11-21'), endMs: day('2026-11-22') };
    const grid = bucketGrid(window);
    expect(grid).toMatchObject({ widthMs: 15 * MINUTE_MS, count: 96 });
    const counts = new Array(96).fill(0);
    counts[56] = 3;
    const buckets = chartBuckets(grid, counts, window, at('2026-11-21T14:05:00Z'));
    expect(buckets).toHaveLength(57);
    expect(buckets.at(-1)).toEqual({ start: new Date('2026-11-21T14:00:00Z'), count: 3, partial: true });
    expect(buckets.filter((bucket) => bucket.partial)).toHaveLength(1);
    // A day that is over has every bucket, none partial.
    const past = chartBuckets(grid, counts, window, at('2026-11-23T09:00:00Z'));
    expect(past).toHaveLength(96);
    expect(past.some((bucket) => bucket.partial)).toBe(false);
  });

  it('still show entries stamped after now (a platform clock ahead of ours), never empty ones', () => {
    const window = { startMs: day('2026-11-21'), endMs: day('2026-11-22') };
    const grid = bucketGrid(window);
    const counts = new Array(96).fill(0);
    counts[60] = 2;
    const buckets = chartBuckets(grid, counts, window, at('2026-11-21T14:05:00Z'));
    expect(buckets).toHaveLength(58);
    expect(buckets.at(-1)).toEqual({ start: new Date('2026-11-21T15:00:00Z'), count: 2 });
  });
});

describe('the UTC days a window touches', () => {
  it('are one day for a window inside it, both for one across midnight', () => {
    expect(utcDaysTouched(at('2026-11-21T16:10:00Z'), at('2026-11-21T18:10:00Z'))).toEqual([
      day('2026-11-21'),
    ]);
    expect(utcDaysTouched(at('2026-11-20T22:20:00Z'), at('2026-11-21T00:20:00Z'))).toEqual([
      day('2026-11-20'),
      day('2026-11-21'),
    ]);
  });

  it('leave out the day a window ends at midnight of', () => {
    expect(utcDaysTouched(day('2026-11-20'), day('2026-11-21'))).toEqual([day('2026-11-20')]);
  });

  it('are four at most for a 72-hour window', () => {
    expect(utcDaysTouched(at('2026-11-18T00:20:00Z'), at('2026-11-21T00:20:00Z'))).toHaveLength(4);
  });
});

describe('fetching a window with its comparisons', () => {
  it('at 00:20 asks for both dates of the last 2 hours, and one more for the comparisons', () => {
    const now = at('2026-11-21T00:20:00Z');
    const plan = planOriginFetch({ startMs: now - 2 * HOUR_MS, endMs: now }, now);
    expect(plan.windowDays).toEqual([day('2026-11-20'), day('2026-11-21')]);
    expect(plan.comparisons).toEqual([
      { kind: 'previous', startMs: at('2026-11-20T20:20:00Z'), endMs: at('2026-11-20T22:20:00Z') },
      { kind: 'dayBefore', startMs: at('2026-11-19T22:20:00Z'), endMs: at('2026-11-20T00:20:00Z') },
    ]);
    expect(plan.days).toEqual([day('2026-11-20'), day('2026-11-21'), day('2026-11-19')]);
    expect(plan.skipped).toEqual([]);
  });

  it('compares the part of today that has happened with the same hours the day before', () => {
    const now = at('2026-11-21T14:00:00Z');
    const plan = planOriginFetch({ startMs: day('2026-11-21'), endMs: day('2026-11-22') }, now);
    expect(plan.counted).toEqual({ startMs: day('2026-11-21'), endMs: now });
    expect(plan.comparisons).toEqual([
      { kind: 'previous', startMs: at('2026-11-20T10:00:00Z'), endMs: day('2026-11-21') },
      { kind: 'dayBefore', startMs: day('2026-11-20'), endMs: at('2026-11-20T14:00:00Z') },
    ]);
    expect(plan.days).toEqual([day('2026-11-21'), day('2026-11-20')]);
  });

  it('compares a whole day once with the day before it', () => {
    const plan = planOriginFetch(
      { startMs: day('2026-11-20'), endMs: day('2026-11-21') },
      at('2026-11-21T09:00:00Z'),
    );
    expect(plan.comparisons).toEqual([
      { kind: 'previous', startMs: day('2026-11-19'), endMs: day('2026-11-20') },
    ]);
    expect(plan.days).toEqual([day('2026-11-20'), day('2026-11-19')]);
  });

  it(`never fetches more than ${COMPARISON_EXTRA_DAYS} extra days: a 72-hour window is compared with the day before only`, () => {
    const now = at('2026-11-21T00:20:00Z');
    const plan = planOriginFetch({ startMs: now - 72 * HOUR_MS, endMs: now }, now);
    expect(plan.windowDays).toHaveLength(4);
    expect(plan.comparisons.map((c) => c.kind)).toEqual(['dayBefore']);
    expect(plan.skipped).toEqual([{ kind: 'previous', extraDays: 3 }]);
    expect(plan.days.length - plan.windowDays.length).toBeLessThanOrEqual(COMPARISON_EXTRA_DAYS);
  });

  it.each([1, 6, 24, 36, 48, 60, 72])('stays within the bound for a %i-hour window', (hours) => {
    for (const minute of [0, 20, 23 * 60 + 59]) {
      const now = day('2026-11-21') + minute * MINUTE_MS;
      const plan = planOriginFetch({ startMs: now - hours * HOUR_MS, endMs: now }, now);
      expect(plan.days.length - plan.windowDays.length).toBeLessThanOrEqual(COMPARISON_EXTRA_DAYS);
      expect(plan.comparisons.some((c) => c.kind === 'dayBefore') || hours === 24).toBe(true);
      expect(new Set(plan.days).size).toBe(plan.days.length);
    }
  });

  it('compares nothing when nothing of the window has happened yet', () => {
    const now = day('2026-11-21');
    const plan = planOriginFetch({ startMs: now, endMs: now + DAY_MS }, now);
    expect(plan.comparisons).toEqual([]);
    expect(plan.days).toEqual([day('2026-11-21')]);
  });
});

describe('the change between two counts', () => {
  it('is a whole percentage, and undefined when there was nothing before', () => {
    expect(percentChange(180, 120)).toBe(50);
    expect(percentChange(60, 120)).toBe(-50);
    expect(percentChange(1, 3)).toBe(-67);
    expect(percentChange(5, 0)).toBeUndefined();
  });
});
