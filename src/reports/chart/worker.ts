/**
 * Runs in a report worker thread: draws charts (bucket or series) as PNGs, so rasterising (tens of
 * milliseconds of CPU each) never holds up the event loop; one task's charts are drawn at once.
 */
import { access, constants } from 'node:fs/promises';
import { ChartTaskSchema, type ChartWorkerResult, failureOf } from '../tasks.js';
import { chartAltText } from './bucket.js';
import { drawChartPngAsync } from './png.js';
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
    const pictures = await Promise.all(
      task.charts.map(async (chart) => {
        const drawn = await drawChartPngAsync(chart, [task.fontFile]);
        return {
          // Exactly the PNG's bytes: a view could carry the rest of a shared buffer across threads.
          png: new Uint8Array(drawn.png),
          width: drawn.width,
          height: drawn.height,
          altText: 'kind' in chart ? seriesAltText(chart) : chartAltText(chart),
        };
      }),
    );
    return { ok: true, pictures };
  } catch (error) {
    return failureOf(error, false, false);
  }
}
