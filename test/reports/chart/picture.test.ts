import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BucketChart, CHART_LAYOUT, CHART_SCALE } from '../../../src/reports/chart/bucket.js';
import { chartFontFile } from '../../../src/reports/chart/font.js';
import { drawChartPng } from '../../../src/reports/chart/png.js';
import { createChartRenderer } from '../../../src/reports/chart/render.js';
import { createReportPool, type ReportPool } from '../../../src/reports/pool.js';
import { SecretRegistry } from '../../../src/secrets/registry.js';
import { createLogger } from '../../../src/telemetry/log.js';
import { pinnedClock } from '../../support/clock.js';
import { decodePng, differingPixels, inkIn, pngSize } from '../../support/png.js';

const DAY = Date.UTC(2026, 10, 21);
const HOUR = 3_600_000;

const chart: BucketChart = {
  title: 'Origin errors · pull zone 308006 · 2026-11-21',
  unit: 'errors',
  bucketMs: HOUR,
  buckets: [12, 30, 7, 0, 1, 220, 48, 3, 9, 15, 2, 40, 36, 5, 4].map((count, hour) => ({
    start: new Date(DAY + hour * HOUR),
    count,
    ...(hour === 14 ? { partial: true } : {}),
  })),
};

const pictureSize = { width: CHART_LAYOUT.width * CHART_SCALE, height: CHART_LAYOUT.height * CHART_SCALE };
/** The lower half of the bars: no words are drawn there. */
const lowerBars = {
  ...CHART_LAYOUT.plot,
  y: CHART_LAYOUT.plot.y + CHART_LAYOUT.plot.height / 2,
  height: CHART_LAYOUT.plot.height / 2,
};
const labelAreas = {
  'title and legend': CHART_LAYOUT.titleBand,
  'count labels': CHART_LAYOUT.countLabels,
  'time labels': CHART_LAYOUT.timeLabels,
};

describe('a chart picture', () => {
  it('is a PNG at twice the size of the chart, for sharp text on dense screens', () => {
    const drawn = drawChartPng(chart, [chartFontFile()]);
    expect(pngSize(drawn.png)).toEqual(pictureSize);
    expect({ width: drawn.width, height: drawn.height }).toEqual(pictureSize);
  });

  it('has its labels drawn with the bundled font: only the label areas change without it', () => {
    const labelled = decodePng(drawChartPng(chart, [chartFontFile()]).png);
    const unlabelled = decodePng(drawChartPng(chart, []).png);
    for (const [name, area] of Object.entries(labelAreas))
      expect(differingPixels(labelled, unlabelled, area), name).toBeGreaterThan(200);
    expect(differingPixels(labelled, unlabelled, lowerBars)).toBe(0);
    expect(inkIn(labelled, lowerBars)).toBeGreaterThan(0);
  });

  it('never borrows a system font: without the bundled one no word is drawn at all', () => {
    const unlabelled = decodePng(drawChartPng(chart, []).png);
    expect(inkIn(unlabelled, CHART_LAYOUT.countLabels)).toBe(0);
    expect(inkIn(unlabelled, CHART_LAYOUT.timeLabels)).toBe(0);
  });
});

describe('drawing a chart off the event loop', () => {
  let pool: ReportPool;
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    secrets: new SecretRegistry(),
    clock: pinnedClock(),
    write: (line) => lines.push(line),
  });
  const warnings = () => lines.filter((line) => line.includes('"level":"warn"'));
  beforeAll(() => {
    pool = createReportPool({ maxThreads: 1 });
  });
  afterAll(async () => {
    await pool.close();
  });

  it('gives the PNG and the alt text, drawn in a worker thread', async () => {
    const picture = await createChartRenderer({ logger, pool }).draw(chart);
    expect(picture).toBeDefined();
    expect(pngSize(picture!.png)).toEqual(pictureSize);
    expect(picture!.altText).toContain('Peak 05:00–06:00 UTC with 220 errors; total 432 errors.');
    expect(picture!.altText).toContain('The bar from 14:00 UTC is partial');
  });

  it('draws the charts of one answer in one task, in order, each as the single draw makes it', async () => {
    const quiet: BucketChart = {
      ...chart,
      title: 'Quiet day',
      buckets: chart.buckets.map((b) => ({ ...b, count: 1 })),
    };
    const pictures = await createChartRenderer({ logger, pool }).drawAll([chart, quiet, chart]);
    expect(pictures).toHaveLength(3);
    const alone = drawChartPng(chart, [chartFontFile()]).png;
    const whole = { x: 0, y: 0, width: CHART_LAYOUT.width, height: CHART_LAYOUT.height };
    expect(differingPixels(decodePng(pictures![0]!.png), decodePng(alone), whole)).toBe(0);
    expect(differingPixels(decodePng(pictures![2]!.png), decodePng(alone), whole)).toBe(0);
    expect(differingPixels(decodePng(pictures![1]!.png), decodePng(alone), whole)).toBeGreaterThan(0);
    expect(pictures![1]!.altText).toContain('Quiet day');
    expect(
      await createChartRenderer({ logger, pool }).drawAll([chart, { ...chart, buckets: [] }]),
    ).toBeUndefined();
  });

  it('gives no picture when the font cannot be read, and says why in the log only', async () => {
    lines.length = 0;
    const picture = await createChartRenderer({ logger, pool, fontFile: '/nonexistent/inter.ttf' }).draw(
      chart,
    );
    expect(picture).toBeUndefined();
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('/nonexistent/inter.ttf');
  });

  it('gives no picture when drawing outlasts its bound, and the pool keeps drawing after', async () => {
    lines.length = 0;
    expect(await createChartRenderer({ logger, pool, timeoutMs: 1 }).draw(chart)).toBeUndefined();
    expect(warnings()[0]).toContain('no picture within 1 ms');
    expect(await createChartRenderer({ logger, pool }).draw(chart)).toBeDefined();
  });

  it('gives no picture, and no warning, for a job that was cancelled', async () => {
    lines.length = 0;
    const picture = await createChartRenderer({ logger, pool }).draw(chart, { signal: AbortSignal.abort() });
    expect(picture).toBeUndefined();
    expect(warnings()).toEqual([]);
  });

  it('gives no picture for a chart it cannot draw, rather than throwing', async () => {
    lines.length = 0;
    expect(await createChartRenderer({ logger, pool }).draw({ ...chart, buckets: [] })).toBeUndefined();
    expect(warnings()).toHaveLength(1);
  });
});
