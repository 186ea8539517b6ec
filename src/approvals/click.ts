/**
 * A click on a pending request: judged by the state machine, applied as one conditional UPDATE
 * on the version it was judged on, decided again on what another click left when it lost the
 * race, and audited, refused or not.
 */
import { z } from 'zod';
import { ApprovalError } from './errors.js';
import {
  type ApprovalClick,
  type ApprovalRequest,
  type ApprovalState,
  CLICK_ACTIONS,
  type ClickAction,
  type ClickOutcome,
  type ClickRefusal,
  decideClick,
} from './machine.js';
import { getRequest, IdSchema, record, redact, type ServiceState } from './service-state.js';
import { expire } from './sweep.js';

/** The longest reason a Reject may carry: it goes on the card, in a DM and into the audit row. */
export const REJECT_REASON_MAX = 500;

export const ClickInputSchema = z.object({
  /** From a button value: untrusted, so anything that is not an approval id is simply not found. */
  requestId: z.string(),
  userId: z.string().min(1),
  action: z.enum(CLICK_ACTIONS),
  isApprover: z.boolean(),
  isApproverNow: z.boolean().optional(),
  isEscalationApprover: z.boolean().optional(),
  isEscalationApproverNow: z.boolean().optional(),
  confirmation: z.string().optional(),
  /** A Reject's reason, from its form. */
  reason: z.string().max(REJECT_REASON_MAX).optional(),
  correlationId: z.string().min(1),
});
export type ClickInput = z.input<typeof ClickInputSchema>;

export type ClickResult =
  | { ok: true; action: ClickAction; outcome: ClickOutcome; state: ApprovalState; request: ApprovalRequest }
  /**
   * Refused, with the facts behind it; `request` is the request as it is now: re-render its card
   * from it. `expiredNow` when this click closed a request whose expiry had passed (tell the requester).
   */
  | ({ ok: false; request: ApprovalRequest; expiredNow?: boolean } & ClickRefusal)
  | { ok: false; reason: 'not-found'; request?: undefined };

/** Each lost race means another approval was recorded, so this bounds only a misbehaving database. */
const MAX_CLICK_ROUNDS = 100;

/** Applies a click as the state machine decides it, on the request as it is when the UPDATE runs. */
export async function applyClick(state: ServiceState, input: ClickInput): Promise<ClickResult> {
  const parsed = ClickInputSchema.safeParse(input);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') ?? 'click';
    throw new ApprovalError('approval-invalid', `approval click is invalid at ${field}`, {
      cause: parsed.error,
    });
  }
  const { requestId, correlationId } = parsed.data;
  const click: ApprovalClick = {
    userId: parsed.data.userId,
    action: parsed.data.action,
    isApprover: parsed.data.isApprover,
    isApproverNow: parsed.data.isApproverNow,
    isEscalationApprover: parsed.data.isEscalationApprover,
    isEscalationApproverNow: parsed.data.isEscalationApproverNow,
    confirmation: parsed.data.confirmation,
    reason: parsed.data.reason === undefined ? undefined : redact(state, parsed.data.reason),
  };
  const notFound: ClickResult = { ok: false, reason: 'not-found' };
  if (!IdSchema.safeParse(requestId).success) return notFound;

  let current = await getRequest(state, requestId);
  for (let round = 1; round <= MAX_CLICK_ROUNDS; round++) {
    if (current === null) return notFound;
    const at = state.now();
    const decision = decideClick(current, click, at);
    if (!decision.accepted) {
      let request = current;
      let expiredNow = false;
      if (decision.reason === 'expired') {
        // Close it now rather than wait for the sweep; the caller re-renders the card from `request`.
        const [expired] = await expire(state, correlationId, 'on a late click', request.id);
        expiredNow = expired !== undefined;
        request = expired ?? (await getRequest(state, request.id)) ?? request;
      }
      await record(state, request, 'approval-refused', {
        userId: click.userId,
        correlationId,
        detail: `${click.action}: ${decision.reason}`,
      });
      const { accepted, ...refusal } = decision;
      return { ok: false, ...refusal, request, ...(expiredNow ? { expiredNow } : {}) };
    }

    const outcome = await state.approvals.decide(
      current.id,
      current.version,
      {
        state: decision.to,
        approvals: decision.approvals,
        decidedBy: decision.decidedBy,
        decidedAt: decision.decidedAt,
        decisionReason: decision.decisionReason,
      },
      at,
    );
    if (outcome.rowsAffected !== 1 || outcome.request === null) {
      // Someone else changed it first: decide again on what they left.
      current = outcome.request;
      continue;
    }
    const request = outcome.request;
    const count = request.approvals.length;
    const detail = {
      approved: `approved by ${request.approvals.map((vote) => vote.userId).join(', ')} (${count} of ${request.required})`,
      'approval-recorded': `${count} of ${request.required} approvals`,
      rejected: `rejected by ${click.userId}${request.decisionReason ? `; reason: ${request.decisionReason}` : '; no reason given'}`,
      cancelled: 'cancelled by the requester',
    }[decision.outcome];
    await record(state, request, decision.outcome, { userId: click.userId, correlationId, detail });
    return {
      ok: true,
      action: decision.action,
      outcome: decision.outcome,
      state: request.state,
      request,
    };
  }
  throw new ApprovalError(
    'approval-contended',
    `approval ${requestId} kept changing under the click; try again`,
  );
}
