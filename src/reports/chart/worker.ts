/**
 * Runs in a report worker thread: draws a chart (bucket or series) as a PNG, so rasterising (tens of
 * milliseconds of CPU) never holds up the event loop.
 */
import { access, constants } from 'node:fs/promises';
import { ChartTaskSchema, type ChartWorkerResult, failureOf } from '../tasks.js';
import { chartAltText } from './bucket.js';
import { drawChartPng } from './png.js';
import { seriesAltText } from './series.js';

const readableFonts = new Set<string>();

/** resvg draws no words, silently, from a font it cannot read: that is a failure here instead. */
async function checkFont(path: string): Promise<void> {
  if (readableFonts.has(path)) return;
  await access(path, constants.R_OK);
  readableFonts.add(path);
}

export default async function drawChartInWorker(input: unknown): Promise<ChartWorkerResult> {
  try {
    const task = ChartTaskSchema.parse(input);
    await checkFont(task.fontFile);
    const drawn = drawChartPng(task.chart, [task.fontFile]);
    return {
      ok: true,
      // Exactly the PNG's bytes: a view could carry the rest of a shared buffer across threads.
      png: new Uint8Array(drawn.png),
      width: drawn.width,
      height: drawn.height,
      altText: 'kind' in task.chart ? seriesAltText(task.chart) : chartAltText(task.chart),
    };
  } catch (error) {
    return failureOf(error, false, false);
  }
}
