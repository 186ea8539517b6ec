/**
 * How a report that did not finish is reported: its partial file removed, and the failure
 * turned into a ReportError, which the one failure mapper shows like any other domain error.
 */
import { rm } from 'node:fs/promises';
import { EdgeopsError } from '../errors.js';
import type { WorkerFailure } from './tasks.js';

/** Named like the platform error kinds they resemble, so audit rows read the same. */
export type ReportErrorKind =
  /** The platform's response could not be read (not the documented format). */
  | 'invalid-response'
  /** Someone pressed Cancel, or the job's bound was reached. */
  | 'aborted'
  /** The worker itself failed: a bug of ours, shown only with a correlation id. */
  | 'failed';

export class ReportError extends EdgeopsError {
  override name = 'ReportError';
  readonly outcome = 'failed';

  constructor(
    readonly kind: ReportErrorKind,
    /** The operation id, e.g. `logs.origin`. */
    readonly operation: string,
    readonly userMessage: string,
    options?: { cause?: unknown },
  ) {
    super(userMessage, options);
  }

  get unexpected(): boolean {
    return this.kind !== 'aborted';
  }

  override get detail(): string {
    return `${this.kind}: ${this.userMessage}`;
  }
}

/**
 * Whether `error` says the report was cancelled, by the user or through its platform call: every
 * error that tells of a cancelled call (ReportError, PlatformError) has the kind `aborted`.
 */
export function isCancellation(error: unknown): boolean {
  return error instanceof EdgeopsError && error.kind === 'aborted';
}

export interface ReportFailureWords {
  /** The operation id, e.g. `logs.origin`. */
  operation: string;
  /** "The origin log response could not be read", followed by the parser's reason. */
  unreadable: string;
  /** "Summarising the origin logs failed", followed by the reason. */
  failed: string;
  /** "The origin log summary was cancelled." */
  cancelled: string;
}

/** What the user can do about a report that failed for a reason of the platform's or ours; the correlation id follows. */
const NEXT_STEP = 'Try again; if it persists, report it with the correlation id.';

/** The error for a failure the worker returned. */
export function workerFailureError(failure: WorkerFailure, words: ReportFailureWords): ReportError {
  if (failure.reason === 'invalid-response')
    return new ReportError(
      'invalid-response',
      words.operation,
      `${words.unreadable}: ${failure.message}. ${NEXT_STEP}`,
    );
  if (failure.reason === 'cancelled') return new ReportError('aborted', words.operation, words.cancelled);
  // The worker's own message may name our code paths: it goes to the log, not to the user.
  return new ReportError('failed', words.operation, `${words.failed}. ${NEXT_STEP}`, {
    cause: new Error(failure.message),
  });
}

/** Removes the partial file and says why the report stopped: cancelled wins over what it caused. */
export async function abandonReport(
  error: unknown,
  path: string,
  signal: AbortSignal | undefined,
  words: ReportFailureWords,
): Promise<never> {
  await rm(path, { force: true });
  if (signal?.aborted && !isCancellation(error))
    throw new ReportError('aborted', words.operation, words.cancelled, { cause: error });
  throw error;
}
