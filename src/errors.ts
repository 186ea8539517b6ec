/**
 * The one error base every domain error extends: what kind of failure it is, the words the person
 * who asked reads, and whether its cause is unknown to them. operations/engine/failure.ts is the one
 * place that turns any of them into a reply, an audit outcome and a log line.
 */
import type { Reply } from './reply/model.js';

/** How the audit log and the metrics record a command that ended in this error. */
export type FailureOutcome =
  /** The user's to fix (a bad argument, a statement the database refused): shown as a warning. */
  | 'refused'
  /** The work was tried and failed (the platform said no, the network dropped). */
  | 'failed'
  /** Nothing was tried because the bot itself could not go on (its state store is down). */
  | 'error';

/** The line a failure that reached someone leaves in the log. */
export interface FailureLogLine {
  level: 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
}

export abstract class EdgeopsError extends Error {
  /** A short machine-readable name of the failure, for logs, metrics and the audit row. */
  abstract readonly kind: string;
  /** Plain words for the person who asked: what went wrong and what to do. Never a secret. */
  abstract readonly userMessage: string;
  /** The cause is ours or the platform's, not the user's: the answer carries a correlation id. */
  abstract readonly unexpected: boolean;
  abstract readonly outcome: FailureOutcome;
  /** The whole reply to show instead of the words alone (e.g. with Cancel buttons). */
  readonly reply?: Reply;

  /** What the audit row says; the user's words unless a subclass knows better. */
  get detail(): string {
    return this.userMessage;
  }

  /** The words shown, with the correlation id that finds the log line when the cause is unknown to them. */
  shownWith(correlationId: string): string {
    return this.unexpected ? `${this.userMessage} (correlation id ${correlationId})` : this.userMessage;
  }

  /** The log line, if any: a failure the person can fix needs none; an unexpected one is ours to look at. */
  get logLine(): FailureLogLine | undefined {
    if (!this.unexpected) return undefined;
    return {
      level: 'error',
      message: 'operation failed',
      fields: { kind: this.kind, error: this.message, cause: this.cause },
    };
  }
}

/**
 * A fault in the bot's own machinery (a store, a worker, a transport): the person who asked
 * reads only that it is ours, with the correlation id of the log line that says the rest.
 */
export abstract class InternalError extends EdgeopsError {
  readonly userMessage: string = 'Something went wrong on our side.';
  readonly unexpected: boolean = true;
  readonly outcome: FailureOutcome = 'error';

  override get detail(): string {
    return 'unexpected error';
  }

  override shownWith(correlationId: string): string {
    return `${this.userMessage} Please report correlation id ${correlationId}.`;
  }

  override get logLine(): FailureLogLine | undefined {
    return { level: 'error', message: 'unexpected failure', fields: { error: this } };
  }
}

/** Anything thrown that is not an EdgeopsError: a bug of ours, logged as it was thrown. */
export class UnexpectedError extends InternalError {
  override name = 'UnexpectedError';
  readonly kind = 'unexpected';

  constructor(thrown: unknown) {
    super('unexpected failure', { cause: thrown });
  }

  override get logLine(): FailureLogLine {
    return { level: 'error', message: 'unexpected failure', fields: { error: this.cause } };
  }
}
