import { EdgeopsError } from '../errors.js';

export type ApprovalErrorKind =
  /** The approvals table could not be read or written. */
  | 'approvals-unavailable'
  /** A stored request has a column the bot cannot read. */
  | 'approval-unreadable'
  /** A caller passed a request, a click or an id the service refuses: a bug of ours, never the user's. */
  | 'approval-invalid'
  /** The request kept changing under the step, round after round. */
  | 'approval-contended';

const USER_MESSAGES: Record<ApprovalErrorKind, string> = {
  'approvals-unavailable':
    "The bot's state store is unavailable, so the approval request could not be read or changed. Try again in a minute.",
  'approval-unreadable': "An approval request in the bot's state store could not be read.",
  'approval-invalid': 'The approval request could not be handled, through a fault of ours.',
  'approval-contended': 'The approval request kept changing as this ran. Try again in a minute.',
};

/**
 * The approvals table could not be read or written, or a caller passed an invalid value. The
 * message is for the log; people read the kind's words, with a correlation id.
 */
export class ApprovalError extends EdgeopsError {
  override name = 'ApprovalError';
  readonly outcome = 'error';
  readonly unexpected = true;

  constructor(
    readonly kind: ApprovalErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get userMessage(): string {
    return USER_MESSAGES[this.kind];
  }
}
