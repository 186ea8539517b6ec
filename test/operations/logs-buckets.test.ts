import { describe, expect, it } from 'vitest';
import { hourBuckets } from '../../src/operations/logs.js';

const DAY = Date.UTC(2026, 10, 21);
const HOUR = 3_600_000;
const MINUTE = 60_000;

describe("the day's hourly counts as buckets", () => {
  const perHour = Array.from({ length: 24 }, (_, hour) => hour + 1);

  it('stop at the hour now is in, which is partial', () => {
    const buckets = hourBuckets(DAY, perHour, DAY + 14 * HOUR + 20 * MINUTE);
    expect(buckets).toHaveLength(15);
    expect(buckets.at(-1)).toEqual({ start: new Date(DAY + 14 * HOUR), count: 15, partial: true });
    expect(buckets.filter((bucket) => bucket.partial)).toHaveLength(1);
  });

  it('are all 24 and complete for a day that is over', () => {
    const buckets = hourBuckets(DAY, perHour, DAY + 30 * HOUR);
    expect(buckets).toHaveLength(24);
    expect(buckets.some((bucket) => bucket.partial)).toBe(false);
    expect(buckets.map((bucket) => bucket.count)).toEqual(perHour);
  });

  it('end with the hour that just closed when now is on the hour, and start partial at midnight', () => {
    const buckets = hourBuckets(DAY, perHour, DAY + 3 * HOUR);
    expect(buckets.map((bucket) => bucket.partial ?? false)).toEqual([false, false, false]);
    expect(hourBuckets(DAY, perHour, DAY)).toEqual([{ start: new Date(DAY), count: 1, partial: true }]);
  });
});
