/**
 * The two-person gate as people see it (PRODUCT §5): a request becomes a card in the
 * approvals channel, the requester gets a Cancel note, clicks are checked and applied by the
 * approval service, the card (drawn by card.ts) follows every transition, and an approved
 * change runs once with the stored parameters. A request whose card cannot be posted is
 * cancelled. Secrets an execution produces go to the requester by DM only.
 */
import { type ApprovalRequest, type ApprovalState, decideClick } from '../../approvals/machine.js';
import { type ApprovalService, type ExecutionReport, REJECT_REASON_MAX } from '../../approvals/service.js';
import type { ApprovalRequirement } from '../../policy/authorize.js';
import type { PolicyAuthorizer } from '../../policy/authorizer.js';
import type { GroupMembership } from '../../policy/groups.js';
import { channelRef, type Markup, md, mention, nest, trusted } from '../../reply/markup.js';
import {
  ephemeral,
  inChannel,
  type MessageRef,
  type Reply,
  type ReplyBlock,
  type ReplyButton,
} from '../../reply/model.js';
import { counted } from '../../reply/words.js';
import type { SecretMessages } from '../../state/secret-messages.js';
import type { Logger } from '../../telemetry/log.js';
import { formatDistanceStrict } from '../../time/date-fns.js';
import { denialReply } from '../engine/access-text.js';
import { OperationFailedError, UserFacingError } from '../engine/errors.js';
import type { Messenger } from '../engine/ports.js';
import type { ApprovalGate, RunContext } from '../engine/types.js';
import { deliveryErrorCode } from '../shared/delivery-errors.js';
import {
  deliverSecret,
  deliveryWords,
  type SecretDelivery,
  secretContext,
  secretReminderReply,
} from '../shared/secret-delivery.js';
import {
  APPROVAL_ACTIONS,
  cardFileMessage,
  decisionButtons,
  listedRequest,
  requestDetail,
  TIMELINE_SHOWN,
  waitsFor,
} from './card.js';
import {
  approverStatus,
  cardOf,
  type FlowState,
  gatedOperation,
  mayApprove,
  requesterButtons,
  tellRequester,
  updateCard,
  WAITING_READ_YOURS,
} from './flow-state.js';
import type { GatedOperation } from './gate.js';
import { reminderReply, sentence } from './notices.js';
import { clickRefusalText, formatUtc, notRunText, openRequestText, refusalReply } from './refusal-text.js';

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

/** The form an approver fills when the rule says `confirm: true`. */
export const CONFIRM_CALLBACK = 'approvals:confirm';
/** The form Reject opens, for the reason. */
export const REJECT_CALLBACK = 'approvals:reject';

/** Audit rows read for one request's timeline: one more than shown, so the view can say there are more. */
const TIMELINE_READ = TIMELINE_SHOWN + 1;
/** Waiting requests `/edge approvals` reads; more are counted and said. */
const WAITING_READ = 50;

/** Slack's word for why a message could not be posted, when the error carries one. */
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

export function createApprovalFlow(options: ApprovalFlowOptions): ApprovalFlow {
  const state: FlowState = {
    ...options,
    gated: new Map<string, GatedOperation>(),
    staleExecutionMs: options.staleExecutionMs ?? 2 * 60_000,
  };

  /** Whether a pending request is the user's business: theirs, or waiting for their decision. */
  const concerns = async (request: ApprovalRequest, userId: string): Promise<boolean> =>
    request.requester === userId ||
    (await waitsFor(request, userId, (waiting, user) => mayApprove(state, waiting, user)));

  /** Runs an approved request once and tells everyone concerned; returns what happened. */
  async function execute(ctx: RunContext, request: ApprovalRequest): Promise<ExecutionReport> {
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

  /**
   * Posts a new request's card (after the file with the parameters that do not fit on it). When
   * either cannot be posted, or the posted card cannot be recorded, the request is cancelled,
   * since nobody could see it to approve it or its card would never show the decision; a card
   * already posted then says so instead of offering buttons.
   */
  async function postCard(
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
        if (current && ref) await withdrawCard(ctx.surface, ref, request, cardOf(state, current).card);
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
  async function withdrawCard(surface: Messenger, ref: MessageRef, request: ApprovalRequest, reply: Reply) {
    try {
      await surface.update(ref, reply);
    } catch (error) {
      state.logger.warn('the card of a request could not be withdrawn', { approvalId: request.id, error });
    }
  }

  /** The form an approver fills when the rule says `confirm: true`: the target id, typed. */
  const confirmForm = (request: ApprovalRequest) => ({
    callbackId: CONFIRM_CALLBACK,
    title: 'Confirm approval',
    submit: 'Approve',
    privateMetadata: request.id,
    intro: md`To approve *${gatedOperation(state, request.operation).describe(request.params)}*, type the target id exactly: \`${request.target}\``,
    fields: [{ id: 'confirmation', label: 'Target id', kind: 'text' as const }],
  });

  /** The form Reject opens, for the reason. */
  const rejectForm = (request: ApprovalRequest) => ({
    callbackId: REJECT_CALLBACK,
    title: 'Reject request',
    submit: 'Reject',
    privateMetadata: request.id,
    intro: md`Reject *${gatedOperation(state, request.operation).describe(request.params)}*, asked by ${nest(mention(request.requester))}? The reason goes on the card, to the requester and into the audit log.`,
    fields: [
      {
        id: 'reason',
        label: 'Reason (optional)',
        kind: 'text' as const,
        optional: true,
        hint: `Up to ${REJECT_REASON_MAX} characters, e.g. not during the freeze.`,
      },
    ],
  });

  /** The refusal of a request whose lock an open one holds, pointing to that one. */
  const openRequestReply = (ctx: RunContext, existing: ApprovalRequest): Reply =>
    refusalReply(openRequestText(existing, new Date(state.now()), ctx.userId), [
      {
        type: 'context',
        text: md`Open request ${existing.id}, asked by ${nest(mention(existing.requester))} (${existing.state}).`,
      },
    ]);

  const flow: ApprovalFlow = {
    register(operation) {
      state.gated.set(operation.id, operation);
    },

    async submit(ctx, input) {
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
      if (!created.ok) return openRequestReply(ctx, created.existing);
      const request = created.request;
      const cardChannel = requirement.channel ?? ctx.channelId;
      const posted = await postCard(ctx, request, cardChannel);
      if (!posted.ok) return posted.reply;
      return ephemeral(`Approval requested: ${op.describe(input.params)}`, [
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
    },

    async click(ctx, input) {
      const request = await state.service.get(input.requestId);
      if (!request)
        return ephemeral('That approval request does not exist.', [
          { type: 'text', text: trusted(':warning: That approval request does not exist any more.') },
        ]);
      const status = await approverStatus(state, request, ctx.userId);
      const approveNeedsForm =
        input.action === 'approve' && request.confirm && input.confirmation === undefined;
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
          await ctx.surface.openModal(approveNeedsForm ? confirmForm(request) : rejectForm(request));
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
        const report = await execute(ctx, result.request);
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
    },

    peek: (id) => state.service.get(id),

    async openRequestRefusal(ctx, operation, target) {
      const perRequester = state.gated.get(operation)?.lockPerRequester === true;
      const waiting = await state.service.list({ limit: WAITING_READ_YOURS });
      const existing = waiting.find(
        (request) =>
          request.operation === operation &&
          request.target === target &&
          (!perRequester || request.requester === ctx.userId),
      );
      return existing ? openRequestReply(ctx, existing) : undefined;
    },

    async list(ctx, all, scope = 'everyone') {
      const yours = scope === 'yours' && !all;
      const limit = all ? 50 : yours ? WAITING_READ_YOURS : WAITING_READ;
      const read = await state.service.list(all ? { all: true, limit } : { limit });
      // The Home's lists whole: what is the caller's, or waits for their decision.
      const requests: ApprovalRequest[] = [];
      for (const request of read) if (!yours || (await concerns(request, ctx.userId))) requests.push(request);
      // Never cut silently: beyond what is read, the listing says how many more wait.
      const waiting = all || read.length < limit ? read.length : await state.service.countWaiting();
      const more: ReplyBlock[] =
        waiting > read.length
          ? [
              {
                type: 'context',
                text: yours
                  ? md`${waiting} requests are waiting, everyone's together; the newest ${read.length} are read here, and those that are yours or wait for you are listed. Open any other with \`/edge approvals REQUEST_ID\` (its card in the approvals channel shows the id).`
                  : md`${waiting} requests are waiting; the newest ${read.length} are read here. Open any other with \`/edge approvals REQUEST_ID\` (its card in the approvals channel shows the id).`,
              },
            ]
          : [];
      if (requests.length === 0)
        return ephemeral('No approval requests', [
          {
            type: 'text',
            text: trusted(
              all
                ? '_No approval requests yet._'
                : more.length > 0
                  ? yours
                    ? '_None of those read here is yours or waits for your approval._'
                    : '_None of those read here is still waiting._'
                  : yours
                    ? '_Nothing waits for your approval, and you have no request waiting._'
                    : '_Nothing is waiting for approval._',
            ),
          },
          ...more,
        ]);
      const blocks: ReplyBlock[] = [
        {
          type: 'header',
          text: all
            ? 'Approval requests (latest 50)'
            : yours
              ? 'Waiting for you, and yours'
              : 'Waiting for approval',
        },
        ...more,
      ];
      const filename = 'approval-requests.txt';
      const fileSections: string[] = [];
      for (const request of requests) {
        const buttons: ReplyButton[] = [];
        if (request.state === 'pending' && request.requester === ctx.userId)
          buttons.push(...requesterButtons(request));
        else if (request.state === 'pending' && (await mayApprove(state, request, ctx.userId)))
          buttons.push(...decisionButtons(request.id, true));
        const listed = listedRequest(
          request,
          state.gated.get(request.operation),
          filename,
          buttons,
          new Date(state.now()),
        );
        blocks.push(...listed.blocks);
        if (listed.fileSection) fileSections.push(listed.fileSection);
      }
      const reply = ephemeral(`${requests.length} approval requests`, blocks);
      if (fileSections.length === 0) return reply;
      return {
        ...reply,
        files: [
          {
            filename,
            title: 'Approval requests: every parameter in full',
            content: fileSections.join(`\n${'-'.repeat(72)}\n\n`),
            about: 'every parameter of the requests listed, in full',
          },
        ],
      };
    },

    async show(ctx, requestId) {
      const request = await state.service.get(requestId);
      if (!request)
        throw new UserFacingError(
          `There is no approval request ${requestId}. Type /edge approvals --all to see the latest ones.`,
        );
      const rows = await ctx.services.audit.list({
        limit: TIMELINE_READ,
        filter: { approvalId: request.id },
      });
      const buttons: ReplyButton[] =
        request.state !== 'pending'
          ? []
          : request.requester === ctx.userId
            ? requesterButtons(request)
            : (await mayApprove(state, request, ctx.userId))
              ? decisionButtons(request.id, true)
              : [];
      return requestDetail(
        request,
        state.gated.get(request.operation),
        rows.reverse(),
        buttons,
        new Date(state.now()),
      );
    },

    async cancel(ctx, requestId) {
      return flow.click(ctx, { action: 'cancel', requestId });
    },

    async showPending(surface) {
      const pending = await state.service.list({ limit: 200 });
      for (const request of pending) {
        const { card } = cardOf(state, request);
        try {
          if (request.card)
            await surface.update({ channelId: request.card.channel, ts: request.card.ts }, card);
          else {
            const ref = await surface.postToChannel(request.channelId, card);
            if (ref) await state.service.setCard(request.id, ref.channelId, ref.ts);
          }
        } catch (error) {
          state.logger.warn('a pending approval card could not be shown again', {
            approvalId: request.id,
            error,
          });
        }
      }
      return pending.length;
    },

    countByState: () => state.service.countByState(),

    mayApprove: (request, userId) => mayApprove(state, request, userId),

    async sweep(surface) {
      const expired = await state.service.expireStale();
      for (const request of expired) {
        await updateCard(state, surface, request);
        await tellRequester(state, surface, request);
      }
      const due = await state.service.claimReminders();
      for (const request of due) {
        if (!request.card) continue;
        const link = await surface
          .permalink({ channelId: request.card.channel, ts: request.card.ts })
          .catch(() => undefined);
        const reminder = reminderReply(
          request,
          state.gated.get(request.operation),
          new Date(state.now()),
          link,
        );
        await surface
          .postToChannel(request.card.channel, reminder, request.card.ts)
          .catch((error: unknown) =>
            state.logger.warn('approval reminder could not be posted', { approvalId: request.id, error }),
          );
        // The card's age and time left, as of the reminder.
        await updateCard(state, surface, request);
      }
      const cutoff = new Date(state.now() - state.staleExecutionMs);
      const crashed = await state.service.recoverAfterCrash({
        startedBefore: cutoff,
        approvedBefore: cutoff,
      });
      for (const request of crashed) {
        await updateCard(state, surface, request);
        const told =
          request.startedAt === null
            ? md`:warning: Request ${request.id} (${request.operation} on ${request.target}) was approved, but the bot stopped before the change started: it did not run, and it will not run now. Ask again if it is still needed.`
            : md`:warning: The bot stopped while running request ${request.id} (${request.operation} on ${request.target}). Check the platform to see whether it happened; it will not be run again.`;
        await surface
          .sendDirect(request.requester, inChannel('Outcome unknown', [{ type: 'text', text: told }]))
          .catch(() => undefined);
      }
      const standing = (await state.secretMessages?.claimReminders(new Date(state.now()))) ?? [];
      for (const message of standing)
        await surface
          .postToChannel(message.channelId, secretReminderReply(message), message.ts)
          .catch((error: unknown) =>
            state.logger.warn('the reminder to delete a secret message could not be posted', {
              secretMessage: message.id,
              error,
            }),
          );
      if (expired.length + crashed.length + due.length > 0)
        state.logger.info('approval sweep', {
          expired: expired.length,
          unknown: crashed.length,
          reminded: due.length,
        });
    },
  };
  return flow;
}
