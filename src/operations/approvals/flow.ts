/**
 * The two-person gate as people see it (PRODUCT §5): a request becomes a card in the
 * approvals channel, the requester gets a Cancel note, clicks are checked and applied by the
 * approval service, the card (drawn by card.ts) follows every transition, and an approved
 * change runs once with the stored parameters. A request whose card cannot be posted is
 * cancelled. Secrets an execution produces go to the requester by DM only.
 *
 * This file builds the state the verbs share (flow-state.ts) and hands it to each: request.ts
 * (submit), click.ts (clicks and their forms), execute.ts (an approved request run), list.ts
 * and show.ts (what `/edge approvals` shows), sweep.ts (expiry, reminders, crash recovery).
 */
import type { ApprovalRequest, ApprovalState } from '../../approvals/machine.js';
import type { ApprovalService } from '../../approvals/service.js';
import type { PolicyAuthorizer } from '../../policy/authorizer.js';
import type { GroupMembership } from '../../policy/groups.js';
import type { SecretMessages } from '../../state/secret-messages.js';
import type { Logger } from '../../telemetry/log.js';
import type { Messenger } from '../engine/ports.js';
import type { ApprovalGate } from '../engine/types.js';
import { click } from './click.js';
import { type FlowState, mayApprove } from './flow-state.js';
import type { GatedOperation } from './gate.js';
import { list } from './list.js';
import { openRequestRefusal, submit } from './request.js';
import { show } from './show.js';
import { showPending, sweep } from './sweep.js';

export interface ApprovalFlowOptions {
  service: ApprovalService;
  authorizer: PolicyAuthorizer;
  groups: GroupMembership;
  logger: Logger;
  now: () => number;
  /** An execution running longer than this is taken as interrupted by a crash. */
  staleExecutionMs?: number;
  /** The DMs that delivered secrets, whose readers the sweep reminds to delete them. */
  secretMessages?: SecretMessages;
}

/** The gate as operations use it, plus what the composition root and the sweep need. */
export interface ApprovalFlow extends ApprovalGate {
  register(operation: GatedOperation): void;
  /**
   * Shows every pending request's card again, with its buttons (a console started on a state
   * database that outlived the last session); returns how many.
   */
  showPending(messenger: Messenger): Promise<number>;
  /**
   * Expires stale requests and marks crashed executions unknown, updating their cards and telling
   * their requesters, and reminds the approvers of requests halfway to their expiry.
   */
  sweep(messenger: Messenger): Promise<void>;
  /** How many requests are in each state, for the metrics. */
  countByState(): Promise<Record<ApprovalState, number>>;
  /**
   * Whether the user may approve the pending request now, as a click would be judged: named by
   * the request's rule and by the policy in force, or in its escalation role once it applies.
   */
  mayApprove(request: ApprovalRequest, userId: string): Promise<boolean>;
}

export function createApprovalFlow(options: ApprovalFlowOptions): ApprovalFlow {
  const state: FlowState = {
    ...options,
    gated: new Map<string, GatedOperation>(),
    staleExecutionMs: options.staleExecutionMs ?? 2 * 60_000,
  };
  return {
    register(operation) {
      state.gated.set(operation.id, operation);
    },
    submit: (ctx, input) => submit(state, ctx, input),
    openRequestRefusal: (ctx, operation, target) => openRequestRefusal(state, ctx, operation, target),
    click: (ctx, input) => click(state, ctx, input),
    cancel: (ctx, requestId) => click(state, ctx, { action: 'cancel', requestId }),
    peek: (id) => state.service.get(id),
    list: (ctx, all, scope) => list(state, ctx, all, scope),
    show: (ctx, requestId) => show(state, ctx, requestId),
    mayApprove: (request, userId) => mayApprove(state, request, userId),
    countByState: () => state.service.countByState(),
    showPending: (surface) => showPending(state, surface),
    sweep: (surface) => sweep(state, surface),
  };
}
