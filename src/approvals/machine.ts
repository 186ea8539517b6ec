/**
 * The approval state machine (PRODUCT §5), pure: the states, the transitions between them, and
 * `decideClick`, which says whether an Approve, Reject or Cancel click is accepted and, when it is
 * not, why in a sentence for the clicker. The service turns an accepted decision into one
 * conditional update, so this module never touches the database or the clock.
 */
import type { JsonValue } from '../state/canonical-json.js';

export const APPROVAL_STATES = [
  'pending',
  'approved',
  'executing',
  'succeeded',
  'failed',
  'rejected',
  'expired',
  'cancelled',
  'unknown',
] as const;

export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** States that hold the lock "one open request per operation and target". */
export const OPEN_STATES = ['pending', 'approved', 'executing'] as const satisfies readonly ApprovalState[];

export type OpenApprovalState = (typeof OPEN_STATES)[number];

/** Every allowed move; anything else is refused here and by a trigger in the database. */
export const TRANSITIONS: { readonly [S in ApprovalState]: readonly ApprovalState[] } = {
  pending: ['approved', 'rejected', 'expired', 'cancelled'],
  // `unknown` when the bot stopped after the approval and no replica ever started it.
  approved: ['executing', 'unknown'],
  executing: ['succeeded', 'failed', 'unknown'],
  succeeded: [],
  failed: [],
  rejected: [],
  expired: [],
  cancelled: [],
  // The bot stopped while it ran: only a person checking the platform can say what happened.
  unknown: [],
};

export function canTransition(from: ApprovalState, to: ApprovalState): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isOpenState(state: ApprovalState): state is OpenApprovalState {
  return (OPEN_STATES as readonly ApprovalState[]).includes(state);
}

export function isFinalState(state: ApprovalState): boolean {
  return TRANSITIONS[state].length === 0;
}

export const CLICK_ACTIONS = ['approve', 'reject', 'cancel'] as const;

export type ClickAction = (typeof CLICK_ACTIONS)[number];

/** One approver's approval; each approver appears at most once. */
export interface ApprovalVote {
  userId: string;
  at: Date;
}

/** What an execution reported; `detail` is shown on the card and audited, so it never holds a secret. */
export interface ExecutionResult {
  ok: boolean;
  detail: string;
}

export interface ApprovalRequest {
  /** `ap_` and 16 hex digits: random, so a button value cannot be guessed. */
  id: string;
  operation: string;
  /** The object the operation changes (pull zone id, database id); the lock is per operation and target. */
  target: string;
  /** The exact parameters it will run with; never a secret. */
  params: Record<string, JsonValue>;
  /** SHA-256 (hex) of the canonical JSON of `params`. */
  paramsDigest: string;
  requester: string;
  channelId: string;
  reason: string;
  state: ApprovalState;
  createdAt: Date;
  expiresAt: Date;
  /** Distinct approvals needed; the requester never counts. */
  required: number;
  /** The policy roles whose members may approve, for the card and refusals. */
  approverRoles: string[];
  /** The user, group or "*" ids in those roles when the request was made. */
  approverIds: string[];
  /** Each approver types the target id to approve. */
  confirm: boolean;
  approvals: ApprovalVote[];
  /** Who moved it out of `pending` (the last approver, the rejecter, the requester); null for expiry. */
  decidedBy: string | null;
  decidedAt: Date | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  result: ExecutionResult | null;
  card: { channel: string; ts: string } | null;
  /** Bumped by every state change; the conditional updates compare it. */
  version: number;
}

/** What `decideClick` reads of a request. */
export type ClickableRequest = Pick<
  ApprovalRequest,
  | 'target'
  | 'requester'
  | 'state'
  | 'expiresAt'
  | 'required'
  | 'approverRoles'
  | 'confirm'
  | 'approvals'
  | 'decidedBy'
  | 'decidedAt'
  | 'finishedAt'
>;

export interface ApprovalClick {
  userId: string;
  action: ClickAction;
  /** Whether the rule stored with the request names the clicker as an approver, resolved at click time. */
  isApprover: boolean;
  /**
   * Whether the policy in force at the click names the clicker as an approver too (someone
   * removed from it since the request was made no longer counts). Omitted: not checked here.
   */
  isApproverNow?: boolean;
  /** What the approver typed in the confirmation modal (rules with `confirm: true`). */
  confirmation?: string;
}

export const CLICK_REFUSALS = [
  /** The clicker asked for this request: nobody approves (or rejects) their own. */
  'own-request',
  /** The clicker is not an approver under the request's rule, or not under the policy in force now. */
  'not-approver',
  /** The clicker has already approved; each approver counts once. */
  'duplicate-approval',
  /** Someone or something already decided: approved, rejected, expired, cancelled, ran. */
  'not-pending',
  /** Still pending in the database, but its expiry has passed. */
  'expired',
  /** A `confirm: true` rule, and the typed text is not the target id. */
  'confirmation-mismatch',
  /** Only the requester may cancel. */
  'not-requester',
] as const;

export type ClickRefusalReason = (typeof CLICK_REFUSALS)[number];

/** How the audit log names an accepted click. */
export type ClickOutcome = 'approved' | 'approval-recorded' | 'rejected' | 'cancelled';

export interface ClickAccepted {
  accepted: true;
  action: ClickAction;
  outcome: ClickOutcome;
  /** `pending` when an approval was recorded but more are needed. */
  to: ApprovalState;
  approvals: ApprovalVote[];
  decidedBy: string | null;
  decidedAt: Date | null;
}

export interface ClickRefused {
  accepted: false;
  reason: ClickRefusalReason;
  /** One sentence for the clicker (Slack mrkdwn: `<@U…>` mentions our own ids only). */
  message: string;
}

export type ClickDecision = ClickAccepted | ClickRefused;

const pad = (n: number) => String(n).padStart(2, '0');

/** `14:02 UTC`, with the date in front when it is not today (UTC) any more. */
export function formatUtc(at: Date, now: Date): string {
  const time = `${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())} UTC`;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return day(at) === day(now) ? time : `${day(at)} ${time}`;
}

const mention = (userId: string) => `<@${userId}>`;

function joinNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export function isExpired(request: Pick<ApprovalRequest, 'expiresAt'>, now: Date): boolean {
  return now.getTime() >= request.expiresAt.getTime();
}

/** The sentence a late clicker reads: who decided and when. */
export function describeDecided(request: ClickableRequest, now: Date): string {
  const when = (at: Date | null) => (at ? ` at ${formatUtc(at, now)}` : '');
  const approvers = joinNames(request.approvals.map((vote) => mention(vote.userId)));
  const approved = `This request was already approved by ${approvers || 'its approvers'}${when(request.decidedAt)}`;
  switch (request.state) {
    case 'pending':
      return 'This request is still waiting for approval.';
    case 'approved':
      return `${approved}.`;
    case 'executing':
      return `${approved}; it is running now.`;
    case 'succeeded':
      return `${approved}; it ran and succeeded${when(request.finishedAt)}.`;
    case 'failed':
      return `${approved}; it ran and failed${when(request.finishedAt)}.`;
    case 'unknown':
      return `${approved}; the bot stopped while it ran, so check the platform for its result.`;
    case 'rejected':
      return `This request was already rejected by ${request.decidedBy ? mention(request.decidedBy) : 'an approver'}${when(request.decidedAt)}.`;
    case 'expired':
      return `This request already expired at ${formatUtc(request.expiresAt, now)}.`;
    case 'cancelled':
      return `This request was already cancelled by the requester${when(request.decidedAt)}.`;
  }
}

const refuse = (reason: ClickRefusalReason, message: string): ClickRefused => ({
  accepted: false,
  reason,
  message,
});

function approverRoleText(request: ClickableRequest): string {
  return request.approverRoles.length > 0
    ? `members of ${joinNames(request.approverRoles)}`
    : 'its approvers';
}

/** Whether `click` is accepted on `request` at `now`, and what it changes; the first refusal that applies wins. */
export function decideClick(request: ClickableRequest, click: ApprovalClick, now: Date): ClickDecision {
  if (request.state !== 'pending') return refuse('not-pending', describeDecided(request, now));
  if (isExpired(request, now))
    return refuse('expired', `This request expired at ${formatUtc(request.expiresAt, now)}.`);

  if (click.action === 'cancel') {
    if (click.userId !== request.requester)
      return refuse(
        'not-requester',
        `Only the requester (${mention(request.requester)}) can cancel this request.`,
      );
    return {
      accepted: true,
      action: 'cancel',
      outcome: 'cancelled',
      to: 'cancelled',
      approvals: request.approvals,
      decidedBy: click.userId,
      decidedAt: now,
    };
  }

  if (click.userId === request.requester)
    return refuse(
      'own-request',
      click.action === 'approve'
        ? 'You requested this, so you cannot approve it; another approver must.'
        : 'You requested this; use Cancel to withdraw it.',
    );
  if (!click.isApprover)
    return refuse(
      'not-approver',
      `Only ${approverRoleText(request)} can ${click.action} this request: approvers are those named when this request was made who are still approvers under the policy in force now.`,
    );
  if (click.isApproverNow === false)
    return refuse(
      'not-approver',
      `You were among the approvers when this request was made, but the policy in force now does not name you, so your click does not count. Only ${approverRoleText(request)} who are still approvers can ${click.action} it.`,
    );

  if (click.action === 'reject')
    return {
      accepted: true,
      action: 'reject',
      outcome: 'rejected',
      to: 'rejected',
      approvals: request.approvals,
      decidedBy: click.userId,
      decidedAt: now,
    };

  const earlier = request.approvals.find((vote) => vote.userId === click.userId);
  if (earlier) {
    const missing = request.required - request.approvals.length;
    return refuse(
      'duplicate-approval',
      `You already approved this at ${formatUtc(earlier.at, now)}; each approver counts once, and it needs ${missing} more from someone else.`,
    );
  }
  if (request.confirm) {
    // Surrounding spaces are a typing accident, anything else must match exactly.
    const typed = click.confirmation?.trim();
    if (typed !== request.target)
      return refuse(
        'confirmation-mismatch',
        typed
          ? `What you typed is not the target id; type \`${request.target}\` exactly to approve.`
          : `Type the target id \`${request.target}\` to approve.`,
      );
  }

  const approvals = [...request.approvals, { userId: click.userId, at: now }];
  const complete = approvals.length >= request.required;
  return {
    accepted: true,
    action: 'approve',
    outcome: complete ? 'approved' : 'approval-recorded',
    to: complete ? 'approved' : 'pending',
    approvals,
    decidedBy: complete ? click.userId : null,
    decidedAt: complete ? now : null,
  };
}
