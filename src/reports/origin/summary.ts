/**
 * `/edge logs`: the summary of an origin-error window and its CSV, from the streamed response
 * bodies of the UTC days it touches, read one after the other by the same worker task.
 * The event loop only forwards the bodies; parsing, counting and CSV writing run in a report
 * worker (origin/worker.ts), so a million-entry day never blocks Slack acknowledgements.
 */
import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { z } from 'zod';
import { abandonReport, type ReportFailureWords, workerFailureError } from '../failures.js';
import type { ReportPool } from '../pool.js';
import { OriginWorkerResultSchema } from '../tasks.js';
import { DOCUMENT_BREAK, type SourcePiece, streamToWorker } from '../worker-channel.js';
import { OriginDayReadSchema } from './days.js';
import { OriginDayIndexSchema } from './hours.js';
import {
  OriginCountsSchema,
  type OriginFilters,
  OriginFiltersSchema,
  type OriginView,
  OriginViewSchema,
} from './tally.js';

export type { OriginDayRead } from './days.js';
export type { ComparisonCounts, OriginFilters, OriginView } from './tally.js';
export { OriginFiltersSchema, URL_TRACK_CAPACITY } from './tally.js';

export const OriginSummarySchema = OriginCountsSchema.extend({
  /**
   * False when the body had no `logs` array at all (`{}`, `{"logs":null}`): the vendor does not
   * require it, and leaving it out most likely means a day without errors.
   */
  listed: z.boolean(),
  /** Bytes of the response bodies read. */
  bodyBytes: z.number().int().nonnegative(),
  /** Each day read, in the order of `days` (one, for a single `source`). */
  days: z.array(OriginDayReadSchema),
  /** With `indexHours`: where each day's hours lie in its body, in the order of `days`. */
  indexes: z.array(OriginDayIndexSchema.nullable()).optional(),
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

/** Opens one day's body (GET {logging_url}/{id}/{date}); called only when the day before it is read. */
export type OriginDayOpener = () => Promise<AsyncIterable<Uint8Array>>;

export interface SummariseOriginErrorsOptions {
  /** One response body of GET {logging_url}/{id}/{date}: `{"logs":[…]}`. */
  source?: AsyncIterable<Uint8Array>;
  /** Or several days, fetched and read one after the other through the same counts. */
  days?: readonly OriginDayOpener[];
  filters?: OriginFilters;
  /** The chart's buckets and the earlier windows to compare with. */
  view?: OriginView;
  /** The day (by position in `days`) whose entries without a timestamp count in the window. */
  untimedDay?: number;
  /**
   * Days from this position on serve only comparisons. One whose body breaks, mid-stream or as
   * bad JSON, is read as nothing and marked `broken` in `days`; a broken window day fails the summary.
   */
  comparisonsFrom?: number;
  /** Note where each day's hours lie in its body (see hours.ts). */
  indexHours?: boolean;
  /** Where the CSV goes; removed again when the summary fails or is cancelled. */
  csvPath: string;
  signal?: AbortSignal;
  onProgress?: (progress: OriginProgress) => void;
  /** The worker pool (the runtime's, closed with it). */
  pool: ReportPool;
  /**
   * Count the entries' texts on a thread of their own while the entries are read (counter.ts).
   * By default only with a core each for the event loop, the reader and the counter: on two
   * cores the counter costs more CPU time than it saves wall time (bench/README.md).
   */
  countApart?: boolean;
}

/** How long the counter thread has to end once the reader has, before it is terminated. */
const COUNTER_GRACE_MS = 2_000;

const WORDS: ReportFailureWords = {
  operation: 'logs.origin',
  unreadable: 'The origin log response could not be read',
  failed: 'Summarising the origin logs failed',
  cancelled: 'The origin log summary was cancelled.',
};

export async function summariseOriginErrors(options: SummariseOriginErrorsOptions): Promise<OriginSummary> {
  const filters = OriginFiltersSchema.parse(options.filters ?? {});
  const view = OriginViewSchema.parse(options.view ?? {});
  const { csvPath, signal, onProgress, untimedDay, comparisonsFrom, indexHours } = options;
  const counter = countApart(options, view);
  try {
    const raw = await streamToWorker({
      pool: options.pool,
      worker: 'origin/worker',
      task: {
        csvPath,
        filters,
        view,
        ...(untimedDay === undefined ? {} : { untimedDay }),
        ...(comparisonsFrom === undefined ? {} : { comparisonsFrom }),
        ...(indexHours ? { indexHours } : {}),
        ...(counter ? { counter: counter.port } : {}),
      },
      transfer: counter ? [counter.port] : [],
      source: bodiesOf(options),
      signal,
      onProgress: onProgress && (({ bytes, items }) => onProgress({ bytes, entries: items })),
    }).finally(() => {
      // The reader has the counts, or failed: the counter ends on its own, and is not waited for.
      void counter?.ended();
    });
    const result = OriginWorkerResultSchema.parse(raw);
    if (!result.ok) throw workerFailureError(result, WORDS);
    const { counts, listed, bodyBytes, csvBytes, days, indexes } = result;
    return {
      ...counts,
      listed,
      bodyBytes,
      days,
      ...(indexes ? { indexes } : {}),
      csv: { path: csvPath, rows: counts.total, bytes: csvBytes },
    };
  } catch (error) {
    return abandonReport(error, csvPath, signal, WORDS);
  }
}

/**
 * The counter thread, when the texts are counted apart: started beside the reader, and ending
 * with it (the reader closes its end of the channel); terminated if it has not shortly after.
 */
function countApart(options: SummariseOriginErrorsOptions, view: OriginView) {
  if (!(options.countApart ?? availableParallelism() > 2)) return undefined;
  const { port1, port2 } = new MessageChannel();
  const stop = new AbortController();
  const counting = options.pool
    .run(
      { port: port2, comparisons: view.comparisons?.length ?? 0 },
      { worker: 'origin/counter', transferList: [port2], signal: stop.signal },
    )
    // The reader reports whatever stopped the counter.
    .catch(() => undefined);
  return {
    port: port1,
    async ended(): Promise<void> {
      // Ends the channel when the port never reached the reader (the summary stopped first).
      port1.close();
      const timer = setTimeout(() => stop.abort(), COUNTER_GRACE_MS).unref();
      await counting;
      clearTimeout(timer);
    },
  };
}

/**
 * A comparison day's body up to where its connection fails: what came is passed on, and the
 * worker, finding the JSON cut short, marks the day broken. Cancelling still ends everything.
 */
async function* untilBroken(body: AsyncIterable<Uint8Array>, signal: AbortSignal | undefined) {
  try {
    yield* body;
  } catch (error) {
    if (signal?.aborted) throw error;
  }
}

/** The bodies as one source, a DOCUMENT_BREAK between days; the next day is fetched only when asked for. */
async function* bodiesOf(options: SummariseOriginErrorsOptions): AsyncGenerator<SourcePiece> {
  const { source } = options;
  const openers: readonly OriginDayOpener[] = options.days ?? (source ? [async () => source] : []);
  if (openers.length === 0) throw new TypeError('summariseOriginErrors needs a source or days');
  for (const [index, open] of openers.entries()) {
    if (index > 0) yield DOCUMENT_BREAK;
    if (index < (options.comparisonsFrom ?? Number.POSITIVE_INFINITY)) yield* await open();
    else yield* untilBroken(await open(), options.signal);
  }
}
