/**
 * An approved request, run once with its stored parameters: the approval service claims it, the
 * gated operation runs, secrets it makes go to the requester by DM only, and the card, the
 * channel and the requester are told what happened.
 */
import type { ExecutionReport } from '../../approvals/execution.js';
import type { ApprovalRequest } from '../../approvals/machine.js';
import { md, mention, nest } from '../../reply/markup.js';
import { inChannel } from '../../reply/model.js';
import type { RunContext } from '../engine/types.js';
import {
  deliverSecret,
  deliveryWords,
  type SecretDelivery,
  secretContext,
} from '../shared/secret-delivery.js';
import { type FlowState, gatedOperation, tellRequester, updateCard } from './flow-state.js';
import { sentence } from './notices.js';

/** Runs an approved request once and tells everyone concerned; returns what happened. */
export async function execute(
  state: FlowState,
  ctx: RunContext,
  request: ApprovalRequest,
): Promise<ExecutionReport> {
  const op = gatedOperation(state, request.operation);
  let delivery: SecretDelivery | undefined;
  const report = await state.service.executeApproved(
    request.id,
    async (params) => {
      const outcome = await op.execute(params, ctx, request);
      const secrets = outcome.secrets ?? [];
      if (secrets.length === 0) return { ok: outcome.ok, detail: outcome.detail };
      // Delivered before the result is recorded, so the card, the audit row and the approver
      // read what really happened to the secret.
      delivery = await deliverSecret(secretContext(ctx), ctx.surface, {
        to: request.requester,
        title: secrets.length === 1 ? 'Your new secret' : 'Your new secrets',
        about: md`From approved request ${request.id}: ${op.describe(params)}.`,
        secrets,
        ifLost: 'ask for the change again to get a new one',
      });
      return {
        ok: outcome.ok,
        detail: `${sentence(outcome.detail)} ${deliveryWords(delivery, secrets.length)}`,
      };
    },
    { correlationId: ctx.correlationId },
  );
  if (!report.ran) {
    state.logger.info('approved request not executed here', {
      approvalId: request.id,
      reason: report.reason,
    });
    return report;
  }
  const done = report.request;
  await updateCard(state, ctx.surface, done);
  if (op.answersItself) {
    if (ctx.userId !== done.requester) await tellRequester(state, ctx.surface, done);
    return report;
  }
  const headline = report.outcome.ok
    ? md`:white_check_mark: ${op.describe(done.params)}: done. ${report.outcome.detail}`
    : md`:x: ${op.describe(done.params)}: failed. ${sentence(report.outcome.detail)} It was not retried.`;
  await ctx.surface
    .postToChannel(
      done.channelId,
      inChannel(report.outcome.ok ? 'Approved change done' : 'Approved change failed', [
        { type: 'text', text: headline },
        ...(delivery?.delivered === false ? [{ type: 'text' as const, text: delivery.notice }] : []),
        { type: 'context', text: md`Request ${done.id}, asked by ${nest(mention(done.requester))}` },
      ]),
    )
    .catch((error: unknown) =>
      state.logger.warn('result could not be posted', { approvalId: done.id, error }),
    );
  if (ctx.userId !== done.requester) await tellRequester(state, ctx.surface, done);
  return report;
}
