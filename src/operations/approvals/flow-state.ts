/**
 * What every verb of the approval flow is handed: the approval service, the policy, the gated
 * operations by id and the clock; and what several verbs do with them: redraw a card, tell the
 * requester how their request ended, and judge whether someone may approve.
 */
import { type ApprovalRequest, isEscalated } from '../../approvals/machine.js';
import type { ApprovalService } from '../../approvals/service.js';
import type { PolicyAuthorizer } from '../../policy/authorizer.js';
import type { GroupMembership } from '../../policy/groups.js';
import { isOperationId } from '../../policy/operation-ids.js';
import type { ReplyButton } from '../../reply/model.js';
import type { SecretMessages } from '../../state/secret-messages.js';
import type { Logger } from '../../telemetry/log.js';
import type { Messenger } from '../engine/ports.js';
import { APPROVAL_ACTIONS, type ApprovalCard, approvalCard } from './card.js';
import type { GatedOperation } from './gate.js';
import { outcomeNotice } from './notices.js';

export interface FlowState {
  service: ApprovalService;
  authorizer: PolicyAuthorizer;
  groups: GroupMembership;
  logger: Logger;
  now: () => number;
  /** The gated operations by id, as they were registered. */
  gated: Map<string, GatedOperation>;
  /** An execution running longer than this is taken as interrupted by a crash. */
  staleExecutionMs: number;
  /** The DMs that delivered secrets, whose readers the sweep reminds to delete them. */
  secretMessages?: SecretMessages;
}

/** Read for someone who sees only their own business, so that theirs are found among many. */
export const WAITING_READ_YOURS = 200;

/** The gated operation a request names: every one is registered before the first request. */
export function gatedOperation(state: FlowState, operation: string): GatedOperation {
  const found = state.gated.get(operation);
  if (!found) throw new Error(`no gated operation ${operation}`);
  return found;
}

export const cardOf = (state: FlowState, request: ApprovalRequest): ApprovalCard =>
  approvalCard(request, state.gated.get(request.operation), new Date(state.now()));

export async function updateCard(
  state: FlowState,
  surface: Messenger,
  request: ApprovalRequest,
): Promise<void> {
  if (!request.card) return;
  try {
    await surface.update(
      { channelId: request.card.channel, ts: request.card.ts },
      cardOf(state, request).card,
    );
  } catch (error) {
    state.logger.warn('approval card could not be updated', { approvalId: request.id, error });
  }
}

/**
 * Tells the requester by DM how their request ended. Called by whoever made the transition
 * (one conditional UPDATE has one winner), so each outcome is told once.
 */
export async function tellRequester(
  state: FlowState,
  surface: Messenger,
  request: ApprovalRequest,
): Promise<void> {
  const notice = outcomeNotice(request, state.gated.get(request.operation), new Date(state.now()));
  if (!notice) return;
  await surface
    .sendDirect(request.requester, notice)
    .catch((error: unknown) =>
      state.logger.warn('the requester could not be told the outcome', { approvalId: request.id, error }),
    );
}

/** Whether the request's rule and the policy in force name a user, as the state machine judges a click. */
export interface ApproverStatus {
  isApprover: boolean;
  isApproverNow: boolean;
  isEscalationApprover: boolean;
  isEscalationApproverNow: boolean;
}

/**
 * Whether the rule stored with the request names the user (as an approver, and in its
 * escalation role), and whether the policy in force now does.
 */
export async function approverStatus(
  state: FlowState,
  request: ApprovalRequest,
  userId: string,
): Promise<ApproverStatus> {
  const escalationIds = request.escalation?.ids ?? [];
  const groupIds = [...request.approverIds, ...escalationIds].filter((id) => id.startsWith('S'));
  const membership = groupIds.length > 0 ? await state.groups.groupsOf(userId, groupIds) : new Set<string>();
  const names = (ids: readonly string[]) =>
    ids.some((id) => id === '*' || id === userId || membership.has(id));
  const operation = request.operation;
  const escalation = names(escalationIds);
  if (!isOperationId(operation))
    return {
      isApprover: names(request.approverIds),
      isApproverNow: false,
      isEscalationApprover: escalation,
      isEscalationApproverNow: false,
    };
  return {
    isApprover: names(request.approverIds),
    isApproverNow: await state.authorizer.isApproverNow(operation, userId),
    isEscalationApprover: escalation,
    isEscalationApproverNow: escalation
      ? await state.authorizer.isEscalationApproverNow(operation, userId)
      : false,
  };
}

/** Whether the user may approve the pending request now: Approve and Reject are shown to them. */
export async function mayApprove(
  state: FlowState,
  request: ApprovalRequest,
  userId: string,
): Promise<boolean> {
  const status = await approverStatus(state, request, userId);
  if (status.isApprover && status.isApproverNow) return true;
  return (
    status.isEscalationApprover &&
    status.isEscalationApproverNow &&
    isEscalated(request, new Date(state.now()))
  );
}

/** The requester's own button beside a request they asked for. */
export const requesterButtons = (request: ApprovalRequest): ReplyButton[] => [
  {
    text: 'Cancel request',
    actionId: `${APPROVAL_ACTIONS.cancel}#${request.id}`,
    value: request.id,
    style: 'danger',
  },
];
