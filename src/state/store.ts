import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Client, createClient } from '@libsql/client';
import { z } from 'zod';
import { InternalError } from '../errors.js';
import type { Logger } from '../telemetry/log.js';
import { retryBusy } from './busy.js';
import { busySafeClient } from './busy-safe-client.js';
import { applyMigrations, type Migration } from './migrations.js';

export const DEFAULT_STATE_DATABASE_URL = 'file:data/edgeops.db';

/** `file` is shared by processes on one host; `remote` is a libSQL server over Hrana. */
export type StateDatabaseKind = 'file' | 'memory' | 'remote';

export interface StateStoreOptions {
  /** STATE_DATABASE_URL: `file:PATH`, `:memory:`, `libsql://`, `http(s)://` or `ws(s)://`. */
  url?: string;
  authToken?: string;
  logger: Logger;
  /** The bot's clock, as a Date (claims expire by it; migrations are stamped with it). */
  now: () => Date;
  /** How long SQLite waits for another process's lock before answering SQLITE_BUSY (file databases). */
  busyTimeoutMs?: number;
  /** How long ping() waits for its query. */
  pingTimeoutMs?: number;
  /** False opens without touching the schema (tools that only read, tests of an unreachable server). */
  migrate?: boolean;
  /** Every schema change, oldest first (src/runtime/migrations.ts). */
  migrations: readonly Migration[];
}

export interface StateStore {
  /**
   * The libSQL client, for the other state tables. Write with `batch(…, 'write')` or one
   * conditional statement: on `file:` databases the driver is synchronous, so a transaction
   * held open across an await makes this process's next write wait out the busy timeout.
   */
  readonly client: Client;
  readonly kind: StateDatabaseKind;
  readonly now: () => Date;
  /** For /readyz: true when a trivial query succeeds within the ping timeout. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
  /**
   * True for exactly one caller per key until `ttlMs` has passed, across every replica sharing
   * the database: the guard against Slack retries and double clicks.
   */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
  /** Deletes expired claims (the approval sweep calls it), keeping the table small. */
  purgeClaims(): Promise<number>;
  /** Records several claims in one transaction, keeping any that exist (first deliveries). */
  recordClaims(keys: readonly string[], ttlMs: number): Promise<void>;
}

/** The state database could not be opened or prepared; the message never carries the URL. */
export class StateStoreError extends InternalError {
  readonly kind = 'state-store';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StateStoreError';
  }
}

export function stateDatabaseKind(url: string): StateDatabaseKind {
  if (url === ':memory:' || url.startsWith('file::memory:')) return 'memory';
  if (url.startsWith('file:')) return 'file';
  return 'remote';
}

/** The filesystem path of a `file:` URL (`file:data/x.db`, `file:/abs/x.db`, `file:///abs/x.db`). */
export function filePathOf(url: string): string {
  let rest = url.slice('file:'.length);
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    rest = slash === -1 ? '' : rest.slice(slash);
  }
  const query = rest.search(/[?#]/);
  if (query !== -1) rest = rest.slice(0, query);
  return decodeURIComponent(rest);
}

const ClaimedRowSchema = z.object({ key: z.string() });
const CLAIMS_PER_INSERT = 300;
const JournalModeRowSchema = z.object({ journal_mode: z.string() });

export async function openStateStore(options: StateStoreOptions): Promise<StateStore> {
  const url = options.url ?? DEFAULT_STATE_DATABASE_URL;
  const kind = stateDatabaseKind(url);
  const now = options.now;
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const pingTimeoutMs = options.pingTimeoutMs ?? 1000;
  const logger = options.logger.child({ component: 'state' });

  let client: Client;
  try {
    if (kind === 'file') {
      const path = filePathOf(url);
      if (dirname(path) !== '.') mkdirSync(dirname(path), { recursive: true });
    }
    // `timeout` is the driver's busy_timeout, set on every pooled connection (a PRAGMA reaches only one).
    const raw = createClient({
      url,
      authToken: options.authToken,
      intMode: 'number',
      timeout: busyTimeoutMs,
    });
    client = kind === 'file' ? busySafeClient(raw) : raw;
  } catch (error) {
    throw new StateStoreError('could not open the state database (check STATE_DATABASE_URL)', {
      cause: error,
    });
  }

  try {
    if (kind === 'file') {
      // WAL lets readers run beside the one writer; the mode is stored in the file, so once is enough.
      const result = await retryBusy(() => client.execute('PRAGMA journal_mode=WAL'));
      const mode = JournalModeRowSchema.safeParse(result.rows[0]);
      if (!mode.success || mode.data.journal_mode.toLowerCase() !== 'wal')
        logger.warn('state database is not in WAL mode; concurrent replicas will wait on each other');
      // In WAL mode NORMAL still survives a process crash; it skips an fsync per commit, which
      // on the synchronous embedded driver is time the event loop would otherwise stand still.
      else await retryBusy(() => client.execute('PRAGMA synchronous=NORMAL'));
    }
    if (options.migrate ?? true)
      await applyMigrations(client, { logger, now, migrations: options.migrations });
  } catch (error) {
    client.close();
    if (error instanceof StateStoreError) throw error;
    throw new StateStoreError('could not prepare the state database', { cause: error });
  }
  logger.info('state database open', kind === 'file' ? { kind, path: filePathOf(url) } : { kind });

  return {
    client,
    kind,
    now,

    async ping() {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), pingTimeoutMs);
      });
      const answered = (async () => {
        try {
          await client.execute('SELECT 1');
          return true;
        } catch {
          return false;
        }
      })();
      try {
        return await Promise.race([answered, timedOut]);
      } finally {
        clearTimeout(timer);
      }
    },

    async close() {
      client.close();
    },

    async recordClaims(keys, ttlMs) {
      if (keys.length === 0) return;
      const at = now().getTime();
      // One multi-row INSERT per chunk, not a statement per key: on a busy bot this runs every
      // few milliseconds. 300 rows keep to SQLite's smallest limit of 999 parameters.
      const statements: { sql: string; args: (string | number)[] }[] = [];
      for (let i = 0; i < keys.length; i += CLAIMS_PER_INSERT) {
        const chunk = keys.slice(i, i + CLAIMS_PER_INSERT);
        statements.push({
          sql: `INSERT INTO claims (key, claimed_at, expires_at) VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')} ON CONFLICT (key) DO NOTHING`,
          args: chunk.flatMap((key) => [key, at, at + Math.ceil(ttlMs)]),
        });
      }
      await retryBusy(() => client.batch(statements, 'write'));
    },

    async purgeClaims() {
      const result = await retryBusy(() =>
        client.execute({ sql: 'DELETE FROM claims WHERE expires_at <= ?', args: [now().getTime()] }),
      );
      return result.rowsAffected;
    },

    async claimOnce(key, ttlMs) {
      if (key.length === 0) throw new TypeError('claim key must not be empty');
      if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError('claim ttlMs must be positive');
      const at = now().getTime();
      // One statement: a new key is inserted, an expired one taken over, a live one left alone.
      const inserted = await retryBusy(() =>
        client.execute({
          sql: `INSERT INTO claims (key, claimed_at, expires_at) VALUES (?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET claimed_at = excluded.claimed_at, expires_at = excluded.expires_at
                WHERE claims.expires_at <= excluded.claimed_at
                RETURNING key`,
          args: [key, at, at + Math.ceil(ttlMs)],
        }),
      );
      return (inserted?.rows ?? []).some((row) => ClaimedRowSchema.safeParse(row).success);
    },
  };
}
