/** Starting a watch: stored within the caps, then its message posted where it was asked. */
import { randomBytes } from 'node:crypto';
import { formatDuration } from '../../time/duration.js';
import { initialProgress } from '../../watches/progress.js';
import type { WatchStore } from '../../watches/store.js';
import { UserFacingError } from '../engine/errors.js';
import type { RunContext, WatchRequest } from '../engine/types.js';
import { goneFromChannel } from '../shared/delivery-errors.js';
import { watchMessage } from './render.js';

export interface WatchLimits {
  minEveryMs: number;
  perUser: number;
  perWorkspace: number;
}

/** Stores the watch within the caps and posts its message; a watch whose message cannot be posted does not start. */
export async function startWatch(
  options: { store: WatchStore; limits: WatchLimits; now: () => number },
  ctx: RunContext,
  request: WatchRequest,
): Promise<undefined> {
  const { store, limits, now } = options;
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
}
