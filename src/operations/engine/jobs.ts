/**
 * The long jobs (big log days, exports) running in this process, with their caps: a person may
 * run a few at once, the process a few more, so that one user's twelve exports of a 200 MB zone
 * do not all reach the platform. A service built by the runtime and closed with it.
 */
import { randomBytes } from 'node:crypto';

export interface JobLimits {
  /** Long jobs one person may have running at once. */
  perUser: number;
  /** Long jobs this process runs at once, everyone's together. */
  perProcess: number;
}

export const DEFAULT_JOB_LIMITS: JobLimits = { perUser: 2, perProcess: 4 };

/** When a job's progress message appears, and how often it may change. */
export interface ProgressTiming {
  delayMs: number;
  minGapMs: number;
}

export const DEFAULT_PROGRESS: ProgressTiming = { delayMs: 2_000, minGapMs: 3_000 };

export interface RunningJob {
  readonly id: string;
  readonly requester: string;
  readonly title: string;
  /** The operation's cancel action id, for the Cancel button shown with a refusal. */
  readonly cancelActionId: string;
  readonly startedAt: number;
  /** Shown by its title to its requester only: to others, past a cap, it is "a private job". */
  readonly private?: boolean;
  readonly controller: AbortController;
}

export type JobStart =
  | { ok: true; job: RunningJob; finish(): void }
  | { ok: false; limit: 'user' | 'process'; running: readonly RunningJob[] };

export interface JobRegistry {
  readonly limits: JobLimits;
  readonly progress: ProgressTiming;
  /** Registers a job, unless the requester or the process is at its cap. */
  start(input: {
    requester: string;
    title: string;
    cancelActionId: string;
    startedAt: number;
    private?: boolean;
  }): JobStart;
  get(jobId: string): RunningJob | undefined;
  /** Jobs running now, oldest first. */
  running(): readonly RunningJob[];
  /** Aborts every job (shutdown). */
  close(): void;
}

export function createJobRegistry(
  options: { limits?: JobLimits; progress?: ProgressTiming; onChange?: (running: number) => void } = {},
): JobRegistry {
  const limits = options.limits ?? DEFAULT_JOB_LIMITS;
  const progress = options.progress ?? DEFAULT_PROGRESS;
  const jobs = new Map<string, RunningJob>();
  const changed = () => options.onChange?.(jobs.size);

  return {
    limits,
    progress,
    start(input) {
      const all = [...jobs.values()];
      const mine = all.filter((job) => job.requester === input.requester);
      if (mine.length >= limits.perUser) return { ok: false, limit: 'user', running: mine };
      if (all.length >= limits.perProcess) return { ok: false, limit: 'process', running: all };
      const job: RunningJob = {
        ...input,
        id: `job_${randomBytes(6).toString('hex')}`,
        controller: new AbortController(),
      };
      jobs.set(job.id, job);
      changed();
      return {
        ok: true,
        job,
        finish() {
          if (jobs.delete(job.id)) changed();
        },
      };
    },
    get: (jobId) => jobs.get(jobId),
    running: () => [...jobs.values()],
    close() {
      for (const job of jobs.values()) job.controller.abort(new Error('the bot is shutting down'));
      jobs.clear();
      changed();
    },
  };
}
