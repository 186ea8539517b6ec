/**
 * The two-person gate as people see it (PRODUCT §5): a request becomes a card in the
 * approvals channel, the requester gets a Cancel note, clicks are checked and applied by the
 * approval service, the card follows every transition, and an approved change runs once
 * with the stored parameters. Secrets an execution produces go to the requester by DM only.
 */
import { formatDistanceStrict } from '../date-fns.js';
import type { Logger } from '../log.js';
import { OperationFailedError } from '../operations/engine.js';
import { type Markup, md, nest, trusted, withMentions } from '../operations/markup.js';
import { ephemeral, inChannel, type Reply, type ReplyBlock, type ReplyButton } from '../operations/reply.js';
import type { RunContext, Surface } from '../operations/types.js';
import { PlatformError } from '../platform/errors.js';
import type { ApprovalRequirement, Operation } from '../policy/authorize.js';
import type { PolicyAuthorizer } from '../policy/authorizer.js';
import type { GroupMembership } from '../policy/groups.js';
import type { JsonValue } from '../state/canonical-json.js';
import type { ApprovalRequest } from './machine.js';
import type { ApprovalService } from './service.js';

/** What an executed change produced: a result for the channel, and secrets for the requester only. */
export interface ExecutionOutcome {
  ok: boolean;
  /** For the card, the channel and the audit row: never a secret. */
  detail: string;
  /** Shown once, privately, to the requester (new keys, new tokens). */
  secrets?: { label: string; value: string; note?: string }[];
}

/** A change that may need approval: how to describe it and how to run it. */
export interface GatedOperation {
  id: Operation;
  /** One line: what will happen, e.g. "Reset the token-authentication key of pull zone 42". */
  describe(params: Record<string, JsonValue>): string;
  /** The parameters as shown on the card (never secrets). */
  fields(params: Record<string, JsonValue>): { label: string; value: string }[];
  /** A warning shown on the card, e.g. that the bot's own token will stop working. */
  warning?(params: Record<string, JsonValue>): string | undefined;
  execute(params: Record<string, JsonValue>, ctx: RunContext): Promise<ExecutionOutcome>;
}

/**
 * An execution that failed on the platform: the user's message, with the correlation id when
 * the cause is unknown to them, and a log line carrying that id.
 */
export function failedExecution(ctx: RunContext, error: unknown): ExecutionOutcome {
  if (!(error instanceof PlatformError)) throw error;
  ctx.logger.warn('change failed on the platform', {
    kind: error.kind,
    status: error.status,
    platformOperation: error.operation,
    attempts: error.attempts,
  });
  return {
    ok: false,
    detail: `${error.userMessage}${error.unexpected ? ` (correlation id ${ctx.correlationId})` : ''}`,
  };
}

export interface ApprovalFlowOptions {
  service: ApprovalService;
  authorizer: PolicyAuthorizer;
  groups: GroupMembership;
  logger: Logger;
  now: () => number;
  /** An execution running longer than this is taken as interrupted by a crash. */
  staleExecutionMs?: number;
}

export interface ApprovalFlow {
  register(operation: GatedOperation): void;
  /** Asks for approval, or runs at once when the policy does not gate the operation. */
  submit(
    ctx: RunContext,
    input: { operation: Operation; target: string; params: Record<string, JsonValue>; reason: string },
  ): Promise<Reply | undefined>;
  click(
    ctx: RunContext,
    input: { action: 'approve' | 'reject' | 'cancel'; requestId: string; confirmation?: string },
  ): Promise<Reply | undefined>;
  list(ctx: RunContext, all: boolean): Promise<Reply>;
  /** The request as stored, for forms that need its target. */
  peek(id: string): Promise<ApprovalRequest | null>;
  /** Expires stale requests and marks crashed executions unknown, updating their cards. */
  sweep(surface: Surface): Promise<void>;
}

export const APPROVAL_ACTIONS = {
  approve: 'approvals:approve',
  reject: 'approvals:reject',
  cancel: 'approvals:cancel',
};
/** The form an approver fills when the rule says `confirm: true`. */
export const CONFIRM_CALLBACK = 'approvals:confirm';

const STATE_LABEL: Record<string, string> = {
  pending: ':hourglass_flowing_sand: Waiting for approval',
  approved: ':white_check_mark: Approved, about to run',
  executing: ':gear: Running',
  succeeded: ':white_check_mark: Done',
  failed: ':x: Failed',
  rejected: ':no_entry: Rejected',
  expired: ':alarm_clock: Expired',
  cancelled: ':heavy_multiplication_x: Cancelled by the requester',
  unknown:
    ':warning: Outcome unknown: the bot stopped while this was running. Check the platform before asking again.',
};

const mention = (userId: string): Markup => trusted(`<@${userId.replace(/[^A-Z0-9]/gi, '')}>`);

export function createApprovalFlow(options: ApprovalFlowOptions): ApprovalFlow {
  const { service, authorizer, groups, logger } = options;
  const gated = new Map<string, GatedOperation>();
  const staleExecutionMs = options.staleExecutionMs ?? 2 * 60_000;

  const spec = (operation: string): GatedOperation => {
    const found = gated.get(operation);
    if (!found) throw new Error(`no gated operation ${operation}`);
    return found;
  };

  function card(request: ApprovalRequest): Reply {
    const now = new Date(options.now());
    const op = gated.get(request.operation);
    const params = request.params;
    const what = op?.describe(params) ?? `${request.operation} on ${request.target}`;
    const approvers = request.approvals.map((vote) => mention(vote.userId)).join(', ');
    const fields = [
      { label: 'Target', value: md`${request.target}` },
      { label: 'Requested by', value: mention(request.requester) },
      { label: 'Reason', value: md`${request.reason || '(none given)'}` },
      {
        label: 'Approvals',
        value: md`${request.approvals.length} of ${request.required}${nest(trusted(approvers ? ` (${approvers})` : ''))}`,
      },
      {
        label: request.state === 'pending' ? 'Expires' : 'Expiry',
        value: md`${
          request.state === 'pending'
            ? `in ${formatDistanceStrict(request.expiresAt, now)}`
            : `${request.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`
        }`,
      },
      ...(op?.fields(params) ?? []).map((field) => ({ label: field.label, value: md`${field.value}` })),
    ];
    const blocks: ReplyBlock[] = [
      { type: 'header', text: `Approval needed: ${request.operation}` },
      { type: 'text', text: md`*${what}*` },
      { type: 'fields', fields },
    ];
    const warning = op?.warning?.(params);
    if (warning) blocks.push({ type: 'text', text: md`:warning: ${warning}` });
    let status = STATE_LABEL[request.state] ?? request.state;
    if (request.decidedBy && request.state !== 'pending' && request.decidedAt)
      status += ` · by ${mention(request.decidedBy)} at ${request.decidedAt.toISOString().slice(11, 16)} UTC`;
    if (request.result) status += ` · ${md`${request.result.detail}`}`;
    blocks.push({ type: 'context', text: trusted(status) });
    if (request.state === 'pending') {
      const buttons: ReplyButton[] = [
        { text: 'Approve', actionId: APPROVAL_ACTIONS.approve, value: request.id, style: 'primary' },
        { text: 'Reject', actionId: APPROVAL_ACTIONS.reject, value: request.id, style: 'danger' },
      ];
      blocks.push({ type: 'actions', buttons });
    }
    blocks.push({ type: 'context', text: md`Request ${request.id}` });
    return inChannel(`Approval ${request.state}: ${what}`, blocks);
  }

  async function updateCard(surface: Surface, request: ApprovalRequest): Promise<void> {
    if (!request.card) return;
    try {
      await surface.update({ channelId: request.card.channel, ts: request.card.ts }, card(request));
    } catch (error) {
      logger.warn('approval card could not be updated', { approvalId: request.id, error });
    }
  }

  async function isApprover(request: ApprovalRequest, userId: string): Promise<boolean> {
    const groupIds = request.approverIds.filter((id) => id.startsWith('S'));
    const membership = groupIds.length > 0 ? await groups.groupsOf(userId, groupIds) : new Set<string>();
    return request.approverIds.some((id) => id === '*' || id === userId || membership.has(id));
  }

  /** Runs an approved request once and tells everyone concerned. */
  async function execute(ctx: RunContext, request: ApprovalRequest): Promise<void> {
    const op = spec(request.operation);
    let secrets: ExecutionOutcome['secrets'] = [];
    const report = await service.executeApproved(
      request.id,
      async (params) => {
        const outcome = await op.execute(params, ctx);
        secrets = outcome.secrets ?? [];
        return { ok: outcome.ok, detail: outcome.detail };
      },
      { correlationId: ctx.correlationId },
    );
    if (!report.ran) {
      logger.info('approved request not executed here', { approvalId: request.id, reason: report.reason });
      return;
    }
    const done = report.request;
    await updateCard(ctx.surface, done);
    if (secrets.length > 0) {
      for (const secret of secrets) ctx.services.secrets.add(secret.value);
      await ctx.surface
        .sendDirect(done.requester, {
          ...inChannel('Your new secret', [
            { type: 'header', text: 'Shown once: store it now' },
            ...secrets.map(
              (secret): ReplyBlock => ({
                type: 'text',
                text: md`*${secret.label}*${secret.note ? ` (${secret.note})` : ''}:\n\`${secret.value}\``,
              }),
            ),
            {
              type: 'context',
              text: md`From approved request ${done.id}. edgeops does not keep it; it is not shown again.`,
            },
          ]),
          reveals: secrets.map((secret) => secret.value),
        })
        .catch((error: unknown) =>
          logger.error('secret could not be delivered by DM', { approvalId: done.id, error }),
        );
    }
    const headline = report.outcome.ok
      ? md`:white_check_mark: ${op.describe(done.params)}: done. ${report.outcome.detail}`
      : md`:x: ${op.describe(done.params)}: failed. ${report.outcome.detail} It was not retried.`;
    await ctx.surface
      .postToChannel(
        done.channelId,
        inChannel(report.outcome.ok ? 'Approved change done' : 'Approved change failed', [
          { type: 'text', text: headline },
          { type: 'context', text: md`Request ${done.id}, asked by ${nest(mention(done.requester))}` },
        ]),
      )
      .catch((error: unknown) => logger.warn('result could not be posted', { approvalId: done.id, error }));
    if (!report.outcome.ok && ctx.userId !== done.requester)
      await ctx.surface
        .sendDirect(
          done.requester,
          inChannel('Your approved change failed', [{ type: 'text', text: headline }]),
        )
        .catch(() => undefined);
  }

  return {
    register(operation) {
      gated.set(operation.id, operation);
    },

    async submit(ctx, input) {
      const op = spec(input.operation);
      const decision = await authorizer.decision(input.operation, ctx);
      const approval = decision.approval;
      if (approval && 'unavailable' in approval)
        return ephemeral(approval.unavailable, [
          { type: 'text', text: md`:no_entry: ${approval.unavailable}` },
        ]);
      if (!approval) {
        // Not gated by the policy: run now, with the same executor and the same secret handling.
        const outcome = await op.execute(input.params, ctx);
        if (outcome.secrets?.length) {
          for (const secret of outcome.secrets) ctx.services.secrets.add(secret.value);
          await ctx.surface.sendDirect(ctx.userId, {
            ...inChannel('Your new secret', [
              { type: 'header', text: 'Shown once: store it now' },
              ...outcome.secrets.map(
                (secret): ReplyBlock => ({ type: 'text', text: md`*${secret.label}*:\n\`${secret.value}\`` }),
              ),
            ]),
            reveals: outcome.secrets.map((secret) => secret.value),
          });
        }
        // A failure goes through the engine, so it is audited as failed and shown to the requester.
        if (!outcome.ok)
          throw new OperationFailedError(`${op.describe(input.params)}: failed. ${outcome.detail}`);
        return inChannel('Change done', [
          {
            type: 'text',
            text: md`:white_check_mark: ${op.describe(input.params)}: done. ${outcome.detail}`,
          },
        ]);
      }
      const requirement: ApprovalRequirement = approval;
      const created = await service.request({
        operation: input.operation,
        target: input.target,
        params: input.params,
        requester: ctx.userId,
        channelId: ctx.channelId,
        reason: input.reason,
        requirement,
        correlationId: ctx.correlationId,
      });
      for (const old of created.expired) await updateCard(ctx.surface, old);
      if (!created.ok) {
        const existing = created.existing;
        return ephemeral(created.message, [
          {
            type: 'text',
            text: withMentions(md`:no_entry: ${created.message}`),
          },
          {
            type: 'context',
            text: md`Open request ${existing.id}, asked by ${nest(mention(existing.requester))} (${existing.state}).`,
          },
        ]);
      }
      const request = created.request;
      const cardChannel = requirement.channel ?? ctx.channelId;
      const ref = await ctx.surface.postToChannel(cardChannel, card(request));
      if (ref) await service.setCard(request.id, ref.channelId, ref.ts);
      return ephemeral(`Approval requested: ${op.describe(input.params)}`, [
        {
          type: 'text',
          text: md`:hourglass_flowing_sand: Approval requested: *${op.describe(input.params)}*. It needs ${request.required} approval(s) from ${requirement.approvers.join(', ')} and expires in ${formatDistanceStrict(request.expiresAt, new Date(options.now()))}.`,
        },
        {
          type: 'context',
          text: md`Request ${request.id}; the card is in ${nest(trusted(`<#${cardChannel.replace(/[^A-Z0-9]/gi, '')}>`))}.`,
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
      const request = await service.get(input.requestId);
      if (!request)
        return ephemeral('That approval request does not exist.', [
          { type: 'text', text: trusted(':warning: That approval request does not exist any more.') },
        ]);
      if (
        input.action === 'approve' &&
        request.confirm &&
        input.confirmation === undefined &&
        request.state === 'pending'
      ) {
        await ctx.surface.openModal({
          callbackId: CONFIRM_CALLBACK,
          title: 'Confirm approval',
          submit: 'Approve',
          privateMetadata: request.id,
          intro: md`To approve *${spec(request.operation).describe(request.params)}*, type the target id exactly: \`${request.target}\``,
          fields: [{ id: 'confirmation', label: 'Target id', kind: 'text' }],
        });
        return undefined;
      }
      const result = await service.click({
        requestId: request.id,
        userId: ctx.userId,
        action: input.action,
        isApprover: await isApprover(request, ctx.userId),
        confirmation: input.confirmation,
        correlationId: ctx.correlationId,
      });
      if (!result.ok) {
        if (result.request && result.request.state !== request.state)
          await updateCard(ctx.surface, result.request);
        return ephemeral(result.message, [
          { type: 'text', text: withMentions(md`:no_entry: ${result.message}`) },
        ]);
      }
      await updateCard(ctx.surface, result.request);
      const what = spec(request.operation).describe(request.params);
      if (result.state === 'approved') {
        await execute(ctx, result.request);
        return ephemeral('Approved', [
          { type: 'text', text: md`:white_check_mark: You approved *${what}*; it has run (see the card).` },
        ]);
      }
      const said =
        result.action === 'cancel'
          ? md`Request ${request.id} is cancelled.`
          : result.action === 'reject'
            ? md`:no_entry: You rejected *${what}*.`
            : md`:ballot_box_with_check: Your approval of *${what}* is recorded: ${result.request.approvals.length} of ${result.request.required}.`;
      return ephemeral('Recorded', [{ type: 'text', text: said }]);
    },

    peek: (id) => service.get(id),

    async list(ctx, all) {
      const requests = await service.list(all ? { all: true, limit: 50 } : {});
      if (requests.length === 0)
        return ephemeral('No approval requests', [
          {
            type: 'text',
            text: trusted(all ? '_No approval requests yet._' : '_Nothing is waiting for approval._'),
          },
        ]);
      const blocks: ReplyBlock[] = [
        { type: 'header', text: all ? 'Approval requests (latest 50)' : 'Waiting for approval' },
      ];
      for (const request of requests) {
        const what = gated.get(request.operation)?.describe(request.params) ?? request.operation;
        blocks.push({
          type: 'text',
          text: md`*${what}* · ${request.state} · ${request.approvals.length}/${request.required} · asked by ${nest(mention(request.requester))} · ${request.id}`,
        });
        if (
          request.state === 'pending' &&
          request.requester !== ctx.userId &&
          (await isApprover(request, ctx.userId))
        )
          blocks.push({
            type: 'actions',
            buttons: [
              {
                text: 'Approve',
                actionId: `${APPROVAL_ACTIONS.approve}#${request.id}`,
                value: request.id,
                style: 'primary',
              },
              {
                text: 'Reject',
                actionId: `${APPROVAL_ACTIONS.reject}#${request.id}`,
                value: request.id,
                style: 'danger',
              },
            ],
          });
      }
      return ephemeral(`${requests.length} approval requests`, blocks);
    },

    async sweep(surface) {
      const expired = await service.expireStale();
      for (const request of expired) await updateCard(surface, request);
      const crashed = await service.recoverAfterCrash({
        startedBefore: new Date(options.now() - staleExecutionMs),
      });
      for (const request of crashed) {
        await updateCard(surface, request);
        await surface
          .sendDirect(
            request.requester,
            inChannel('Outcome unknown', [
              {
                type: 'text',
                text: md`:warning: The bot stopped while running request ${request.id} (${request.operation} on ${request.target}). Check the platform to see whether it happened; it will not be run again.`,
              },
            ]),
          )
          .catch(() => undefined);
      }
      if (expired.length + crashed.length > 0)
        logger.info('approval sweep', { expired: expired.length, unknown: crashed.length });
    },
  };
}
