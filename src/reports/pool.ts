/**
 * The worker threads that run report work (JSON parsing, CSV writing) off the event loop.
 *
 * Piscina gives queueing, thread reuse, idle shutdown and hard termination; its task model is
 * one message in, one result out, so a streamed body travels over a MessagePort handed to the
 * task (see worker-channel.ts). Each kind of report has its own threads and heap limits, so a
 * long export never queues an origin-log summary behind it.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { MessagePort, ResourceLimits } from 'node:worker_threads';
import type { Piscina } from 'piscina';

export type ReportWorkerName = 'origin/worker' | 'shield/worker' | 'chart/worker' | 'origin/counter';

const HEAP_LIMITS: Record<ReportWorkerName, ResourceLimits | undefined> = {
  // V8's default young generation: smaller ones cost a third more time on a million-entry day.
  'origin/worker': undefined,
  // A stream of small records needs little heap; a small one keeps the export's RSS flat and low.
  'shield/worker': { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
  // A chart is a few kilobytes of SVG; resvg's pixels live outside the JavaScript heap.
  'chart/worker': { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
  // Counts a few thousand texts at most; its young generation sees every entry's texts go by.
  'origin/counter': undefined,
};

export interface ReportTaskOptions {
  worker: ReportWorkerName;
  /** The ports a streamed task reads from; none for a task whose input is all in the message. */
  transferList?: MessagePort[];
  /** Aborting terminates the thread running the task: the last resort when it does not stop. */
  signal: AbortSignal;
}

export interface ReportPool {
  run(task: object, options: ReportTaskOptions): Promise<unknown>;
  close(): Promise<void>;
}

export interface ReportPoolOptions {
  /** Threads per kind of report; one less than the cores by default, so the event loop keeps one. */
  maxThreads?: number;
  idleTimeoutMs?: number;
}

/** Under tsx or vitest this module is a `.ts` file and so are the workers; in dist/ both are `.js`. */
const runningFromSource = import.meta.url.endsWith('.ts');

/** The worker file next to this module, in the same form (source or compiled) as this module. */
export function reportWorkerFile(name: ReportWorkerName): string {
  return fileURLToPath(new URL(`./${name}.${runningFromSource ? 'ts' : 'js'}`, import.meta.url));
}

/** A `.ts` worker is loaded by Node itself, not by the test runner's transform: give it tsx. */
function workerExecArgv(): string[] {
  if (!runningFromSource) return [];
  let loader = 'tsx';
  try {
    loader = import.meta.resolve('tsx');
  } catch {
    // Some module runners do not offer import.meta.resolve; Node then resolves `tsx` from the cwd.
  }
  return ['--import', loader];
}

export function createReportPool(options: ReportPoolOptions = {}): ReportPool {
  // Piscina is loaded with the first report, not at start: most runs of the bot never need it.
  const pools = new Map<ReportWorkerName, Promise<Piscina>>();
  const poolFor = (worker: ReportWorkerName): Promise<Piscina> => {
    let pool = pools.get(worker);
    if (!pool) {
      pool = import('piscina').then(
        ({ Piscina }) =>
          new Piscina({
            filename: reportWorkerFile(worker),
            minThreads: 0,
            maxThreads: options.maxThreads ?? Math.max(1, availableParallelism() - 1),
            idleTimeout: options.idleTimeoutMs ?? 30_000,
            execArgv: workerExecArgv(),
            resourceLimits: HEAP_LIMITS[worker],
          }),
      );
      pools.set(worker, pool);
    }
    return pool;
  };
  return {
    run: async (task, { worker, transferList, signal }) =>
      (await poolFor(worker)).run(task, { transferList, signal }),
    close: async () => {
      const closing = [...pools.values()];
      pools.clear();
      await Promise.all(closing.map(async (pool) => (await pool).close()));
    },
  };
}
