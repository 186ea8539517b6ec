/**
 * Requests closed without a click: pending ones whose expiry passed, executions a crash cut off
 * and approvals nobody started (marked unknown, never run again), and a request whose card could
 * not be posted; and the reminders due at half a request's time to live.
 */
import { ApprovalError } from './errors.js';
import type { ApprovalRequest } from './machine.js';
import {
  correlationOf,
  IdSchema,
  record,
  redact,
  type ServiceState,
  type StepOptions,
} from './service-state.js';
import type { Transition } from './transitions.js';

export interface RecoverOptions extends StepOptions {
  /**
   * Only executions started before this time. With several replicas, pass now minus the longest
   * an execution can take, so a replica starting up leaves the others' running work alone.
   */
  startedBefore?: Date;
  /**
   * Also requests approved before this time that no replica has started: the replica that
   * approved them starts at once, so one still waiting stopped in between. Left alone when unset.
   */
  approvedBefore?: Date;
}

/** What the card and the audit say about a request approved but never started (it never ran). */
export const NOT_STARTED_DETAIL =
  'approved, but the bot stopped before the change started: it did not run, and it will not run now; ask again if it is still needed';

/** Closes pending requests whose expiry has passed (only `id` when given) and audits each. */
export async function expire(
  state: ServiceState,
  correlationId: string,
  detail: string,
  id?: string,
): Promise<ApprovalRequest[]> {
  const expired = await state.approvals.expirePending(state.now(), id);
  for (const request of expired)
    await record(state, request, 'expired', {
      userId: request.requester,
      correlationId,
      detail: `expired at ${request.expiresAt.toISOString()} ${detail}`,
    });
  return expired;
}

/** Closes pending requests whose expiry has passed and returns them, so their cards can be updated. */
export async function expireStale(
  state: ServiceState,
  stepOptions?: StepOptions,
): Promise<ApprovalRequest[]> {
  return expire(state, correlationOf(stepOptions), 'by the expiry sweep');
}

/**
 * Marks executions interrupted by a crash, and approvals no replica started, `unknown` and
 * returns them; they are never run again.
 */
export async function recoverAfterCrash(
  state: ServiceState,
  recoverOptions?: RecoverOptions,
): Promise<ApprovalRequest[]> {
  const correlationId = correlationOf(recoverOptions);
  const { interrupted, notStarted } = await state.approvals.markUnknown({
    at: state.now(),
    executor: state.instanceId,
    startedBefore: recoverOptions?.startedBefore ?? null,
    approvedBefore: recoverOptions?.approvedBefore ?? null,
    notStartedResult: { ok: false, detail: NOT_STARTED_DETAIL },
  });
  const unknown: ApprovalRequest[] = [];
  for (const request of interrupted) {
    state.logger.warn('approved operation was interrupted; marked unknown', { approvalId: request.id });
    await record(state, request, 'unknown', {
      userId: request.requester,
      correlationId,
      detail: 'the bot stopped while this was running; check the platform before asking again',
    });
    unknown.push(request);
  }
  for (const request of notStarted) {
    state.logger.warn('approved operation never started; marked unknown', { approvalId: request.id });
    await record(state, request, 'unknown', {
      userId: request.requester,
      correlationId,
      detail: NOT_STARTED_DETAIL,
    });
    unknown.push(request);
  }
  return unknown;
}

/**
 * Cancels a pending request whose card could not be posted (nobody could see it to approve it),
 * with the reason in its audit row; false when it was no longer pending.
 */
export async function cancelUnposted(
  state: ServiceState,
  id: string,
  reason: string,
  stepOptions?: StepOptions,
): Promise<boolean> {
  if (!IdSchema.safeParse(id).success) throw new ApprovalError('approval-invalid', 'not an approval id');
  let cancelled: Transition;
  const at = state.now();
  try {
    cancelled = await state.approvals.cancelPending(id, at);
  } catch (error) {
    // The write may have committed before the error reached here. This step's cancel is
    // the one with nobody as its decider, at this step's time; the requester's own Cancel
    // (its card may be up already) names them, and stays theirs.
    const after = await state.approvals.get(id).catch(() => null);
    const ours =
      after?.state === 'cancelled' && after.decidedBy === null && after.decidedAt?.getTime() === at.getTime();
    if (!ours) throw error;
    cancelled = { rowsAffected: 1, request: after };
  }
  const { rowsAffected, request } = cancelled;
  if (rowsAffected !== 1 || request === null) return false;
  await record(state, request, 'cancelled', {
    userId: request.requester,
    correlationId: correlationOf(stepOptions),
    detail: redact(state, reason),
  });
  return true;
}

/**
 * The pending requests halfway to their expiry whose approvers were not reminded yet, each
 * marked reminded as it is returned: with several replicas, each goes to exactly one of them.
 */
export const claimReminders = (state: ServiceState): Promise<ApprovalRequest[]> =>
  state.approvals.claimReminders(state.now());
