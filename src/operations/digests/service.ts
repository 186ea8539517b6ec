/**
 * Setting, listing and stopping digests, as the commands and buttons ask. Posting them is the
 * runner's (runner.ts); both meet in the digests table.
 */
import { randomBytes } from 'node:crypto';
import type { Authorizer } from '../../policy/authorizer.js';
import { markupToPlain, md } from '../../reply/markup.js';
import { ephemeral, type MessageRef } from '../../reply/model.js';
import type { AuditLog } from '../../state/audit.js';
import { DIGEST_ID_PATTERN, type Digest, type DigestStore, type NewDigest } from '../../state/digests.js';
import type { Logger } from '../../telemetry/log.js';
import { localDayOf } from '../../time/zones.js';
import { denialText } from '../engine/access-text.js';
import { UserFacingError } from '../engine/errors.js';
import type { DigestDesk, DigestRequest, RunContext } from '../engine/types.js';
import { goneFromChannel } from '../shared/delivery-errors.js';
import { endDigest } from './endings.js';
import { describeDigest, digestList, runOperationOf, setMessage } from './render.js';
import { type DigestSchedule, nextOccurrence, weekdayOf } from './schedule.js';

export interface DigestLimits {
  perUser: number;
  perWorkspace: number;
}

export interface DigestDeskOptions {
  store: DigestStore;
  authorizer: Authorizer;
  audit: AuditLog;
  logger: Logger;
  limits: DigestLimits;
  now: () => number;
}

/** The schedule of a digest asked for at `nowMs`: a weekly one falls on the weekday of its first occurrence. */
export function scheduleOf(request: DigestRequest, nowMs: number): DigestSchedule {
  const { atMinute, timeZone, every } = request;
  if (every !== 'week') return { atMinute, timeZone, every, weekday: null };
  const first = nextOccurrence({ atMinute, timeZone, every: 'day', weekday: null }, nowMs);
  return { atMinute, timeZone, every, weekday: weekdayOf(localDayOf(first, timeZone)) };
}

/**
 * Refuses a digest its owner could not run by hand here, or whose every run would wait for an
 * approval: a digest never runs what the policy gates.
 */
async function checkRunnable(options: DigestDeskOptions, ctx: RunContext, request: DigestRequest) {
  const operation = runOperationOf(request);
  const decision = await options.authorizer.decide(operation, {
    userId: ctx.userId,
    channelId: ctx.channelId,
  });
  if (!decision.allowed)
    throw new UserFacingError(
      `A digest runs ${operation} as you, and you may not run it here: ${markupToPlain(denialText(operation, decision.denial))}.`,
    );
  if (decision.approval)
    throw new UserFacingError(
      `The policy holds ${operation} in this channel for approval (by ${decision.approval.approvers.join(', ')}), and a digest never runs what waits for approval, so none was set. Ask for the summary when you need it (${operation === 'logs.origin' ? '/edge logs' : '/edge shield export'}), or ask whoever keeps the policy to let ${operation} run here without one.`,
    );
}

async function setDigest(options: DigestDeskOptions, ctx: RunContext, request: DigestRequest) {
  const { store, limits, now } = options;
  await checkRunnable(options, ctx, request);
  const createdAt = now();
  const schedule = scheduleOf(request, createdAt);
  const digest: NewDigest = {
    id: `dg_${randomBytes(6).toString('hex')}`,
    owner: ctx.userId,
    channelId: ctx.channelId,
    kind: request.kind,
    zoneId: request.zoneId,
    ...schedule,
    query: request.query ?? null,
    filters: request.filters,
    createdAt,
    nextRunAt: nextOccurrence(schedule, createdAt),
    approvalId: ctx.approvedAs ?? null,
  };
  const outcome = await store.insert(digest, limits);
  if (!outcome.inserted)
    throw new UserFacingError(
      outcome.cap === 'user'
        ? `You already have ${outcome.running} digests, the most one person may have. Stop one first: /edge digests in its channel, or your Home.`
        : `${outcome.running} digests are set in this workspace, the most allowed. Stop one first: /edge digests.`,
    );
  const stored = (await store.get(digest.id))!;
  // The channel is told what will arrive; a channel the bot cannot post in gets no digest.
  let posted: MessageRef | undefined;
  let why = 'this is not a place a message can be posted';
  try {
    posted = await ctx.surface.postToChannel(ctx.channelId, setMessage(stored));
  } catch (error) {
    ctx.logger.warn('a digest could not be announced', { digest: digest.id, error });
    why = goneFromChannel(error) ?? 'the post failed; try again in a minute';
  }
  if (!posted) {
    await store.end(digest.id, 'channel', ctx.userId, now());
    throw new UserFacingError(`The digest could not be announced here (${why}), so it was not set.`);
  }
  ctx.logger.info('digest set', { digest: digest.id, kind: digest.kind, zone: digest.zoneId });
  return undefined;
}

/** Whether the caller may stop a digest: its owner, or whoever holds digest.set in its channel. */
async function mayStop(options: DigestDeskOptions, userId: string, digest: Digest): Promise<boolean> {
  if (digest.owner === userId) return true;
  const decision = await options.authorizer.decide('digest.set', { userId, channelId: digest.channelId });
  return decision.allowed;
}

export function createDigestDesk(options: DigestDeskOptions): DigestDesk {
  const { store, now } = options;
  return {
    set: (ctx, request) => setDigest(options, ctx, request),

    async list(ctx, stopActionId) {
      const here = (await store.running()).filter((digest) => digest.channelId === ctx.channelId);
      const listed = await Promise.all(
        here.map(async (digest) => ({ digest, mayStop: await mayStop(options, ctx.userId, digest) })),
      );
      return digestList(listed, ctx.channelId, stopActionId);
    },

    async stop(ctx, id) {
      if (!DIGEST_ID_PATTERN.test(id)) throw new UserFacingError('That button does not name a digest.');
      const digest = await store.get(id);
      if (!digest)
        throw new UserFacingError(
          `There is no digest ${id}. Type /edge digests to see this channel's digests.`,
        );
      if (digest.state === 'ended') return ephemeral('That digest has already stopped.');
      // A listing or the Home may show it: what counts is its owner, or a grant where it posts.
      if (!(await mayStop(options, ctx.userId, digest)))
        throw new UserFacingError(
          'Only the person who set that digest, or someone the policy lets run digest.set in its channel, may stop it.',
        );
      const ended = await endDigest(
        { store, audit: options.audit, logger: ctx.logger, messenger: ctx.surface, now },
        digest,
        'stopped',
        ctx.userId,
      );
      if (!ended) return ephemeral('That digest has already stopped.');
      return ephemeral(`The digest of ${describeDigest(ended)} is stopped.`, [
        {
          type: 'text',
          text: md`:stop_sign: The digest of ${describeDigest(ended)} is stopped; nothing more of it will be posted.`,
        },
      ]);
    },
  };
}
