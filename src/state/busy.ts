import { LibsqlError } from '@libsql/client';

/** SQLITE_BUSY's primary result code; extended codes (BUSY_SNAPSHOT, BUSY_RECOVERY…) share its low byte. */
const SQLITE_BUSY = 5;

/** True when another connection (another replica, another process) held the database lock. */
export function isBusyError(error: unknown): boolean {
  if (!(error instanceof LibsqlError)) return false;
  if (error.code.startsWith('SQLITE_BUSY')) return true;
  if (error.extendedCode?.startsWith('SQLITE_BUSY')) return true;
  if (error.rawCode !== undefined && (error.rawCode & 0xff) === SQLITE_BUSY) return true;
  // Remote servers do not always forward the code, only SQLite's message.
  return /database is locked/i.test(error.message);
}

export interface RetryBusyOptions {
  /** Tries in all, the first included. */
  attempts?: number;
  /** The first pause; each later pause doubles up to `maxDelayMs`, with ±50 % jitter so replicas do not retry in step. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/**
 * Enough tries to outlast a burst of writers on a libSQL server, which answers SQLITE_BUSY at
 * once rather than waiting as a local file's busy timeout does: about 2.5 s of pauses in all.
 */
const DEFAULT_ATTEMPTS = 12;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` again when it fails with SQLITE_BUSY. The busy timeout already waits inside
 * SQLite; this covers the cases where SQLite gives up without waiting (a stale WAL snapshot,
 * recovery, a journal-mode change) or the wait ran out while another replica was writing.
 */
export async function retryBusy<T>(work: () => Promise<T>, options: RetryBusyOptions = {}): Promise<T> {
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const baseDelayMs = options.baseDelayMs ?? 25;
  const maxDelayMs = options.maxDelayMs ?? 250;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isBusyError(error)) throw error;
      await sleep(Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)) * (0.5 + random()));
    }
  }
}
