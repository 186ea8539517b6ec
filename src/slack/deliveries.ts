/**
 * De-duplication of Slack's redeliveries, across every replica sharing the state database.
 *
 * - A delivery that changes something (a command that runs or asks for a change, an approval
 *   click, a form that creates or changes) is claimed in the state database before it runs: the
 *   one claim that lands runs, whichever replica the first delivery or a redelivery reached. When
 *   the database cannot say, it fails closed and nothing runs.
 * - A read's first delivery (no X-Slack-Retry-Num) cannot have been seen by any replica, so it is
 *   remembered in memory at once and written in small batches shortly after; a redelivery, which
 *   Slack sends only after its 3-second deadline, is checked against the database. A read run
 *   twice costs an extra answer, never a second change, so no synchronous write slows it down.
 */

import { InternalError } from '../errors.js';
import type { StateStore } from '../state/store.js';
import type { Logger } from '../telemetry/log.js';
import type { Clock } from '../time/clock.js';

/** The state database could not record a change's delivery: it is not run. */
export class DeliveryUnrecordedError extends InternalError {
  override name = 'DeliveryUnrecordedError';
  readonly kind = 'delivery-unrecorded';
}

/** One delivery of a request, as Slack sent it. */
export interface Delivery {
  /** What names the request across its redeliveries (a trigger_id, an event_id, a view's hash). */
  key: string;
  /** Slack's X-Slack-Retry-Num: set on a redelivery. */
  retryNum: number | undefined;
  /** It changes something (or asks for a change): claimed in the state database before it runs. */
  changes: boolean;
}

/** What `once` does instead of running a delivery. */
export interface NotRun {
  /** What a redelivery is logged as: `duplicate ${what} ignored`. */
  what: string;
  /** Who sent it, for the log line. */
  userId: string;
  /** Tells the user a change was not run, its delivery unrecorded (fail closed). */
  unrecorded: () => Promise<void>;
}

export interface Deliveries {
  /**
   * Runs `run` for the first delivery of a request, and for no redelivery of it: a redelivery
   * already handled is logged and ignored, and a change whose delivery the state database cannot
   * record is not run, the user told instead.
   */
  once(delivery: Delivery, run: () => Promise<unknown>, notRun: NotRun): Promise<void>;
  /**
   * True when this delivery should be handled; false for a redelivery already handled. With
   * `changes`, the claim is stored before this resolves, and a store that cannot say throws
   * DeliveryUnrecordedError.
   */
  firstTime(key: string, retryNum: number | undefined, options?: { changes?: boolean }): Promise<boolean>;
  /** Writes what is pending now (tests, shutdown). */
  flush(): Promise<void>;
}

export function createDeliveries(options: {
  state: StateStore;
  logger: Logger;
  ttlMs: number;
  now: Clock;
  /** How long first deliveries of reads wait to be written together. */
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

  async function claimChange(key: string): Promise<boolean> {
    let claimed: boolean;
    try {
      claimed = await state.claimOnce(key, ttlMs);
    } catch (error) {
      logger.error('a delivery could not be recorded; the change is not run', { error });
      throw new DeliveryUnrecordedError('the state database could not record this delivery', {
        cause: error,
      });
    }
    seen.set(key, options.now() + ttlMs);
    return claimed;
  }

  async function firstTime(
    key: string,
    retryNum: number | undefined,
    firstOptions?: { changes?: boolean },
  ): Promise<boolean> {
    const now = options.now();
    forgetOld(now);
    if (seen.has(key)) return false;
    if (firstOptions?.changes) return claimChange(key);
    seen.set(key, now + ttlMs);
    if (retryNum && retryNum > 0) return state.claimOnce(key, ttlMs).catch(() => true);
    pending.push(key);
    timer ??= setTimeout(() => void flush(), options.batchMs ?? 50);
    timer.unref();
    return true;
  }

  async function once(delivery: Delivery, run: () => Promise<unknown>, notRun: NotRun): Promise<void> {
    let fresh: boolean;
    try {
      fresh = await firstTime(delivery.key, delivery.retryNum, { changes: delivery.changes });
    } catch (error) {
      if (!(error instanceof DeliveryUnrecordedError)) throw error;
      await notRun.unrecorded();
      return;
    }
    if (!fresh) {
      logger.info(`duplicate ${notRun.what} ignored`, { user: notRun.userId });
      return;
    }
    await run();
  }

  return { once, firstTime, flush };
}
