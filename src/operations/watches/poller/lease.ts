/**
 * The leases that keep one replica polling a watch: taken before a download, renewed while it
 * runs, saved with the poll. A dead replica's watches move within two intervals, and a live
 * one's never while it downloads.
 */
import { EdgeopsError } from '../../../errors.js';
import type { Watch, WatchHead } from '../../../watches/store.js';
import type { PollerState } from './state.js';

/**
 * The lease outlives the next poll by half an interval, and a download under way renews it every
 * half interval: a dead replica's watches move within two intervals, and a live one's never while
 * it downloads.
 */
export const leaseUntil = (nextPollAt: number, everyMs: number) => nextPollAt + Math.ceil(everyMs / 2);

/** Every lease of a download was taken by another replica meanwhile: it stops, saving nothing. */
export class LeaseLostError extends EdgeopsError {
  override name = 'LeaseLostError';
  readonly kind = 'lease-lost';
  readonly outcome = 'failed';
  readonly unexpected = false;
  readonly userMessage = 'another replica polls these watches now';

  constructor() {
    super('the leases of this download were taken by another replica');
  }
}

/** Takes the lease of each watch it can, at `startedAt`; the watches it now holds. */
export async function takeLeases(state: PollerState, heads: readonly WatchHead[], startedAt: number) {
  const { store, instanceId, logger } = state;
  const watches: Watch[] = [];
  for (const head of heads) {
    if (state.closed) break;
    // One watch whose lease cannot be taken (the state database, a row it cannot read) is left
    // for the next pass; the others of its zone are polled now.
    const lease = await store
      .takeLease(head.id, instanceId, startedAt, leaseUntil(startedAt + head.everyMs, head.everyMs))
      .catch((error: unknown) => {
        logger.warn('the lease of a watch could not be taken', { watch: head.id, error });
        return undefined;
      });
    if (!lease) continue;
    if (lease.previousOwner !== null && lease.previousOwner !== instanceId) {
      state.metrics.watchTakenOver();
      logger.info('took over a watch from a replica that stopped renewing it', { watch: head.id });
    }
    watches.push(lease.watch);
  }
  return watches;
}

/** Keeps the leases of a download under way, every half interval; the watches whose lease held. */
export function leaseKeeper(state: PollerState, watches: readonly Watch[]) {
  const { store, now, instanceId, logger } = state;
  const everyMs = Math.min(...watches.map((watch) => watch.everyMs));
  let renewedAt = now();
  return async () => {
    const at = now();
    if (at - renewedAt < everyMs / 2) return;
    renewedAt = at;
    const held = await Promise.all(
      watches.map((watch) =>
        store
          .renewLease(watch.id, instanceId, watch.version, leaseUntil(at + watch.everyMs, watch.everyMs))
          .catch((error: unknown) => {
            logger.warn('a watch lease could not be renewed during its download', {
              watch: watch.id,
              error,
            });
            // Not known to be lost: the save decides.
            return true;
          }),
      ),
    );
    // Another replica holds every lease: it polls these watches, this download is wasted.
    if (!held.includes(true)) throw new LeaseLostError();
  };
}
