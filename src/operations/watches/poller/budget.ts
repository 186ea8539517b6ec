/** The platform calls all watches share: a token bucket on the injected clock. */
import type { Clock } from '../../../time/clock.js';

export interface CallBudget {
  /** Takes `calls` from the bucket; false (taking nothing) when it holds fewer. */
  take(calls: number): boolean;
}

/** A token bucket on the injected clock: the platform calls all watches may make per minute. */
export function createCallBudget(perMinute: number, now: Clock): CallBudget {
  let tokens = perMinute;
  let at = now();
  return {
    take(calls) {
      const current = now();
      tokens = Math.min(perMinute, tokens + ((current - at) / 60_000) * perMinute);
      at = current;
      if (tokens < calls) return false;
      tokens -= calls;
      return true;
    },
  };
}
