/**
 * De-duplication of Slack's redeliveries. A first delivery (no X-Slack-Retry-Num) cannot have
 * been seen by any replica, so it is remembered in memory at once and written to the state
 * database in small batches shortly after; a redelivery, which Slack sends only after its
 * 3-second deadline, is checked against the database, where the first delivery's record has
 * long since landed. This keeps a synchronous database write off every command's path.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { StateStore } from '../state/store.js';

export interface Deliveries {
  /** True when this delivery should be handled; false for a redelivery already handled. */
  firstTime(key: string, retryNum: number | undefined): Promise<boolean>;
  /** Writes what is pending now (tests, shutdown). */
  flush(): Promise<void>;
}

export function createDeliveries(options: {
  state: StateStore;
  logger: Logger;
  ttlMs: number;
  now: Clock;
  /** How long first deliveries wait to be written together. */
  batchMs?: number;
}): Deliveries {
  const { state, logger, ttlMs } = options;
  const seen = new Map<string, number>();
  let pending: string[] = [];
  let timer: NodeJS.Timeout | undefined;

  const forgetOld = (now: number) => {
    for (const [key, expires] of seen) {
      if (expires > now) break;
      seen.delete(key);
    }
  };

  async function flush(): Promise<void> {
    timer = undefined;
    const keys = pending;
    pending = [];
    await state.recordClaims(keys, ttlMs).catch((error: unknown) => {
      logger.warn('delivery records could not be written', { error, count: keys.length });
    });
  }

  return {
    async firstTime(key, retryNum) {
      const now = options.now();
      forgetOld(now);
      if (seen.has(key)) return false;
      seen.set(key, now + ttlMs);
      if (retryNum && retryNum > 0) return state.claimOnce(key, ttlMs).catch(() => true);
      pending.push(key);
      timer ??= setTimeout(() => void flush(), options.batchMs ?? 50);
      timer.unref();
      return true;
    },
    flush,
  };
}
