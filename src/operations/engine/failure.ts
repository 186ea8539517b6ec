/**
 * The one place an error becomes what the user reads, what the audit row records and what the
 * log says. Every domain error extends EdgeopsError (src/errors.ts) and says each of these for
 * itself; anything else is a bug of ours, shown only as a correlation id and what to do with it.
 */
import { randomUUID } from 'node:crypto';
import { EdgeopsError, UnexpectedError } from '../../errors.js';
import { md } from '../../reply/markup.js';
import { ephemeral, type Reply } from '../../reply/model.js';
import type { Logger } from '../../telemetry/log.js';

/** `c-` and 10 random hex digits; randomUUID draws from a buffered pool, one syscall per many ids. */
export const newCorrelationId = (): string => {
  const uuid = randomUUID();
  return `c-${uuid.slice(0, 8)}${uuid.slice(9, 11)}`;
};

export interface Failure {
  reply: Reply;
  /** refused, failed or error, as the audit log and metrics count it. */
  outcome: string;
  /** The audit row's detail: never a secret. */
  detail: string;
  /** The user's words alone, for places that add their own (an approval card's result). */
  text: string;
}

/** The user's words for `error`, with the correlation id when its cause is unknown to them. */
export function failureText(error: EdgeopsError, correlationId: string): string {
  return error.shownWith(correlationId);
}

export function describeFailure(error: unknown, context: { correlationId: string; logger: Logger }): Failure {
  const { correlationId, logger } = context;
  const failure = error instanceof EdgeopsError ? error : new UnexpectedError(error);
  const line = failure.logLine;
  if (line) logger[line.level](line.message, line.fields);
  const text = failureText(failure, correlationId);
  const mark = failure.outcome === 'refused' ? ':warning:' : ':x:';
  return {
    reply: failure.reply ?? ephemeral(text, [{ type: 'text', text: md`${mark} ${text}` }]),
    outcome: failure.outcome,
    detail: failure.detail,
    text,
  };
}
