/**
 * `/edge logs`: the summary of an origin-error day and its CSV, from the streamed response body.
 * The event loop only forwards the body; parsing, counting and CSV writing run in a report
 * worker (origin-worker.ts), so a million-entry day never blocks Slack acknowledgements.
 */
import { z } from 'zod';
import { abandonReport, type ReportFailureWords, workerFailureError } from './failures.js';
import { OriginCountsSchema, type OriginFilters, OriginFiltersSchema } from './origin-tally.js';
import type { ReportPool } from './pool.js';
import { OriginWorkerResultSchema } from './tasks.js';
import { streamToWorker } from './worker-channel.js';

export type { OriginFilters } from './origin-tally.js';
export { OriginFiltersSchema, URL_TRACK_CAPACITY } from './origin-tally.js';

export const OriginSummarySchema = OriginCountsSchema.extend({
  /**
   * False when the body had no `logs` array at all (`{}`, `{"logs":null}`): the vendor does not
   * require it, and leaving it out most likely means a day without errors.
   */
  listed: z.boolean(),
  /** Bytes of the response body read. */
  bodyBytes: z.number().int().nonnegative(),
  csv: z.strictObject({
    path: z.string(),
    /** Data rows, header excluded: equals `total`. */
    rows: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
  }),
});
export type OriginSummary = z.infer<typeof OriginSummarySchema>;

export interface OriginProgress {
  /** Body bytes received so far. */
  bytes: number;
  /** Entries parsed so far. */
  entries: number;
}

export interface SummariseOriginErrorsOptions {
  /** The response body of GET {logging_url}/{id}/{date}: `{"logs":[…]}`. */
  source: AsyncIterable<Uint8Array>;
  filters?: OriginFilters;
  /** Where the CSV goes; removed again when the summary fails or is cancelled. */
  csvPath: string;
  signal?: AbortSignal;
  onProgress?: (progress: OriginProgress) => void;
  /** The worker pool (the runtime's, closed with it). */
  pool: ReportPool;
}

const WORDS: ReportFailureWords = {
  operation: 'logs.origin',
  unreadable: 'The origin log response could not be read',
  failed: 'Summarising the origin logs failed',
  cancelled: 'The origin log summary was cancelled.',
};

export async function summariseOriginErrors(options: SummariseOriginErrorsOptions): Promise<OriginSummary> {
  const filters = OriginFiltersSchema.parse(options.filters ?? {});
  const { csvPath, signal, onProgress } = options;
  try {
    const raw = await streamToWorker({
      pool: options.pool,
      worker: 'origin-worker',
      task: { csvPath, filters },
      source: options.source,
      signal,
      onProgress: onProgress && (({ bytes, items }) => onProgress({ bytes, entries: items })),
    });
    const result = OriginWorkerResultSchema.parse(raw);
    if (!result.ok) throw workerFailureError(result, WORDS);
    const { counts, listed, bodyBytes, csvBytes } = result;
    return { ...counts, listed, bodyBytes, csv: { path: csvPath, rows: counts.total, bytes: csvBytes } };
  } catch (error) {
    return abandonReport(error, csvPath, signal, WORDS);
  }
}
