/** The errors operations throw for what the user reads in full: refusals and stated failures. */
import { EdgeopsError, type FailureOutcome } from '../../errors.js';
import type { Reply } from '../../reply/model.js';

/** Thrown by operations for a refusal that is the user's to fix; shown as is. */
export class UserFacingError extends EdgeopsError {
  override name = 'UserFacingError';
  readonly kind: string = 'refused';
  readonly outcome: FailureOutcome = 'refused';
  readonly unexpected: boolean = false;

  constructor(
    message: string,
    /** The whole reply to show instead of the message alone (e.g. with Cancel buttons). */
    override readonly reply?: Reply,
  ) {
    super(message);
  }

  get userMessage(): string {
    return this.message;
  }
}

/** A failure the user is told about in full (it says what failed); audited as failed. */
export class OperationFailedError extends UserFacingError {
  override name = 'OperationFailedError';
  override readonly kind = 'failed';
  override readonly outcome = 'failed';
  override readonly unexpected: boolean;

  /** `unexpected`: the cause is ours or Slack's, not the user's; the reply carries a correlation id. */
  constructor(
    message: string,
    unexpected = false,
    /** The whole reply to show instead of the message alone (e.g. with a button to retry). */
    reply?: Reply,
  ) {
    super(message, reply);
    this.unexpected = unexpected;
  }
}
