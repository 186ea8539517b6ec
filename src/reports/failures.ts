/**
 * How a report that did not finish is reported: its partial file removed, and the failure
 * turned into the platform error kinds the chat adapter already knows how to show.
 */
import { rm } from 'node:fs/promises';
import { PlatformError } from '../platform/errors.js';
import type { WorkerFailure } from './tasks.js';

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

/** The error for a failure the worker returned. */
export function workerFailureError(failure: WorkerFailure, words: ReportFailureWords): Error {
  if (failure.reason === 'invalid-response')
    return new PlatformError({
      kind: 'invalid-response',
      operation: words.operation,
      userMessage: `${words.unreadable}: ${failure.message}.`,
    });
  if (failure.reason === 'cancelled')
    return new PlatformError({ kind: 'aborted', operation: words.operation, userMessage: words.cancelled });
  return new Error(`${words.failed}: ${failure.message}`);
}

/** Removes the partial file and says why the report stopped: cancelled wins over what it caused. */
export async function abandonReport(
  error: unknown,
  path: string,
  signal: AbortSignal | undefined,
  words: ReportFailureWords,
): Promise<never> {
  await rm(path, { force: true });
  if (signal?.aborted && !(error instanceof PlatformError && error.kind === 'aborted'))
    throw new PlatformError({
      kind: 'aborted',
      operation: words.operation,
      userMessage: words.cancelled,
      cause: error,
    });
  throw error;
}
