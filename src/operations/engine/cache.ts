import type { Clock } from '../../time/clock.js';
import type { TtlCache } from './types.js';

/** An in-process cache with expiry; each replica keeps its own, which is fine for read-only data. */
export function createTtlCache(now: Clock): TtlCache {
  const entries = new Map<string, { value: unknown; expires: number }>();
  return {
    get<T>(key: string): T | undefined {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expires <= now()) {
        entries.delete(key);
        return undefined;
      }
      return entry.value as T;
    },
    set(key, value, ttlMs) {
      entries.set(key, { value, expires: now() + ttlMs });
    },
  };
}
