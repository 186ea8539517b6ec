/**
 * Starting, listing, stopping and snoozing watches, as the commands and buttons ask. The polling
 * itself is poller.ts's; both meet in the watches table.
 */
import { randomBytes } from 'node:crypto';
import type { Authorizer } from '../../policy/authorizer.js';
import { channelRef, md, nest } from '../../reply/markup.js';
import { ephemeral, type MessageRef } from '../../reply/model.js';
import type { AuditLog } from '../../state/audit.js';
import type { Logger } from '../../telemetry/log.js';
import { formatDuration } from '../../time/duration.js';
import { initialProgress } from '../../watches/progress.js';
import { WATCH_ID_PATTERN, type Watch, type WatchStore } from '../../watches/store.js';
import { UserFacingError } from '../engine/errors.js';
import type { RunContext, WatchClick, WatchDesk } from '../engine/types.js';
import { goneFromChannel } from '../shared/delivery-errors.js';
import { formatUtc } from '../shared/time-args.js';
import { announceEnd } from './endings.js';
import { SNOOZE_MS, watchList, watchMessage } from './render.js';

export interface WatchLimits {
  minEveryMs: number;
  perUser: number;
  perWorkspace: number;
}

export interface WatchDeskOptions {
  store: WatchStore;
  authorizer: Authorizer;
  audit: AuditLog;
  logger: Logger;
  limits: WatchLimits;
  now: () => number;
}

export function createWatchDesk(options: WatchDeskOptions): WatchDesk {
  const { store, limits, now } = options;

  /**
   * The watch's own message, clicked, when the watch never noted where it posted it (its replica
   * died in between), so that nothing else could update it.
   */
  const unnotedMessage = (ctx: RunContext, watch: Watch, click: WatchClick): MessageRef | undefined => {
    const clicked = ctx.surface.clicked;
    return click.fromItsMessage && watch.messageTs === null && clicked?.channelId === watch.channelId
      ? clicked
      : undefined;
  };

  async function runningWatch(ctx: RunContext, id: string, click: WatchClick = {}): Promise<Watch> {
    if (!WATCH_ID_PATTERN.test(id)) throw new UserFacingError('That button does not name a watch.');
    const watch = await store.get(id);
    if (!watch) throw new UserFacingError('That watch does not exist (any more).');
    const unnoted = unnotedMessage(ctx, watch, click);
    if (watch.state === 'ended') {
      // Its message still offers Stop and Snooze: the click brings it up to date.
      if (unnoted)
        await ctx.surface.update(unnoted, watchMessage(watch, now())).catch((error: unknown) => {
          ctx.logger.warn('an ended watch’s message could not be updated', { watch: watch.id, error });
        });
      throw new UserFacingError('That watch has already ended.');
    }
    // A listing elsewhere (or the Home) may show it: what counts is a grant where the watch posts.
    if (click.fromHome || watch.channelId !== ctx.channelId) {
      const decision = await options.authorizer.decide('watch.logs', {
        userId: ctx.userId,
        channelId: watch.channelId,
      });
      if (!decision.allowed)
        throw new UserFacingError(
          `The policy does not let you run watch.logs in the channel of that watch, so you cannot change it.`,
        );
    }
    // Noted now, so that the stop or snooze below, and every poll after it, update that message.
    if (unnoted) {
      try {
        await store.setMessage(watch.id, unnoted.ts);
        return { ...watch, messageTs: unnoted.ts };
      } catch (error) {
        ctx.logger.warn('a watch’s message could not be noted', { watch: watch.id, error });
      }
    }
    return watch;
  }

  return {
    async start(ctx, request) {
      if (request.everyMs < limits.minEveryMs)
        throw new UserFacingError(
          `--every must be at least ${formatDuration(limits.minEveryMs)}, e.g. --every ${formatDuration(limits.minEveryMs)}.`,
        );
      const startedAt = now();
      const watch = {
        id: `wa_${randomBytes(6).toString('hex')}`,
        owner: ctx.userId,
        channelId: ctx.channelId,
        threadTs: ctx.threadTs ?? null,
        pullZoneId: request.pullZoneId,
        status: request.status ?? null,
        code: request.code ?? null,
        everyMs: request.everyMs,
        startedAt,
        endsAt: startedAt + request.forMs,
        alert: request.alert ?? null,
        nextPollAt: startedAt,
        progress: initialProgress(startedAt),
        approvalId: ctx.approvedAs ?? null,
      };
      const outcome = await store.insert(watch, limits);
      if (!outcome.inserted)
        throw new UserFacingError(
          outcome.cap === 'user'
            ? `You already have ${outcome.running} watches running, the most one person may have. Stop one first: /edge watches.`
            : `${outcome.running} watches are running in this workspace, the most allowed. Stop one first: /edge watches.`,
        );
      const stored = (await store.get(watch.id))!;
      // A watch whose message cannot be posted is ended at once: it holds no cap and no row.
      const refused = async (why: string) => {
        await store.end(watch.id, 'stopped', ctx.userId, now());
        return new UserFacingError(
          `The watch message could not be posted here (${why}), so the watch did not start.`,
        );
      };
      let ref: Awaited<ReturnType<typeof ctx.surface.postToChannel>>;
      try {
        ref = await ctx.surface.postToChannel(ctx.channelId, watchMessage(stored, startedAt), ctx.threadTs);
      } catch (error) {
        ctx.logger.warn('a watch message could not be posted', { watch: watch.id, error });
        throw await refused(goneFromChannel(error) ?? 'the post failed; try again in a minute');
      }
      if (!ref) throw await refused('this is not a place a message can be posted');
      await store.setMessage(watch.id, ref.ts);
      ctx.logger.info('watch started', { watch: watch.id, pullZone: watch.pullZoneId });
      return undefined;
    },

    async list(ctx, stopActionId) {
      // Only the watches of channels where the caller holds watch.logs: a private channel's or a
      // DM's watch is nobody else's business. One decision per channel.
      const granted = new Map<string, Promise<boolean>>();
      const mayWatch = (channelId: string) => {
        let decision = granted.get(channelId);
        if (!decision) {
          decision = options.authorizer
            .decide('watch.logs', { userId: ctx.userId, channelId })
            .then((result) => result.allowed);
          granted.set(channelId, decision);
        }
        return decision;
      };
      const visible: Watch[] = [];
      for (const watch of await store.running()) if (await mayWatch(watch.channelId)) visible.push(watch);
      return watchList(visible, stopActionId, now());
    },

    async stop(ctx, id, stopOptions) {
      await runningWatch(ctx, id, stopOptions);
      const ended = await store.end(id, 'stopped', ctx.userId, now());
      if (!ended) return ephemeral('That watch has already ended.');
      await announceEnd(ended, {
        messenger: ctx.surface,
        audit: options.audit,
        logger: ctx.logger,
        nowMs: now(),
      });
      return ephemeral(`The watch of pull zone ${ended.pullZoneId} is stopped.`);
    },

    async snooze(ctx, id, click) {
      await runningWatch(ctx, id, click);
      const until = now() + SNOOZE_MS;
      const snoozed = await store.snooze(id, until);
      if (!snoozed) return ephemeral('That watch has already ended.');
      if (snoozed.messageTs)
        await ctx.surface.update(
          { channelId: snoozed.channelId, ts: snoozed.messageTs },
          watchMessage(snoozed, now()),
        );
      return ephemeral(`Alerts of this watch are snoozed until ${formatUtc(until)}; it goes on polling.`, [
        {
          type: 'text',
          text: md`:zzz: Alerts of the watch of pull zone ${snoozed.pullZoneId} in ${nest(channelRef(snoozed.channelId))} are snoozed until ${formatUtc(until)}. It goes on polling and updating its message.`,
        },
      ]);
    },
  };
}
