/**
 * The background side of digests: one runner per bot process. Each tick it looks for the digests
 * whose next occurrence has come (on the injected clock; the timer only wakes it) and runs them:
 * the digests of one zone one after the other, so that the second reads the day files the first
 * kept instead of downloading them again, and at most as many zones at once as the report pool
 * has threads, so that they queue there instead of stampeding.
 */
import { availableParallelism } from 'node:os';
import type { Digest } from '../../state/digests.js';
import type { Messenger } from '../engine/ports.js';
import { createTicker } from '../shared/ticker.js';
import { type DigestRunnerDeps, type DigestRunnerState, runOccurrence } from './run.js';

export interface DigestRunnerOptions extends DigestRunnerDeps {
  /** How often the timer wakes the runner (real time); due-ness is decided on the clock. */
  tickMs?: number;
  /** Zones summarised at once; by default the report pool's threads. */
  concurrency?: number;
}

export interface DigestRunner {
  /** Starts the timer; `messenger` posts outside any request. */
  start(messenger: Messenger): void;
  /** One pass over the due digests; passes never overlap (a second waits for the first). */
  tick(): Promise<void>;
  /** Stops the timer and the runs under way, and lets their claims go to another replica at once. */
  close(): Promise<void>;
}

/** The due digests, those of one zone together, in the order they came due. */
function byZone(due: readonly Digest[]): Digest[][] {
  const groups = new Map<string, Digest[]>();
  for (const digest of due) {
    const key = `${digest.kind}/${digest.zoneId}`;
    groups.set(key, [...(groups.get(key) ?? []), digest]);
  }
  return [...groups.values()];
}

async function pass(state: DigestRunnerState, concurrency: number): Promise<void> {
  if (state.closed || !state.messenger) return;
  const foundAt = state.now();
  const waiting = byZone(await state.store.due(foundAt));
  const worker = async () => {
    for (let group = waiting.shift(); group && !state.closed; group = waiting.shift())
      for (const digest of group) {
        if (state.closed) return;
        await runOccurrence(state, digest, foundAt).catch((error: unknown) =>
          state.logger.warn('a digest run failed', { digest: digest.id, error }),
        );
      }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, waiting.length) }, worker));
}

export function createDigestRunner(options: DigestRunnerOptions): DigestRunner {
  const { logger, store, instanceId } = options;
  const state: DigestRunnerState = { ...options, messenger: undefined, closed: false, runs: new Set() };
  const concurrency = options.concurrency ?? Math.max(1, availableParallelism() - 1);

  const ticker = createTicker(() => pass(state, concurrency), {
    tickMs: options.tickMs,
    onError: (error) => logger.warn('a digest pass failed', { error }),
  });

  return {
    start(messenger) {
      state.messenger = messenger;
      ticker.start();
    },
    tick: ticker.tick,
    async close() {
      state.closed = true;
      ticker.stop();
      for (const controller of state.runs) controller.abort(new Error('the bot is shutting down'));
      await ticker.idle();
      await store
        .release(instanceId)
        .catch((error: unknown) => logger.warn('digest claims could not be released', { error }));
    },
  };
}
