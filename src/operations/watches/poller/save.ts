/** A poll's counts saved under the lease: only the replica that still holds it may save. */
import type { WatchProgress } from '../../../watches/progress.js';
import type { Watch } from '../../../watches/store.js';
import { leaseUntil } from './lease.js';
import type { PollerState } from './state.js';

/** Saves the poll under the lease; the watch as saved, or undefined when the lease was lost. */
export async function savePoll(
  state: PollerState,
  watch: Watch,
  progress: WatchProgress,
  polledAt: number | null,
  nextPollAt: number,
): Promise<Watch | undefined> {
  const saved = await state.store.savePoll(watch.id, state.instanceId, watch.version, {
    progress,
    nextPollAt,
    polledAt,
    leaseExpiresAt: leaseUntil(nextPollAt, watch.everyMs),
  });
  if (!saved) {
    state.logger.info('a watch lease was lost during its poll; its counts were left to the new holder', {
      watch: watch.id,
    });
    return undefined;
  }
  return {
    ...watch,
    progress,
    lastPolledAt: polledAt ?? watch.lastPolledAt,
    nextPollAt,
    version: watch.version + 1,
  };
}
