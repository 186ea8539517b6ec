/**
 * Charts as pictures: how long drawing a chart's PNG takes, through the renderer the bot uses
 * (the report worker, resvg, the bundled font), against the 300 ms target; and how big the PNG
 * is. Each chart shape the logs can ask for is drawn 20 times in a warm worker (p95 reported);
 * the first chart of a process, which also starts the worker thread and loads resvg, is reported
 * against the renderer's bound. The measured side runs from compiled JavaScript in a process of
 * its own, as in production. Run alone: `npx tsx bench/chart.ts`.
 */
import type { BucketChart } from '../src/reports/chart/bucket.js';
import { isMain, measureInChild, reportMeasurement } from './child.js';
import type { BenchRow } from './types.js';

const TARGET_MS = 300;
/** The renderer's bound (CHART_TIMEOUT_MS): past it the text chart is the answer. */
const BOUND_MS = 10_000;
const PNG_TARGET_KB = 200;
const RUNS = 20;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY_START = Date.UTC(2026, 10, 21);

/** The shapes the windows of `/edge logs` draw, the densest last. */
const SHAPES = [
  { name: '24 bars of 1 h', bucketMs: HOUR, buckets: 24 },
  { name: '72 bars of 1 h', bucketMs: HOUR, buckets: 72 },
  { name: '96 bars of 15 min', bucketMs: 15 * MINUTE, buckets: 96 },
  { name: '1,440 bars of 1 min', bucketMs: MINUTE, buckets: 1_440 },
] as const;

function chartOf(shape: (typeof SHAPES)[number]): BucketChart {
  return {
    title: `Origin errors · pull zone 308006 · ${shape.name}`,
    unit: 'errors',
    bucketMs: shape.bucketMs,
    // A daily rhythm with one spike, the last bucket still filling.
    buckets: Array.from({ length: shape.buckets }, (_, i) => ({
      start: new Date(DAY_START + i * shape.bucketMs),
      count: Math.round(400 + 300 * Math.sin(i / 5) + (i === Math.floor(shape.buckets * 0.7) ? 5_000 : 0)),
      ...(i === shape.buckets - 1 ? { partial: true } : {}),
    })),
  };
}

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
};

/** The measured side: a fresh process, the report pool and the renderer as the bot builds them. */
async function measureSide(): Promise<void> {
  const { createChartRenderer } = await import('../src/reports/chart/render.js');
  const { createReportPool } = await import('../src/reports/pool.js');
  const pool = createReportPool({ maxThreads: 1 });
  const failures: string[] = [];
  const renderer = createChartRenderer({
    pool,
    logger: {
      debug: () => undefined,
      info: () => undefined,
      warn: (message, fields) => failures.push(`${message} ${JSON.stringify(fields)}`),
      error: (message) => failures.push(message),
      child() {
        return this;
      },
    },
  });
  const draw = async (chart: BucketChart) => {
    const started = performance.now();
    const picture = await renderer.draw(chart);
    if (!picture) throw new Error(`no picture: ${failures.join('; ')}`);
    return { ms: performance.now() - started, bytes: picture.png.length };
  };
  const first = await draw(chartOf(SHAPES[0]));
  const detail: Record<string, number> = { firstMs: first.ms };
  for (const [index, shape] of SHAPES.entries()) {
    const times: number[] = [];
    let bytes = 0;
    for (let run = 0; run < RUNS; run++) ({ ms: times[run], bytes } = await draw(chartOf(shape)));
    detail[`p50_${index}`] = percentile(times, 0.5);
    detail[`p95_${index}`] = percentile(times, 0.95);
    detail[`bytes_${index}`] = bytes;
  }
  await pool.close();
  reportMeasurement({ ms: first.ms, detail });
}

export async function benchChart(log: (line: string) => void = () => undefined): Promise<BenchRow[]> {
  const { compileForBench } = await import('./compiled.js');
  const compiled = await compileForBench();
  try {
    const { detail = {} } = await measureInChild(compiled.script('bench/chart.ts'), ['--side']);
    const at = (key: string) => detail[key] ?? Number.NaN;
    const rows: BenchRow[] = SHAPES.map((shape, index) => ({
      figure: `chart PNG of ${shape.name}: draw p95 (ms)`,
      value: Math.round(at(`p95_${index}`)),
      baseline: TARGET_MS,
      ratio: at(`p95_${index}`) / TARGET_MS,
      target: `< ${TARGET_MS} ms`,
      pass: at(`p95_${index}`) < TARGET_MS,
    }));
    rows.push({
      figure: 'first chart of a process, worker start included (ms)',
      value: Math.round(at('firstMs')),
      baseline: BOUND_MS,
      ratio: at('firstMs') / BOUND_MS,
      target: `< ${BOUND_MS.toLocaleString('en-US')} ms (the bound)`,
      pass: at('firstMs') < BOUND_MS,
    });
    const largest = Math.max(...SHAPES.map((_, index) => at(`bytes_${index}`))) / 1024;
    rows.push({
      figure: 'largest chart PNG (KB)',
      value: Math.round(largest),
      baseline: PNG_TARGET_KB,
      ratio: largest / PNG_TARGET_KB,
      target: `< ${PNG_TARGET_KB} KB`,
      pass: largest < PNG_TARGET_KB,
    });
    for (const [index, shape] of SHAPES.entries())
      log(
        `chart ${shape.name}: p50 ${at(`p50_${index}`).toFixed(0)} ms, p95 ${at(`p95_${index}`).toFixed(0)} ms, PNG ${(at(`bytes_${index}`) / 1024).toFixed(1)} KB`,
      );
    return rows;
  } finally {
    await compiled.remove();
  }
}

if (isMain(import.meta.url)) {
  if (process.argv[2] === '--side') await measureSide();
  else console.table(await benchChart((line) => console.log(line)));
}
