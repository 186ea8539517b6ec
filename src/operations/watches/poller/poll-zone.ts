/**
 * One poll of a pull zone: its days downloaded once for all its watches, each watch's new
 * entries counted, saved and shown; a failed download slows the watches down or says why.
 */
import { performance } from 'node:perf_hooks';
import { PlatformError } from '../../../platform/errors.js';
import { PollCounter, type WatchProgress } from '../../../watches/progress.js';
import type { Watch } from '../../../watches/store.js';
import { newCorrelationId } from '../../engine/failure.js';
import { postAlerts, refreshMessage } from './announce.js';
import { daysToRead, download, failureOf } from './download.js';
import { LeaseLostError, leaseKeeper } from './lease.js';
import { savePoll } from './save.js';
import type { PollerState } from './state.js';

/** The most a 429 stretches the interval: 2, 4, then 8 times. */
const MAX_SLOW_LEVEL = 3;

export async function pollZone(
  state: PollerState,
  pullZoneId: number,
  watches: Watch[],
  nowMs: number,
  deadline: number,
) {
  const { logger } = state;
  const days = daysToRead(nowMs, Math.max(...watches.map((watch) => watch.everyMs)), watches);
  if (!state.budget.take(days.length)) {
    logger.info('watch poll waits for the shared platform budget', { pullZone: pullZoneId });
    return;
  }
  const counters = watches.map((watch) => new PollCounter(watch.progress, watch, watch.startedAt, nowMs));
  const started = performance.now();
  try {
    await download(state, pullZoneId, days, counters, deadline, leaseKeeper(state, watches));
  } catch (error) {
    // Stopped by close(): the leases are handed back, the next holder polls again.
    if (state.closed) return;
    if (error instanceof LeaseLostError) {
      logger.info('a watch download stopped: another replica holds its leases now', {
        pullZone: pullZoneId,
      });
      return;
    }
    const slowed = error instanceof PlatformError && error.kind === 'rate-limited';
    const correlationId = newCorrelationId();
    logger.warn(slowed ? 'the platform asked watches to wait' : 'a watch poll failed', {
      pullZone: pullZoneId,
      correlationId,
      error,
    });
    for (const watch of watches) {
      const level = slowed ? Math.min(MAX_SLOW_LEVEL, (watch.progress.slowed?.level ?? 0) + 1) : 0;
      const progress: WatchProgress = {
        ...watch.progress,
        slowed: slowed ? { level } : watch.progress.slowed,
        failure: slowed ? null : failureOf(error, correlationId),
      };
      await alone(state, watch, async () => {
        const saved = await savePoll(state, watch, progress, null, nowMs + watch.everyMs * 2 ** level);
        if (saved) await refreshMessage(state, saved);
      });
    }
    return;
  }
  state.metrics.watchPolled((performance.now() - started) / 1000);
  for (const [index, watch] of watches.entries()) {
    const outcome = counters[index]!.finish(watch.alert);
    await alone(state, watch, async () => {
      const saved = await savePoll(state, watch, outcome.progress, nowMs, nowMs + watch.everyMs);
      if (!saved) return;
      // A channel gone for the bot ended the watch: no alert goes there either.
      if (!(await refreshMessage(state, saved))) return;
      await postAlerts(state, saved, outcome, nowMs).catch((error: unknown) =>
        logger.warn('a watch whose alert failed could not be ended', { watch: watch.id, error }),
      );
    });
  }
}

/**
 * One watch's part of a poll: saved, shown, alerted. A failure there (the state database, an
 * audit write as the watch ends) is that watch's: the next poll tries again, the others go on.
 */
async function alone(state: PollerState, watch: Watch, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    state.logger.warn('a watch poll could not be saved or shown', { watch: watch.id, error });
  }
}
