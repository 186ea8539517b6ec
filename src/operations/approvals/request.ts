/**
 * A change asked for: run at once when the policy does not gate it, or stored as a request whose
 * card goes up in the approvals channel, the requester told how to cancel it. A request whose
 * card cannot be posted (or recorded) is cancelled, since nobody could approve it, and the
 * requester is told where it stands; an open request holding the same lock refuses a new one.
 */
import type { ApprovalRequest } from '../../approvals/machine.js';
import type { ApprovalService } from '../../approvals/service.js';
import type { ApprovalRequirement, Operation as PolicyOperation } from '../../policy/authorize.js';
import { channelRef, type Markup, md, mention, nest } from '../../reply/markup.js';
import { ephemeral, inChannel, type MessageRef, type Reply } from '../../reply/model.js';
import { counted } from '../../reply/words.js';
import type { Logger } from '../../telemetry/log.js';
import { formatDistanceStrict } from '../../time/date-fns.js';
import { denialReply } from '../engine/access-text.js';
import { OperationFailedError, UserFacingError } from '../engine/errors.js';
import type { Messenger } from '../engine/ports.js';
import type { ApprovalGate, RunContext } from '../engine/types.js';
import { deliveryErrorCode, goneFromChannel, isPostingRestricted } from '../shared/delivery-errors.js';
import { deliverSecret, deliveryWords, secretContext } from '../shared/secret-delivery.js';
import { APPROVAL_ACTIONS, cardFileMessage } from './card.js';
import {
  cardOf,
  type FlowState,
  gatedOperation,
  tellRequester,
  updateCard,
  WAITING_READ_YOURS,
} from './flow-state.js';
import { sentence } from './notices.js';
import { formatUtc, openRequestText, refusalReply } from './refusal-text.js';

/** What is asked for: the operation, its target and parameters, and the requester's reason. */
export type SubmitRequest = Parameters<ApprovalGate['submit']>[1];

/** Asks for approval, or runs at once when the policy does not gate the operation. */
export async function submit(
  state: FlowState,
  ctx: RunContext,
  input: SubmitRequest,
): Promise<Reply | undefined> {
  const op = gatedOperation(state, input.operation);
  const decision = await state.authorizer.decision(input.operation, ctx);
  if (!decision.allowed) return denialReply(decision);
  const approval = decision.approval;
  if (!approval && op.answersItself)
    // Held a moment ago, free now: the entry was not recorded to run here, so it is asked again.
    throw new UserFacingError('The policy changed as you asked; run the same command again.');
  if (!approval) {
    // Not gated by the policy: run now, with the same executor and the same secret handling.
    const outcome = await op.execute(input.params, ctx);
    const delivery = outcome.secrets?.length
      ? await deliverSecret(secretContext(ctx), ctx.surface, {
          to: ctx.userId,
          title: outcome.secrets.length === 1 ? 'Your new secret' : 'Your new secrets',
          about: md`From ${op.describe(input.params)}.`,
          secrets: outcome.secrets,
          ifLost: 'run the change again to get a new one',
        })
      : undefined;
    // A failure goes through the engine, so it is audited as failed and shown to the requester.
    if (!outcome.ok)
      throw new OperationFailedError(`${op.describe(input.params)}: failed. ${outcome.detail}`);
    const said = delivery?.delivered ? ` ${deliveryWords(delivery, outcome.secrets?.length ?? 1)}` : '';
    return inChannel('Change done', [
      {
        type: 'text',
        text: md`:white_check_mark: ${op.describe(input.params)}: done. ${sentence(outcome.detail)}${said}`,
      },
      ...(delivery?.delivered === false ? [{ type: 'text' as const, text: delivery.notice }] : []),
    ]);
  }
  const requirement: ApprovalRequirement = approval;
  const created = await state.service.request({
    operation: input.operation,
    target: input.target,
    lockPerRequester: op.lockPerRequester,
    params: input.params,
    requester: ctx.userId,
    channelId: ctx.channelId,
    reason: input.reason,
    requirement,
    correlationId: ctx.correlationId,
  });
  for (const old of created.expired) {
    await updateCard(state, ctx.surface, old);
    await tellRequester(state, ctx.surface, old);
  }
  if (!created.ok) return openRequestReply(state, ctx, created.existing);
  const request = created.request;
  const cardChannel = requirement.channel ?? ctx.channelId;
  const posted = await postCard(state, ctx, request, cardChannel);
  if (!posted.ok) return posted.reply;
  const requested = ephemeral(`Approval requested: ${op.describe(input.params)}`, [
    {
      type: 'text',
      text: md`:hourglass_flowing_sand: Approval requested: *${op.describe(input.params)}*. It needs ${counted(request.required, 'approval')} from ${requirement.approvers.join(', ')} and expires in ${formatDistanceStrict(request.expiresAt, new Date(state.now()))}.`,
    },
    {
      type: 'context',
      text: md`Request ${request.id}; the card is in ${nest(channelRef(cardChannel))}.`,
    },
    {
      type: 'actions',
      buttons: [
        { text: 'Cancel request', actionId: APPROVAL_ACTIONS.cancel, value: request.id, style: 'danger' },
      ],
    },
  ]);
  return { ...requested, requested: request.id };
}

/**
 * The refusal a new request for `operation` on `target` would get now, because an open request
 * holds its lock; undefined when none does (as far as the waiting requests read show).
 */
export async function openRequestRefusal(
  state: FlowState,
  ctx: RunContext,
  operation: PolicyOperation,
  target: string,
): Promise<Reply | undefined> {
  const perRequester = state.gated.get(operation)?.lockPerRequester === true;
  const waiting = await state.service.list({ limit: WAITING_READ_YOURS });
  const existing = waiting.find(
    (request) =>
      request.operation === operation &&
      request.target === target &&
      (!perRequester || request.requester === ctx.userId),
  );
  return existing ? openRequestReply(state, ctx, existing) : undefined;
}

/** The refusal of a request whose lock an open one holds, pointing to that one. */
const openRequestReply = (state: FlowState, ctx: RunContext, existing: ApprovalRequest): Reply =>
  refusalReply(openRequestText(existing, new Date(state.now()), ctx.userId), [
    {
      type: 'context',
      text: md`Open request ${existing.id}, asked by ${nest(mention(existing.requester))} (${existing.state}).`,
    },
  ]);

/**
 * Posts a new request's card (after the file with the parameters that do not fit on it). When
 * either cannot be posted, or the posted card cannot be recorded, the request is cancelled,
 * since nobody could see it to approve it or its card would never show the decision; a card
 * already posted then says so instead of offering buttons.
 */
async function postCard(
  state: FlowState,
  ctx: RunContext,
  request: ApprovalRequest,
  cardChannel: string,
): Promise<{ ok: true } | { ok: false; reply: Reply }> {
  const { card, file } = cardOf(state, request);
  let stage: 'file' | 'card' | 'record' = 'file';
  let ref: MessageRef | undefined;
  try {
    if (file) await ctx.surface.postToChannel(cardChannel, cardFileMessage(request, file));
    stage = 'card';
    ref = await ctx.surface.postToChannel(cardChannel, card);
    stage = 'record';
    if (ref) await state.service.setCard(request.id, ref.channelId, ref.ts);
    return { ok: true };
  } catch (error) {
    const reason =
      stage === 'record'
        ? {
            code: 'not recorded',
            why: 'the state database could not record it',
            todo: 'Ask again in a minute.',
          }
        : unpostedReason(error, stage);
    state.logger.warn(
      'approval card could not be posted or recorded; the request is cancelled if it can be',
      {
        approvalId: request.id,
        channel: cardChannel,
        slackError: reason.code,
        error,
      },
    );
    const fate = await cancelUnposted(
      state.service,
      state.logger,
      request,
      `the approval card could not be ${stage === 'record' ? 'recorded' : 'posted'} in ${cardChannel}: ${reason.why} (${reason.code})`,
      ctx.correlationId,
    );
    const where = nest(channelRef(cardChannel));
    if (fate === 'decided') {
      // Decided in the moment its card was up: the card shows where it stands, and the
      // requester is told that instead of "approval requested".
      const current = await state.service.get(request.id).catch(() => null);
      if (current && ref) await withdrawCard(state, ctx.surface, ref, request, cardOf(state, current).card);
      const now = current ? md`it is ${current.state}` : md`it is no longer waiting`;
      return {
        ok: false,
        reply: ephemeral(`Request ${request.id} was decided as its card went up`, [
          {
            type: 'text',
            text: md`Request ${request.id} was decided in the moment its card went up in ${where}: ${now}. You are told how it ends as for any request.`,
          },
        ]),
      };
    }
    const until = formatUtc(request.expiresAt, new Date(state.now()));
    const told: Record<Exclude<UnpostedFate, 'decided'>, { card: Markup; requester: Markup }> = {
      cancelled: {
        card: md`:heavy_multiplication_x: Request ${request.id} is cancelled: ${reason.why}. Nothing will run; ${nest(mention(request.requester))} may ask again.`,
        requester: md`Request ${request.id} is cancelled, so nothing is waiting for approval.`,
      },
      open: {
        card: md`:warning: Request ${request.id} could not be recorded on this card: ${reason.why}. It stays open until ${until}: decide it with \`/edge approvals ${request.id}\`.`,
        requester: md`Request ${request.id} could not be cancelled either, so it stays open until ${until}: approvers can still decide it with \`/edge approvals ${request.id}\`, and you can cancel it with \`/edge approvals cancel ${request.id}\` once the state database answers.`,
      },
      unsure: {
        card: md`:warning: Request ${request.id} could not be recorded on this card: ${reason.why}. It may still be open until ${until}: \`/edge approvals ${request.id}\` shows where it stands.`,
        requester: md`Whether request ${request.id} is cancelled could not be confirmed: it may still be open until ${until}. \`/edge approvals ${request.id}\` shows where it stands, and \`/edge approvals cancel ${request.id}\` cancels it once the state database answers.`,
      },
    };
    if (ref)
      await withdrawCard(
        state,
        ctx.surface,
        ref,
        request,
        inChannel(`Request ${request.id} is not on this card`, [{ type: 'text', text: told[fate].card }]),
      );
    // A request that may be open is not asked for again: its own line below says what to do.
    const todo = fate === 'open' || fate === 'unsure' ? '' : ` ${reason.todo}`;
    const text =
      stage === 'record'
        ? md`The approval card in ${where} was posted, but ${reason.why}.${todo}`
        : md`I could not post the approval card in ${where}: ${reason.why}.${todo}`;
    const plain =
      stage === 'record'
        ? `The approval card was posted, but ${reason.why}.${todo}`
        : `I could not post the approval card: ${reason.why}.${todo}`;
    return {
      ok: false,
      reply: ephemeral(plain, [
        { type: 'text', text: md`:x: ${nest(text)}` },
        { type: 'context', text: told[fate].requester },
      ]),
    };
  }
}

/** A posted card whose request cannot stand on it: it shows `reply` instead of its buttons. */
async function withdrawCard(
  state: FlowState,
  surface: Messenger,
  ref: MessageRef,
  request: ApprovalRequest,
  reply: Reply,
): Promise<void> {
  try {
    await surface.update(ref, reply);
  } catch (error) {
    state.logger.warn('the card of a request could not be withdrawn', { approvalId: request.id, error });
  }
}

/** Why a card (or the file before it) could not be posted, and what the requester can do, in plain words. */
function unpostedReason(error: unknown, stage: 'file' | 'card'): { why: string; todo: string; code: string } {
  const given = deliveryErrorCode(error);
  const code = given ?? 'unexpected';
  if (stage === 'file' && given === undefined)
    return {
      code: 'upload failed',
      why: 'the file with its full parameters could not be uploaded there',
      todo: 'Ask again in a minute.',
    };
  switch (code) {
    case 'not_in_channel':
      return { code, why: 'the bot is not in that channel', todo: 'Invite it, then ask again.' };
    case 'channel_not_found':
      return {
        code,
        why: 'the bot cannot see that channel',
        todo: 'Check approvals.channel in the policy (and invite the bot), then ask again.',
      };
    case 'is_archived':
      return {
        code,
        why: 'that channel is archived',
        todo: 'Unarchive it or change approvals.channel in the policy, then ask again.',
      };
    default:
      if (isPostingRestricted(code))
        return {
          code,
          why: goneFromChannel(error) ?? 'the bot may not post in that channel',
          todo: 'Let the bot post there or change approvals.channel in the policy, then ask again.',
        };
      return { code, why: `the post failed (${code})`, todo: 'Ask again in a minute.' };
  }
}

/** What a request whose card failed is after the attempt to cancel it. */
export type UnpostedFate = 'cancelled' | 'open' | 'unsure' | 'decided';

/**
 * Cancels a request whose card failed, and says what it is now. Unless the cancel is confirmed,
 * the request is read back before anyone is told anything (a cancel that threw may have
 * committed); `unsure` when even that read fails.
 */
export async function cancelUnposted(
  service: Pick<ApprovalService, 'cancelUnposted' | 'get'>,
  logger: Logger,
  request: ApprovalRequest,
  reason: string,
  correlationId: string,
): Promise<UnpostedFate> {
  try {
    if (await service.cancelUnposted(request.id, reason, { correlationId })) return 'cancelled';
  } catch (error) {
    logger.error('a request whose card failed could not be cancelled', { approvalId: request.id, error });
  }
  // Not cancelled by this step, or not known to be: what it is now is read back.
  const now = await service.get(request.id).catch(() => undefined);
  if (!now) return 'unsure';
  return now.state === 'pending' ? 'open' : now.state === 'cancelled' ? 'cancelled' : 'decided';
}
