/**
 * The one error base every domain error extends: what kind of failure it is, the words the person
 * who asked reads, and whether its cause is unknown to them. operations/engine/failure.ts is the one
 * place that turns any of them into a reply, an audit outcome and a log line.
 */

/** How the audit log and the metrics record a command that ended in this error. */
export type FailureOutcome =
  /** The user's to fix (a bad argument, a statement the database refused): shown as a warning. */
  | 'refused'
  /** The work was tried and failed (the platform said no, the network dropped). */
  | 'failed'
  /** Nothing was tried because the bot itself could not go on (its state store is down). */
  | 'error';

export abstract class EdgeopsError extends Error {
  /** A short machine-readable name of the failure, for logs, metrics and the audit row. */
  abstract readonly kind: string;
  /** Plain words for the person who asked: what went wrong and what to do. Never a secret. */
  abstract readonly userMessage: string;
  /** The cause is ours or the platform's, not the user's: the answer carries a correlation id. */
  abstract readonly unexpected: boolean;
  abstract readonly outcome: FailureOutcome;

  /** What the audit row says; the user's words unless a subclass knows better. */
  get detail(): string {
    return this.userMessage;
  }
}
