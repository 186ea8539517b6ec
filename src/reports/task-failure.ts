/**
 * How a report worker returns its own failure: as a value, since errors lose their class crossing
 * threads. Without zod, so that a worker loading it does not load zod (tasks.ts checks it).
 */

export interface WorkerFailure {
  ok: false;
  reason: 'cancelled' | 'invalid-response' | 'failed';
  message: string;
}

export function failureOf(error: unknown, cancelled: boolean, invalidResponse: boolean): WorkerFailure {
  if (cancelled) return { ok: false, reason: 'cancelled', message: 'cancelled' };
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, reason: invalidResponse ? 'invalid-response' : 'failed', message };
}
