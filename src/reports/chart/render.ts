/**
 * Charts as pictures, for the operations: a bucket or series chart goes to a report worker
 * (chart/worker.ts) and comes back as a PNG with its alt text, within a time bound. Anything
 * else (a failure, the bound, a cancelled job) gives no picture: the operation's text chart is
 * then the answer, so a failure is logged for operators and shown to nobody.
 */
import type { Logger } from '../../telemetry/log.js';
import type { ReportPool } from '../pool.js';
import { ChartSchema, ChartWorkerResultSchema } from '../tasks.js';
import type { BucketChart } from './bucket.js';
import { chartFontFile } from './font.js';
import type { SeriesChart } from './series.js';

export interface ChartPicture {
  png: Buffer;
  /** Pixels. */
  width: number;
  height: number;
  /** Plain text: what the picture shows, for screen readers. */
  altText: string;
}

export interface ChartRenderer {
  /** The chart as a PNG, or undefined when it could not be drawn in time. Never throws. */
  draw(
    chart: BucketChart | SeriesChart,
    options?: { signal?: AbortSignal },
  ): Promise<ChartPicture | undefined>;
  /**
   * The charts of one answer (at most MAX_CHARTS_PER_TASK), drawn at once in one task: all of them,
   * in order, or undefined when they could not be drawn in time. Never throws.
   */
  drawAll(
    charts: readonly (BucketChart | SeriesChart)[],
    options?: { signal?: AbortSignal },
  ): Promise<ChartPicture[] | undefined>;
}

export interface ChartRendererOptions {
  logger: Logger;
  /** The worker pool (the runtime's, closed with it). */
  pool: ReportPool;
  /** How long a picture may take, the worker's start included; past it, the text chart stands. */
  timeoutMs?: number;
  /** The TrueType font the words are drawn with; the bundled Inter by default. */
  fontFile?: string;
}

/** A chart takes tens of milliseconds; a first one also starts a worker thread. */
export const CHART_TIMEOUT_MS = 10_000;

export function createChartRenderer(options: ChartRendererOptions): ChartRenderer {
  const timeoutMs = options.timeoutMs ?? CHART_TIMEOUT_MS;
  const drawAll: ChartRenderer['drawAll'] = async (charts, { signal } = {}) => {
    const bound = AbortSignal.timeout(timeoutMs);
    try {
      const task = {
        charts: charts.map((chart) => ChartSchema.parse(chart)),
        fontFile: options.fontFile ?? chartFontFile(),
      };
      const raw = await options.pool.run(task, {
        worker: 'chart/worker',
        // Either ends the task: the thread drawing it is terminated.
        signal: signal ? AbortSignal.any([signal, bound]) : bound,
      });
      const result = ChartWorkerResultSchema.parse(raw);
      if (!result.ok) throw new Error(result.message);
      if (result.pictures.length !== charts.length)
        throw new Error('the worker drew another number of charts');
      return result.pictures.map(({ png, width, height, altText }) => ({
        png: Buffer.from(png.buffer, png.byteOffset, png.byteLength),
        width,
        height,
        altText,
      }));
    } catch (error) {
      // A cancelled job says so itself.
      if (signal?.aborted) return undefined;
      options.logger.warn('the chart picture could not be drawn; the text chart stands in for it', {
        reason: bound.aborted
          ? `no picture within ${timeoutMs} ms`
          : error instanceof Error
            ? error.message
            : String(error),
      });
      return undefined;
    }
  };
  return {
    drawAll,
    async draw(chart, drawOptions) {
      return (await drawAll([chart], drawOptions))?.[0];
    },
  };
}
