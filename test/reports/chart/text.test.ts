import { describe, expect, it } from 'vitest';
import { bucketBars, bucketWidthWords, type ChartBucket } from '../../../src/reports/chart/text.js';

const HOUR = 3_600_000;
const DAY = Date.UTC(2026, 10, 21);
const hourly = (counts: number[], from = DAY): ChartBucket[] =>
  counts.map((count, i) => ({ start: new Date(from + i * HOUR), count }));

describe('the errors-per-bucket chart', () => {
  it('draws one line per bucket, the busiest full width, with grouped counts', () => {
    const counts = new Array<number>(24).fill(0);
    counts[14] = 1234;
    counts[15] = 617;
    const lines = bucketBars(hourly(counts), HOUR, 10);
    expect(lines).toHaveLength(24);
    expect(lines[14]).toBe('14:00 ██████████ 1,234');
    expect(lines[15]).toBe('15:00 █████      617');
    expect(lines[0]).toBe(`00:00 ${' '.repeat(10)} 0`);
  });

  it('uses eighth blocks for the fraction of a cell', () => {
    // 13/16 of 2 cells = 1 5/8 cells.
    expect(bucketBars(hourly([16, 13]), HOUR, 2)[1]).toBe('01:00 █▋ 13');
    expect(bucketBars(hourly([8, 1]), HOUR, 1)[1]).toBe('01:00 ▏ 1');
  });

  it('keeps a single error visible next to a very busy bucket', () => {
    const [, quiet] = bucketBars(hourly([1_000_000, 1]), HOUR, 30);
    expect(quiet).toBe(`01:00 ▏${' '.repeat(29)} 1`);
  });

  it('draws no bars when nothing happened, and ignores values that are not counts', () => {
    expect(bucketBars(hourly([0, Number.NaN, -3]), HOUR, 4)).toEqual([
      '00:00      0',
      '01:00      0',
      '02:00      0',
    ]);
  });

  it('labels buckets of any width by their UTC start, and marks a partial one', () => {
    const fiveMinutes = 5 * 60_000;
    const start = DAY + 16 * HOUR + 10 * 60_000;
    const buckets: ChartBucket[] = [
      { start: new Date(start), count: 4 },
      { start: new Date(start + fiveMinutes), count: 2, partial: true },
    ];
    expect(bucketBars(buckets, fiveMinutes, 4)).toEqual(['16:10 ████ 4', '16:15 ██   2 (partial)']);
  });

  it('puts the date in front of each time when the buckets cross midnight', () => {
    const lines = bucketBars(hourly([1, 2, 3], DAY - 2 * HOUR), HOUR, 3);
    expect(lines).toEqual(['11-20 22:00 █   1', '11-20 23:00 ██  2', '11-21 00:00 ███ 3']);
    // A last bucket that ends at midnight stays within its day.
    expect(bucketBars(hourly([1], DAY - HOUR), HOUR, 1)).toEqual(['23:00 █ 1']);
  });

  it.each([
    [60_000, 'minute'],
    [5 * 60_000, '5 min'],
    [15 * 60_000, '15 min'],
    [HOUR, 'hour'],
  ])('names a width of %i ms "%s"', (width, words) => {
    expect(bucketWidthWords(width)).toBe(words);
  });
});
