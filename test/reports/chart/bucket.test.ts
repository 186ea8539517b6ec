import { describe, expect, it } from 'vitest';
import {
  type BucketChart,
  BucketChartSchema,
  CHART_LAYOUT,
  chartAltText,
  chartSvg,
} from '../../../src/reports/chart/bucket.js';

const DAY = Date.UTC(2026, 10, 21);
const HOUR = 3_600_000;
const MINUTE = 60_000;

const chart = (counts: number[], bucketMs: number, from: number, partialLast = false): BucketChart => ({
  title: 'Origin errors · pull zone 308006',
  unit: 'errors',
  bucketMs,
  buckets: counts.map((count, i) => ({
    start: new Date(from + i * bucketMs),
    count,
    ...(partialLast && i === counts.length - 1 ? { partial: true } : {}),
  })),
});

/** The words drawn below the bars, left to right. */
const timeLabels = (svg: string) =>
  [...svg.matchAll(/<text x="[\d.]+" y="(\d+)"[^>]*text-anchor="middle"[^>]*>([^<]*)<\/text>/g)]
    .filter((m) => Number(m[1]) > 280)
    .map((m) => m[2]);

describe('a bucket chart', () => {
  it('says in its alt text the window, the bucket width, the peak and its count, the total and the partial bucket', () => {
    const text = chartAltText(chart([3, 40, 1_234, 7, 2], 5 * MINUTE, DAY + 16 * HOUR + 10 * MINUTE, true));
    expect(text).toBe(
      'Bar chart: Origin errors · pull zone 308006. 5 bars, one per 5 min, from 16:10 to 16:35 UTC on 2026-11-21. ' +
        'Peak 16:20–16:25 UTC with 1,234 errors; total 1,286 errors. ' +
        'The bar from 16:30 UTC is partial: it counts only part of its 5 min.',
    );
  });

  it('names every partial bar in its alt text, a first one cut by the window as well as the running one', () => {
    const buckets = chart([3, 40, 2], 5 * MINUTE, DAY + 16 * HOUR + 10 * MINUTE, true).buckets.map(
      (bucket, i) => (i === 0 ? { ...bucket, partial: true } : bucket),
    );
    const text = chartAltText({ ...chart([], 5 * MINUTE, DAY), buckets });
    expect(text).toContain(
      'The bars from 16:10 and 16:20 UTC are partial: each counts only part of its 5 min.',
    );
    expect(text).not.toContain('still under way');
  });

  it('names both dates in its alt text when the window crosses midnight', () => {
    const text = chartAltText(chart([1, 9, 2], HOUR, DAY - HOUR));
    expect(text).toContain('from 2026-11-20 23:00 to 2026-11-21 02:00 UTC');
    expect(text).toContain('Peak 2026-11-21 00:00–01:00 UTC with 9 errors');
    expect(text).not.toContain('partial');
  });

  it('says there was nothing rather than naming a peak when every bucket is empty', () => {
    expect(chartAltText(chart([0, 0], HOUR, DAY))).toContain('No errors in that time.');
  });

  it('labels round UTC times, at most twelve of them, for every window the logs can ask for', () => {
    const at1610 = DAY + 16 * HOUR + 10 * MINUTE;
    const cases: [number, number, number, string[]][] = [
      [60, MINUTE, at1610, ['16:10', '16:20', '16:30', '16:40', '16:50', '17:00', '17:10']],
      [72, 5 * MINUTE, at1610, ['16:30', '17:00', '17:30', '18:00', '22:00']],
      [96, 15 * MINUTE, at1610, ['18:00', '20:00', '22:00', 'Nov 22', '16:00']],
      [72, HOUR, DAY + 16 * HOUR, ['18:00', 'Nov 22', '06:00', '12:00']],
      // Buckets that do not start on a round time: the round times fall between their edges.
      [72, HOUR, at1610, ['18:00', 'Nov 22', '06:00', '12:00']],
      [4, 7 * MINUTE, at1610, ['16:10', '16:20', '16:30']],
    ];
    for (const [buckets, bucketMs, from, some] of cases) {
      const labels = timeLabels(chartSvg(chart(new Array(buckets).fill(1), bucketMs, from)));
      expect(labels.length, `${buckets} × ${bucketMs} ms`).toBeGreaterThan(2);
      expect(labels.length).toBeLessThanOrEqual(13);
      for (const label of labels) expect(label).toMatch(/^(\d\d:[0-5]\d|[A-Z][a-z]{2} \d{1,2})$/);
      for (const label of some) expect(labels, `${buckets} × ${bucketMs} ms`).toContain(label);
    }
  });

  it('ends a whole UTC day at 24:00, not at a second 00:00', () => {
    const labels = timeLabels(chartSvg(chart(new Array(24).fill(1), HOUR, DAY)));
    expect(labels[0]).toBe('00:00');
    expect(labels.at(-1)).toBe('24:00');
  });

  it('leaves room above the peak for its count, clear of the title and legend', () => {
    for (const peak of [1, 10, 99, 100, 1_000, 12_345]) {
      const svg = chartSvg(chart([peak, Math.ceil(peak / 2)], HOUR, DAY));
      const label = new RegExp(
        `<text x="[\\d.]+" y="([\\d.]+)"[^>]*>${peak.toLocaleString('en-US')}</text>`,
      ).exec(svg);
      // The label's baseline less its 11-unit font stays below the title band.
      expect(Number(label?.[1]) - 11, `peak ${peak}`).toBeGreaterThanOrEqual(CHART_LAYOUT.titleBand.height);
    }
  });

  it('names midnight by its date when the window spans days', () => {
    const labels = timeLabels(chartSvg(chart(new Array(48).fill(1), HOUR, DAY - 12 * HOUR)));
    expect(labels).toContain('Nov 21');
    expect(labels).toContain('Nov 22');
    expect(labels).not.toContain('00:00');
  });

  it('draws the partial bucket lighter and names it in the legend', () => {
    const svg = chartSvg(chart([5, 5], HOUR, DAY, true));
    const bars = [...svg.matchAll(/<rect [^>]*class="bar[^"]*" fill="(#[0-9a-f]+)"/g)];
    expect(bars).toHaveLength(2);
    expect(bars[0]![1]).not.toBe(bars[1]![1]);
    expect(svg).toContain('partial: only part of its hour');
    expect(chartSvg(chart([5, 5], HOUR, DAY))).not.toContain('partial');
  });

  it('keeps a bucket of one visible beside a busy one', () => {
    const svg = chartSvg(chart([1_000_000, 1], HOUR, DAY));
    const heights = [...svg.matchAll(/<rect [^>]*height="([\d.]+)" class="bar/g)].map((m) => Number(m[1]));
    expect(heights).toHaveLength(2);
    expect(heights[1]).toBeGreaterThan(0);
  });

  it('writes a title with markup characters as text, not as SVG', () => {
    const svg = chartSvg({ ...chart([1], HOUR, DAY), title: 'zone <b>"x" & \'y\'</b>' });
    expect(svg).toContain('zone &lt;b&gt;&quot;x&quot; &amp; &apos;y&apos;&lt;/b&gt;');
    expect(svg).not.toContain('<b>');
  });

  it('refuses at the thread boundary what it cannot draw', () => {
    expect(BucketChartSchema.safeParse({ ...chart([1], HOUR, DAY), buckets: [] }).success).toBe(false);
    expect(BucketChartSchema.safeParse(chart([-1], HOUR, DAY)).success).toBe(false);
    expect(BucketChartSchema.safeParse(chart(new Array(1_441).fill(1), MINUTE, DAY)).success).toBe(false);
  });
});
