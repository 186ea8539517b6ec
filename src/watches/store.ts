/**
 * The watches table: the row codec and every statement. A lease is taken or renewed by one
 * conditional UPDATE (free, expired or already ours), and a poll's progress is saved only by the
 * UPDATE that finds the lease still ours, so two replicas never both count one poll. This module
 * reads no clock: callers pass the time in.
 */
import type { Client, InStatement, ResultSet, Row } from '@libsql/client';
import { z } from 'zod';
import { InternalError } from '../errors.js';
import { retryBusy } from '../state/busy.js';
import { type WatchProgress, WatchProgressSchema } from './progress.js';

export const WATCH_ID_PATTERN = /^wa_[0-9a-f]{12}$/;

/** How long a watch may stay without its message before it is taken as never started. */
export const UNPOSTED_MS = 5 * 60_000;
/** How long an ended watch is kept (its buttons then still say it ended); removed when another ends. */
export const ENDED_KEPT_MS = 35 * 86_400_000;

/**
 * Why a watch ended: Stop, its `--for` reached, or the policy no longer grants it to its owner.
 * `channel`: its message can no longer be posted or updated there (archived, bot removed, deleted).
 * `approval`: an approval rule now names watch.logs, and this watch was never approved.
 */
export const END_REASONS = ['stopped', 'finished', 'policy', 'channel', 'approval'] as const;
export type EndReason = (typeof END_REASONS)[number];

/** The watches table could not be read or written; the person who asked reads only that it is ours. */
export class WatchStoreError extends InternalError {
  readonly kind = 'watch-store';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WatchStoreError';
  }
}

export interface Watch {
  id: string;
  owner: string;
  channelId: string;
  /** The thread it was asked in, when it was. */
  threadTs: string | null;
  /** The watch message, once posted. */
  messageTs: string | null;
  pullZoneId: number;
  status: string | null;
  code: string | null;
  everyMs: number;
  startedAt: number;
  endsAt: number;
  alert: { count: number; windowMs: number } | null;
  snoozedUntil: number | null;
  state: 'running' | 'ended';
  endedReason: EndReason | null;
  endedBy: string | null;
  endedAt: number | null;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  nextPollAt: number;
  lastPolledAt: number | null;
  /** Raised by every lease taken, poll saved and ending: a poll is saved only over the version it leased. */
  version: number;
  /** The approval request it was started by, when an approval rule held it. */
  approvalId: string | null;
  progress: WatchProgress;
}

/** A watch without its progress: what deciding whether to poll it needs, cheap to read in bulk. */
export type WatchHead = Omit<Watch, 'progress'>;

export type NewWatch = Omit<
  Watch,
  | 'messageTs'
  | 'snoozedUntil'
  | 'state'
  | 'endedReason'
  | 'endedBy'
  | 'endedAt'
  | 'leaseOwner'
  | 'leaseExpiresAt'
  | 'lastPolledAt'
  | 'version'
  | 'approvalId'
> & { approvalId?: string | null };

const RowSchema = z.object({
  id: z.string(),
  owner: z.string(),
  channel_id: z.string(),
  thread_ts: z.string().nullable(),
  message_ts: z.string().nullable(),
  pull_zone_id: z.number().int(),
  status_filter: z.string().nullable(),
  code_filter: z.string().nullable(),
  every_ms: z.number().int(),
  started_at: z.number().int(),
  ends_at: z.number().int(),
  alert_count: z.number().int().nullable(),
  alert_window_ms: z.number().int().nullable(),
  snoozed_until: z.number().int().nullable(),
  state: z.enum(['running', 'ended']),
  ended_reason: z.enum(END_REASONS).nullable(),
  ended_by: z.string().nullable(),
  ended_at: z.number().int().nullable(),
  lease_owner: z.string().nullable(),
  lease_expires_at: z.number().int().nullable(),
  next_poll_at: z.number().int(),
  last_polled_at: z.number().int().nullable(),
  version: z.number().int(),
  approval_id: z.string().nullable(),
});
const HEAD_COLUMNS = Object.keys(RowSchema.shape).join(', ');
const COLUMNS = `${HEAD_COLUMNS}, progress_json`;

function toWatch(raw: Row): Watch {
  const head = toHead(raw);
  let progress: WatchProgress;
  try {
    progress = WatchProgressSchema.parse(JSON.parse(z.string().parse(raw.progress_json)));
  } catch (error) {
    throw new WatchStoreError(`watch ${head.id} is unreadable: progress_json has the wrong shape`, {
      cause: error,
    });
  }
  return { ...head, progress };
}

function toHead(raw: Row): WatchHead {
  const parsed = RowSchema.safeParse(raw);
  if (!parsed.success)
    throw new WatchStoreError('a watch row has missing or mistyped columns', { cause: parsed.error });
  const row = parsed.data;
  return {
    id: row.id,
    owner: row.owner,
    channelId: row.channel_id,
    threadTs: row.thread_ts,
    messageTs: row.message_ts,
    pullZoneId: row.pull_zone_id,
    status: row.status_filter,
    code: row.code_filter,
    everyMs: row.every_ms,
    startedAt: row.started_at,
    endsAt: row.ends_at,
    alert:
      row.alert_count !== null && row.alert_window_ms !== null
        ? { count: row.alert_count, windowMs: row.alert_window_ms }
        : null,
    snoozedUntil: row.snoozed_until,
    state: row.state,
    endedReason: row.ended_reason,
    endedBy: row.ended_by,
    endedAt: row.ended_at,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    nextPollAt: row.next_poll_at,
    lastPolledAt: row.last_polled_at,
    version: row.version,
    approvalId: row.approval_id,
  };
}

export type InsertOutcome =
  | { inserted: true }
  | { inserted: false; cap: 'user' | 'workspace'; running: number };

/** The lease after a take: whose it was before (another replica's, when this is a takeover). */
export interface LeaseTaken {
  watch: Watch;
  previousOwner: string | null;
}

export interface WatchStore {
  /** Stores a running watch unless its owner or the workspace is at its cap, in one statement. */
  insert(watch: NewWatch, caps: { perUser: number; perWorkspace: number }): Promise<InsertOutcome>;
  setMessage(id: string, ts: string): Promise<void>;
  get(id: string): Promise<Watch | null>;
  running(): Promise<Watch[]>;
  /** How many watches are running, without reading them. */
  countRunning(): Promise<number>;
  /**
   * Running watches due at `now` whose lease is free, expired or `owner`'s. A watch whose message
   * is not posted yet has nowhere to show its counts and waits, for UNPOSTED_MS at most (then
   * the replica that posted it has died, and the poller ends it).
   */
  due(now: number, owner: string): Promise<WatchHead[]>;
  /** Takes or renews the lease until `expiresAt`; null when another replica holds it. */
  takeLease(id: string, owner: string, now: number, expiresAt: number): Promise<LeaseTaken | null>;
  /**
   * Moves the lease's expiry on while a long download runs, if it is still `owner`'s at
   * `version`; the version stays, so the poll is still saved over it. False when it was lost.
   */
  renewLease(id: string, owner: string, version: number, expiresAt: number): Promise<boolean>;
  /**
   * Saves a poll, if the lease is still `owner`'s and the row is still at `version` (nobody took
   * the lease in between, even if it came back); false when either changed (nothing saved).
   */
  savePoll(
    id: string,
    owner: string,
    version: number,
    change: { progress: WatchProgress; nextPollAt: number; polledAt: number | null; leaseExpiresAt: number },
  ): Promise<boolean>;
  /** `running → ended`; null when it had already ended (someone else ended it first). */
  end(id: string, reason: EndReason, by: string | null, at: number): Promise<Watch | null>;
  /** Pauses alert messages until `until`; null when the watch is not running. */
  snooze(id: string, until: number): Promise<Watch | null>;
  /** Gives up this replica's leases (a clean shutdown), so another takes them at once. */
  releaseLeases(owner: string): Promise<void>;
}

// One piece: one SQL statement per method on the watches table, through the same read and write.
export function createWatchStore(client: Client): WatchStore {
  const write = (statements: InStatement[]): Promise<ResultSet[]> =>
    retryBusy(() => client.batch(statements, 'write')).catch((error: unknown) => {
      throw new WatchStoreError('could not write to the watches table', { cause: error });
    });
  const read = (statement: InStatement): Promise<ResultSet> =>
    retryBusy(() => client.execute(statement)).catch((error: unknown) => {
      throw new WatchStoreError('could not read the watches table', { cause: error });
    });
  const first = (result: ResultSet | undefined) => {
    const row = result?.rows[0];
    return row === undefined ? null : toWatch(row);
  };

  return {
    async insert(watch, caps) {
      const [inserted, counts] = await write([
        {
          sql: `INSERT INTO watches (id, owner, channel_id, thread_ts, pull_zone_id, status_filter, code_filter,
                  every_ms, started_at, ends_at, alert_count, alert_window_ms, state, next_poll_at, progress_json,
                  approval_id)
                SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?
                WHERE (SELECT count(*) FROM watches WHERE state = 'running' AND owner = ?) < ?
                  AND (SELECT count(*) FROM watches WHERE state = 'running') < ?`,
          args: [
            watch.id,
            watch.owner,
            watch.channelId,
            watch.threadTs,
            watch.pullZoneId,
            watch.status,
            watch.code,
            watch.everyMs,
            watch.startedAt,
            watch.endsAt,
            watch.alert?.count ?? null,
            watch.alert?.windowMs ?? null,
            watch.nextPollAt,
            JSON.stringify(watch.progress),
            watch.approvalId ?? null,
            watch.owner,
            caps.perUser,
            caps.perWorkspace,
          ],
        },
        {
          sql: `SELECT (SELECT count(*) FROM watches WHERE state = 'running' AND owner = ?) AS mine,
                       (SELECT count(*) FROM watches WHERE state = 'running') AS total`,
          args: [watch.owner],
        },
      ]);
      if ((inserted?.rowsAffected ?? 0) === 1) return { inserted: true };
      const row = z.object({ mine: z.number(), total: z.number() }).parse(counts?.rows[0]);
      return row.mine >= caps.perUser
        ? { inserted: false, cap: 'user', running: row.mine }
        : { inserted: false, cap: 'workspace', running: row.total };
    },

    async setMessage(id, ts) {
      await write([{ sql: 'UPDATE watches SET message_ts = ? WHERE id = ?', args: [ts, id] }]);
    },

    async get(id) {
      return first(await read({ sql: `SELECT ${COLUMNS} FROM watches WHERE id = ?`, args: [id] }));
    },

    async running() {
      const result = await read(
        `SELECT ${COLUMNS} FROM watches WHERE state = 'running' ORDER BY started_at, id LIMIT 1000`,
      );
      return result.rows.map(toWatch);
    },

    async countRunning() {
      const result = await read("SELECT count(*) AS running FROM watches WHERE state = 'running'");
      return z.number().int().parse(result.rows[0]?.running);
    },

    async due(now, owner) {
      const result = await read({
        sql: `SELECT ${HEAD_COLUMNS} FROM watches
              WHERE state = 'running' AND next_poll_at <= ?
                AND (message_ts IS NOT NULL OR started_at < ?)
                AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_at < ?)
              ORDER BY next_poll_at, id LIMIT 1000`,
        args: [now, now - UNPOSTED_MS, owner, now],
      });
      return result.rows.map(toHead);
    },

    async takeLease(id, owner, now, expiresAt) {
      const [before, updated, after] = await write([
        { sql: 'SELECT lease_owner FROM watches WHERE id = ?', args: [id] },
        {
          sql: `UPDATE watches SET lease_owner = ?, lease_expires_at = ?, version = version + 1
                WHERE id = ? AND state = 'running'
                  AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_at < ?)`,
          args: [owner, expiresAt, id, owner, now],
        },
        { sql: `SELECT ${COLUMNS} FROM watches WHERE id = ?`, args: [id] },
      ]);
      if ((updated?.rowsAffected ?? 0) !== 1) return null;
      const watch = first(after);
      if (!watch) return null;
      const previous = before?.rows[0]?.lease_owner;
      return { watch, previousOwner: typeof previous === 'string' ? previous : null };
    },

    async renewLease(id, owner, version, expiresAt) {
      const [updated] = await write([
        {
          sql: `UPDATE watches SET lease_expires_at = ?
                WHERE id = ? AND state = 'running' AND lease_owner = ? AND version = ?`,
          args: [expiresAt, id, owner, version],
        },
      ]);
      return (updated?.rowsAffected ?? 0) === 1;
    },

    async savePoll(id, owner, version, change) {
      const [updated] = await write([
        {
          sql: `UPDATE watches SET progress_json = ?, next_poll_at = ?, last_polled_at = coalesce(?, last_polled_at),
                  lease_expires_at = ?, version = version + 1
                WHERE id = ? AND state = 'running' AND lease_owner = ? AND version = ?`,
          args: [
            JSON.stringify(change.progress),
            change.nextPollAt,
            change.polledAt,
            change.leaseExpiresAt,
            id,
            owner,
            version,
          ],
        },
      ]);
      return (updated?.rowsAffected ?? 0) === 1;
    },

    async end(id, reason, by, at) {
      const [updated, , after] = await write([
        {
          sql: `UPDATE watches SET state = 'ended', ended_reason = ?, ended_by = ?, ended_at = ?,
                  lease_owner = NULL, lease_expires_at = NULL, version = version + 1
                WHERE id = ? AND state = 'running'`,
          args: [reason, by, at, id],
        },
        // Watches started and ended over the years would otherwise stay for good.
        { sql: `DELETE FROM watches WHERE state = 'ended' AND ended_at < ?`, args: [at - ENDED_KEPT_MS] },
        { sql: `SELECT ${COLUMNS} FROM watches WHERE id = ?`, args: [id] },
      ]);
      return (updated?.rowsAffected ?? 0) === 1 ? first(after) : null;
    },

    async snooze(id, until) {
      const [updated, after] = await write([
        {
          sql: `UPDATE watches SET snoozed_until = ? WHERE id = ? AND state = 'running'`,
          args: [until, id],
        },
        { sql: `SELECT ${COLUMNS} FROM watches WHERE id = ?`, args: [id] },
      ]);
      return (updated?.rowsAffected ?? 0) === 1 ? first(after) : null;
    },

    async releaseLeases(owner) {
      await write([
        {
          sql: `UPDATE watches SET lease_owner = NULL, lease_expires_at = NULL
                WHERE lease_owner = ? AND state = 'running'`,
          args: [owner],
        },
      ]);
    },
  };
}
