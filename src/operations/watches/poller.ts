/**
 * The background side of watches: one poller per bot process. Each tick it takes the lease of
 * every due watch it can (free, expired, or its own), downloads each pull zone's current day
 * once for all the watches of that zone, counts what is new, saves it under the lease, and
 * updates the watch messages and alerts. Time is the injected clock's; the timer only wakes it.
 * Each part is a file of poller/, working on the state passed in (poller/state.ts).
 */
import type { Messenger } from '../engine/ports.js';
import { createTicker } from '../shared/ticker.js';
import { createCallBudget } from './poller/budget.js';
import { pass } from './poller/pass.js';
import type { PollerDeps, PollerState } from './poller/state.js';

export interface WatchPollerOptions extends PollerDeps {
  callsPerMinute: number;
  /** How often the timer wakes the poller (real time); due-ness is decided on the clock. */
  tickMs?: number;
}

export interface WatchPoller {
  /** Starts the timer; `messenger` posts and updates outside any request. */
  start(messenger: Messenger): void;
  /** One pass over the due watches; passes never overlap (a second waits for the first). */
  tick(): Promise<void>;
  /** Stops the timer and frees this replica's leases, so another replica takes over at once. */
  close(): Promise<void>;
}

export function createWatchPoller(options: WatchPollerOptions): WatchPoller {
  const { store, logger, instanceId } = options;
  const state: PollerState = {
    ...options,
    budget: createCallBudget(options.callsPerMinute, options.now),
    messenger: undefined,
    closed: false,
    downloads: new Set(),
  };

  const ticker = createTicker(() => pass(state), {
    tickMs: options.tickMs,
    onError: (error) => logger.warn('a watch poll pass failed', { error }),
  });

  return {
    start(surface) {
      state.messenger = surface;
      ticker.start();
    },
    tick: ticker.tick,
    async close() {
      state.closed = true;
      ticker.stop();
      for (const controller of state.downloads) controller.abort(new Error('the bot is shutting down'));
      await ticker.idle();
      await store
        .releaseLeases(instanceId)
        .catch((error: unknown) => logger.warn('watch leases could not be released', { error }));
    },
  };
}
