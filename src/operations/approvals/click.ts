/**
 * A click on a card or a listing (Approve, Reject, Cancel), and the forms it may open first: the
 * typed target id of a rule with `confirm: true`, and Reject's reason. The click is judged by the
 * state machine and applied by the approval service; the card follows, and an approval that
 * completes the request runs it (execute.ts).
 */
import { REJECT_REASON_MAX } from '../../approvals/click.js';
import { type ApprovalRequest, decideClick } from '../../approvals/machine.js';
import { md, mention, nest } from '../../reply/markup.js';
import { ephemeral, type Reply } from '../../reply/model.js';
import type { ApprovalGate, RunContext } from '../engine/types.js';
import { execute } from './execute.js';
import { approverStatus, type FlowState, gatedOperation, tellRequester, updateCard } from './flow-state.js';
import { sentence } from './notices.js';
import { clickRefusalText, noSuchRequestText, notRunText, refusalReply } from './refusal-text.js';

/** The form an approver fills when the rule says `confirm: true`. */
export const CONFIRM_CALLBACK = 'approvals:confirm';
/** The form Reject opens, for the reason. */
export const REJECT_CALLBACK = 'approvals:reject';

/** What was clicked, on which request, with a form's value once it was filled. */
export type ClickRequest = Parameters<ApprovalGate['click']>[1];

/**
 * Applies a click, or opens the form it needs first when the click would be accepted, and says
 * what came of it; an approval that completes the request runs it before the answer.
 */
export async function click(
  state: FlowState,
  ctx: RunContext,
  input: ClickRequest,
): Promise<Reply | undefined> {
  const request = await state.service.get(input.requestId);
  if (!request) return refusalReply(noSuchRequestText(input.requestId));
  const status = await approverStatus(state, request, ctx.userId);
  const approveNeedsForm = input.action === 'approve' && request.confirm && input.confirmation === undefined;
  const rejectNeedsForm = input.action === 'reject' && input.reason === undefined;
  if (approveNeedsForm || rejectNeedsForm) {
    // The click is decided before any form opens: one that would be refused is refused now,
    // without asking for a typed id or a reason first. A form's own value is taken as given.
    const decision = decideClick(
      request,
      {
        userId: ctx.userId,
        action: input.action,
        ...status,
        ...(approveNeedsForm ? { confirmation: request.target } : {}),
      },
      new Date(state.now()),
    );
    if (decision.accepted) {
      await ctx.surface.openModal(
        approveNeedsForm ? confirmForm(state, request) : rejectForm(state, request),
      );
      return undefined;
    }
  }
  const result = await state.service.click({
    requestId: request.id,
    userId: ctx.userId,
    action: input.action,
    ...status,
    confirmation: input.confirmation,
    reason: input.reason,
    correlationId: ctx.correlationId,
  });
  if (!result.ok) {
    if (result.request && result.request.state !== request.state)
      await updateCard(state, ctx.surface, result.request);
    if (result.request && result.expiredNow) await tellRequester(state, ctx.surface, result.request);
    return refusalReply(clickRefusalText(result, new Date(state.now())));
  }
  await updateCard(state, ctx.surface, result.request);
  if (result.state === 'rejected') await tellRequester(state, ctx.surface, result.request);
  const what = gatedOperation(state, request.operation).describe(request.params);
  if (result.state === 'approved') {
    const report = await execute(state, ctx, result.request);
    if (!report.ran)
      return ephemeral('Approved', [
        {
          type: 'text',
          text: md`:white_check_mark: You approved *${what}*. ${nest(notRunText(report, new Date(state.now())))}`,
        },
      ]);
    // The approver is told the result as it is: a failed change is never reported as run.
    return report.outcome.ok
      ? ephemeral('Approved and done', [
          {
            type: 'text',
            text: md`:white_check_mark: You approved *${what}*; it ran: ${report.outcome.detail}`,
          },
        ])
      : ephemeral('Approved, and the change failed', [
          {
            type: 'text',
            text: md`:x: You approved *${what}*, and it failed: ${sentence(report.outcome.detail)} It was not retried.`,
          },
        ]);
  }
  const said =
    result.action === 'cancel'
      ? md`Request ${request.id} is cancelled.`
      : result.action === 'reject'
        ? md`:no_entry: You rejected *${what}*${nest(result.request.decisionReason ? md`: ${result.request.decisionReason}` : md`, with no reason given`)}. ${nest(mention(request.requester))} is told by DM.`
        : md`:ballot_box_with_check: Your approval of *${what}* is recorded: ${result.request.approvals.length} of ${result.request.required}.`;
  return ephemeral('Recorded', [{ type: 'text', text: said }]);
}

/** The form an approver fills when the rule says `confirm: true`: the target id, typed. */
const confirmForm = (state: FlowState, request: ApprovalRequest) => ({
  callbackId: CONFIRM_CALLBACK,
  title: 'Confirm approval',
  submit: 'Approve',
  privateMetadata: request.id,
  intro: md`To approve *${gatedOperation(state, request.operation).describe(request.params)}*, type the target id exactly: \`${request.target}\``,
  fields: [{ id: 'confirmation', label: 'Target id', kind: 'text' as const }],
});

/** The form Reject opens, for the reason. */
const rejectForm = (state: FlowState, request: ApprovalRequest) => ({
  callbackId: REJECT_CALLBACK,
  title: 'Reject request',
  submit: 'Reject',
  privateMetadata: request.id,
  intro: md`Reject *${gatedOperation(state, request.operation).describe(request.params)}*, asked by ${nest(mention(request.requester))}? The reason goes on the card, to the requester and into the audit log.`,
  fields: [
    {
      id: 'reason',
      label: 'Reason',
      kind: 'text' as const,
      optional: true,
      hint: `Up to ${REJECT_REASON_MAX} characters, e.g. not during the freeze.`,
    },
  ],
});
