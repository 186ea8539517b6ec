/**
 * The one place an error becomes what the user reads, what the audit row records and what the
 * log says. Every domain error extends EdgeopsError (src/errors.ts); anything else is a bug of
 * ours, shown only as a correlation id and what to do with it.
 */
import { DatabaseError } from '../../database/errors.js';
import { EdgeopsError } from '../../errors.js';
import { PlatformError } from '../../platform/errors.js';
import { md } from '../../reply/markup.js';
import { ephemeral, type Reply } from '../../reply/model.js';
import type { Logger } from '../../telemetry/log.js';
import { UserFacingError } from './errors.js';

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
  return error.unexpected ? `${error.userMessage} (correlation id ${correlationId})` : error.userMessage;
}

function logFailure(error: EdgeopsError, logger: Logger): void {
  if (error instanceof PlatformError)
    logger.warn('platform call failed', {
      kind: error.kind,
      status: error.status,
      platformOperation: error.operation,
      attempts: error.attempts,
      message: error.userMessage,
    });
  // A refused token is logged once by the customer database, not again on every query.
  else if (error instanceof DatabaseError && error.kind !== 'unauthorized')
    logger.warn('customer database call failed', {
      kind: error.kind,
      code: error.code,
      status: error.status,
      message: error.userMessage,
    });
  else if (error.unexpected)
    logger.error('operation failed', { kind: error.kind, error: error.message, cause: error.cause });
}

export function describeFailure(error: unknown, context: { correlationId: string; logger: Logger }): Failure {
  const { correlationId, logger } = context;
  if (error instanceof EdgeopsError) {
    logFailure(error, logger);
    const text = failureText(error, correlationId);
    const mark = error.outcome === 'refused' ? ':warning:' : ':x:';
    const given = error instanceof UserFacingError ? error.reply : undefined;
    return {
      reply: given ?? ephemeral(text, [{ type: 'text', text: md`${mark} ${text}` }]),
      outcome: error.outcome,
      detail: error.detail,
      text,
    };
  }
  logger.error('unexpected failure', { error });
  const text = `Something went wrong on our side. Please report correlation id ${correlationId}.`;
  return {
    reply: ephemeral(text, [{ type: 'text', text: md`:x: ${text}` }]),
    outcome: 'error',
    detail: 'unexpected error',
    text,
  };
}
