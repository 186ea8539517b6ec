/**
 * The approval state machine (PRODUCT §5), pure: the states, the transitions between them, and
 * `decideClick`, which says whether an Approve, Reject or Cancel click is accepted and, when it is
 * not, why: a reason code and the facts behind it, which operations/approvals/ puts into words.
 * The service turns an accepted decision into one conditional update, so this module never
 * touches the database or the clock.
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
  /** Why it was rejected, as the rejecter typed it; null when no reason was given. */
  decisionReason: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  result: ExecutionResult | null;
  card: { channel: string; ts: string } | null;
  /** When the halfway reminder was posted in the card's thread; null until then. */
  remindedAt: Date | null;
  /**
   * The rule's `escalate_to` role and the ids in it when the request was made: its members may
   * approve too from half the time to live on (`escalatesAt`); null when the rule names none.
   */
  escalation: ApprovalEscalation | null;
  /** Bumped by every state change; the conditional updates compare it. */
  version: number;
}

export interface ApprovalEscalation {
  role: string;
  ids: string[];
}

/** Half the time to live, the moment the reminder goes out and the escalation role may approve. */
export function escalatesAt(request: Pick<ApprovalRequest, 'createdAt' | 'expiresAt'>): Date {
  const created = request.createdAt.getTime();
  return new Date(created + Math.ceil((request.expiresAt.getTime() - created) / 2));
}

/** Whether the escalation role may approve at `now`: half the time to live has passed. */
export function isEscalated(
  request: Pick<ApprovalRequest, 'createdAt' | 'expiresAt' | 'escalation'>,
  now: Date,
): boolean {
  return request.escalation !== null && now.getTime() >= escalatesAt(request).getTime();
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
  | 'createdAt'
  | 'escalation'
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
  /**
   * Whether the clicker is in the request's escalation role as stored (`isEscalationApprover`)
   * and under the policy in force (`isEscalationApproverNow`, omitted: not checked here).
   */
  isEscalationApprover?: boolean;
  isEscalationApproverNow?: boolean;
  /** What the approver typed in the confirmation modal (rules with `confirm: true`). */
  confirmation?: string;
  /** Why, for a Reject: what the rejecter typed in its form; empty or absent when none was given. */
  reason?: string;
}

/** An approval request's id: `ap_` and 16 hex digits (64 random bits). */
export const APPROVAL_ID_PATTERN = /^ap_[0-9a-f]{16}$/;

/** The clicks only approvers make. */
export type DecisionAction = Exclude<ClickAction, 'cancel'>;

/** What a request that is no longer pending says about how it was decided (and ran). */
export type DecidedFacts = Pick<
  ApprovalRequest,
  'state' | 'approvals' | 'decidedBy' | 'decidedAt' | 'finishedAt' | 'expiresAt'
>;

/** Why a click is refused, with the facts the clicker is told; operations/ writes the sentence. */
export type ClickRefusal =
  /** The clicker asked for this request: nobody approves (or rejects) their own. */
  | { reason: 'own-request'; action: DecisionAction }
  /**
   * The clicker is not an approver under the request's rule or, when `noLongerNamed`, was one
   * but the policy in force now does not name them.
   */
  | { reason: 'not-approver'; action: DecisionAction; approverRoles: string[]; noLongerNamed: boolean }
  /**
   * The clicker is in the request's escalation role, which may approve only from half the time
   * to live on (`from`), and that moment has not come.
   */
  | { reason: 'not-yet-escalated'; action: DecisionAction; role: string; from: Date }
  /** The clicker has already approved; each approver counts once. */
  | { reason: 'duplicate-approval'; approvedAt: Date; missing: number }
  /** Someone or something already decided: approved, rejected, expired, cancelled, ran. */
  | { reason: 'not-pending'; decided: DecidedFacts }
  /** Still pending in the database, but its expiry has passed. */
  | { reason: 'expired'; expiresAt: Date }
  /** A `confirm: true` rule, and the typed text (if any) is not the target id. */
  | { reason: 'confirmation-mismatch'; target: string; typed: boolean }
  /** Only the requester may cancel. */
  | { reason: 'not-requester'; requester: string };

export type ClickRefusalReason = ClickRefusal['reason'];

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
  /** The rejecter's reason; null for every other click and for a Reject without one. */
  decisionReason: string | null;
}

export type ClickRefused = { accepted: false } & ClickRefusal;

export type ClickDecision = ClickAccepted | ClickRefused;

export function isExpired(request: Pick<ApprovalRequest, 'expiresAt'>, now: Date): boolean {
  return now.getTime() >= request.expiresAt.getTime();
}

const refuse = (refusal: ClickRefusal): ClickRefused => ({ accepted: false, ...refusal });

const decidedFacts = (request: ClickableRequest): DecidedFacts => ({
  state: request.state,
  approvals: request.approvals,
  decidedBy: request.decidedBy,
  decidedAt: request.decidedAt,
  finishedAt: request.finishedAt,
  expiresAt: request.expiresAt,
});

/** Whether `click` is accepted on `request` at `now`, and what it changes; the first refusal that applies wins. */
export function decideClick(request: ClickableRequest, click: ApprovalClick, now: Date): ClickDecision {
  if (request.state !== 'pending') return refuse({ reason: 'not-pending', decided: decidedFacts(request) });
  if (isExpired(request, now)) return refuse({ reason: 'expired', expiresAt: request.expiresAt });

  if (click.action === 'cancel') {
    if (click.userId !== request.requester)
      return refuse({ reason: 'not-requester', requester: request.requester });
    return {
      accepted: true,
      action: 'cancel',
      outcome: 'cancelled',
      to: 'cancelled',
      approvals: request.approvals,
      decidedBy: click.userId,
      decidedAt: now,
      decisionReason: null,
    };
  }

  if (click.userId === request.requester) return refuse({ reason: 'own-request', action: click.action });
  const named = click.isApprover && click.isApproverNow !== false;
  const escalation =
    !named &&
    request.escalation !== null &&
    click.isEscalationApprover === true &&
    click.isEscalationApproverNow !== false;
  if (escalation && request.escalation !== null && !isEscalated(request, now))
    return refuse({
      reason: 'not-yet-escalated',
      action: click.action,
      role: request.escalation.role,
      from: escalatesAt(request),
    });
  if (!named && !escalation)
    return refuse({
      reason: 'not-approver',
      action: click.action,
      approverRoles: request.approverRoles,
      noLongerNamed: click.isApprover,
    });

  if (click.action === 'reject')
    return {
      accepted: true,
      action: 'reject',
      outcome: 'rejected',
      to: 'rejected',
      approvals: request.approvals,
      decidedBy: click.userId,
      decidedAt: now,
      decisionReason: click.reason?.trim() || null,
    };

  const earlier = request.approvals.find((vote) => vote.userId === click.userId);
  if (earlier)
    return refuse({
      reason: 'duplicate-approval',
      approvedAt: earlier.at,
      missing: request.required - request.approvals.length,
    });
  if (request.confirm) {
    // Surrounding spaces are a typing accident, anything else must match exactly.
    const typed = click.confirmation?.trim();
    if (typed !== request.target)
      return refuse({ reason: 'confirmation-mismatch', target: request.target, typed: Boolean(typed) });
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
    decisionReason: null,
  };
}
