/**
 * Identical requests in one channel within a minute share one answer: five responders typing
 * the same `/edge logs` at once cost one download, and each of them is pointed to the one thread.
 * An entry lives one minute from its start (by the injected clock), and the table holds at most
 * `maxEntries`, the oldest dropped first, so it never grows without bound. A service built by
 * the runtime, in this process only.
 */
import type { MessageRef, Reply } from '../../reply/model.js';

/** How a shared answer ended, as each asker who joined it is told. */
export type SharedOutcome =
  /** Posted in the channel (or its thread); `ref` when there is a message to link to. */
  | { kind: 'posted'; ref?: MessageRef }
  /** Shown to its asker alone (nothing matched, no entries): every asker gets the same answer. */
  | { kind: 'private'; reply: Reply }
  /** Its starter cancelled it: nothing was posted. */
  | { kind: 'cancelled' }
  /** It could only go to its starter's DM, where no one else can see it: each asker fetches their own. */
  | { kind: 'unshared' };

export interface SharedStart {
  /** Who asked first, and so runs the work (and alone can cancel it). */
  starter: string;
  startedAt: number;
  /** Whether the answer is out already. */
  settled: boolean;
}

export type SharedAnswer =
  | { first: true; outcome: Promise<SharedOutcome> }
  | ({ first: false; outcome: Promise<SharedOutcome> } & SharedStart);

export interface SharedAnswers {
  /**
   * Joins the answer under way (or given within the minute) for `key`; when there is none, runs
   * `start` as that answer. A failed, cancelled or unshared answer is not shared with later askers.
   */
  share(key: string, requester: string, start: () => Promise<SharedOutcome>): SharedAnswer;
  /** Entries held now (for tests of the bound). */
  size(): number;
}

interface Entry extends SharedStart {
  outcome: Promise<SharedOutcome>;
}

export const SHARE_WINDOW_MS = 60_000;

export function createSharedAnswers(options: {
  now: () => number;
  windowMs?: number;
  maxEntries?: number;
}): SharedAnswers {
  const windowMs = options.windowMs ?? SHARE_WINDOW_MS;
  const maxEntries = options.maxEntries ?? 256;
  const entries = new Map<string, Entry>();

  const expire = (now: number) => {
    for (const [key, entry] of entries) if (now - entry.startedAt >= windowMs) entries.delete(key);
  };

  return {
    share(key, requester, start) {
      const now = options.now();
      expire(now);
      const found = entries.get(key);
      if (found)
        return {
          first: false,
          starter: found.starter,
          startedAt: found.startedAt,
          settled: found.settled,
          outcome: found.outcome,
        };
      // Oldest first: a Map keeps insertion order.
      while (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      const entry: Entry = { starter: requester, startedAt: now, settled: false, outcome: start() };
      entries.set(key, entry);
      entry.outcome.then(
        (outcome) => {
          entry.settled = true;
          if ((outcome.kind === 'cancelled' || outcome.kind === 'unshared') && entries.get(key) === entry)
            entries.delete(key);
        },
        () => {
          if (entries.get(key) === entry) entries.delete(key);
        },
      );
      return { first: true, outcome: entry.outcome };
    },
    size: () => entries.size,
  };
}
