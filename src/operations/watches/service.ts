/**
 * Starting, listing, stopping and snoozing watches, as the commands and buttons ask. The polling
 * itself is poller.ts's; both meet in the watches table.
 */
import type { Authorizer } from '../../policy/authorizer.js';
import { channelRef, md, nest } from '../../reply/markup.js';
import { ephemeral, type MessageRef } from '../../reply/model.js';
import type { AuditLog } from '../../state/audit.js';
import type { Logger } from '../../telemetry/log.js';
import { WATCH_ID_PATTERN, type Watch, type WatchStore } from '../../watches/store.js';
import { UserFacingError } from '../engine/errors.js';
import type { RunContext, WatchClick, WatchDesk } from '../engine/types.js';
import { formatUtc } from '../shared/time-args.js';
import { announceEnd } from './endings.js';
import { SNOOZE_MS, watchList, watchMessage } from './render.js';
import { startWatch, type WatchLimits } from './start.js';

export interface WatchDeskOptions {
  store: WatchStore;
  authorizer: Authorizer;
  audit: AuditLog;
  logger: Logger;
  limits: WatchLimits;
  now: () => number;
}

export function createWatchDesk(options: WatchDeskOptions): WatchDesk {
  const { store, now } = options;

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
    if (!watch)
      throw new UserFacingError(
        `There is no watch ${id}: none was ever made with that id (ended watches are kept). Type /edge watches to see the running ones.`,
      );
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
    start: (ctx, request) => startWatch(options, ctx, request),

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
