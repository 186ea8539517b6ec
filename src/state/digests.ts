/**
 * Scheduled digests and their runs. A digest is a row; each of its occurrences is posted by the
 * replica that inserts (or takes over) the occurrence's row in digest_runs, the claim: one
 * primary key per digest and occurrence, so two replicas never both post one. A claim moves
 * `running → posting → posted | quiet | failed` by conditional UPDATEs; a replica that dies while
 * summarising leaves its claim to be taken over once its lease has run out, one that dies while
 * posting leaves it `posting` for good (posted once or not at all, never twice). This module
 * reads no clock: callers pass the time in.
 */
import type { Client, InStatement, ResultSet, Row } from '@libsql/client';
import { z } from 'zod';
import { InternalError } from '../errors.js';
import { retryBusy } from './busy.js';
import type { Migration } from './migrations.js';

export const DIGEST_ID_PATTERN = /^dg_[0-9a-f]{12}$/;

export const DIGEST_KINDS = ['logs', 'shield'] as const;
export type DigestKind = (typeof DIGEST_KINDS)[number];

/**
 * Why a digest ended: Stop; `policy`, its owner may no longer run what it runs there; `approval`,
 * what it runs now waits for approval there; `channel`, the bot can no longer post there.
 */
export const DIGEST_END_REASONS = ['stopped', 'policy', 'approval', 'channel'] as const;
export type DigestEndReason = (typeof DIGEST_END_REASONS)[number];

export const DIGEST_RUN_STATES = ['running', 'posting', 'posted', 'quiet', 'failed'] as const;
export type DigestRunState = (typeof DIGEST_RUN_STATES)[number];
/** How a run that got as far as posting ended. */
export type DigestRunEnd = Extract<DigestRunState, 'posted' | 'quiet' | 'failed'>;

/** How long a finished run's claim is kept: long after its digest has moved past it. */
const RUNS_KEPT_MS = 35 * 86_400_000;
/** How long an ended digest is kept (its Stop button then still says it stopped); removed when another ends. */
export const ENDED_KEPT_MS = 35 * 86_400_000;

export const digestsMigration: Migration = {
  version: 10,
  name: 'digests and their runs',
  statements: [
    `CREATE TABLE digests (
      id TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      channel_id TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('logs', 'shield')),
      zone_id INTEGER NOT NULL,
      at_minute INTEGER NOT NULL CHECK (at_minute BETWEEN 0 AND 1439),
      time_zone TEXT NOT NULL,
      every TEXT NOT NULL CHECK (every IN ('day', 'weekday', 'week')),
      weekday INTEGER CHECK (weekday BETWEEN 0 AND 6),
      query TEXT,
      filters_json TEXT NOT NULL DEFAULT '[]',
      created_at INTEGER NOT NULL,
      next_run_at INTEGER NOT NULL,
      last_run_at INTEGER,
      state TEXT NOT NULL CHECK (state IN ('running', 'ended')),
      ended_reason TEXT,
      ended_by TEXT,
      ended_at INTEGER,
      approval_id TEXT
    )`,
    'CREATE INDEX digests_due ON digests (state, next_run_at)',
    'CREATE INDEX digests_owner ON digests (owner, state)',
    `CREATE TRIGGER digests_stay_ended BEFORE UPDATE OF state ON digests
     WHEN OLD.state = 'ended' AND NEW.state <> 'ended'
     BEGIN SELECT RAISE(ABORT, 'digests: an ended digest cannot run again'); END`,
    `CREATE TABLE digest_runs (
      digest_id TEXT NOT NULL,
      occurrence_at INTEGER NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('running', 'posting', 'posted', 'quiet', 'failed')),
      runner TEXT NOT NULL,
      lease_expires_at INTEGER NOT NULL,
      claimed_at INTEGER NOT NULL,
      finished_at INTEGER,
      PRIMARY KEY (digest_id, occurrence_at)
    )`,
    // Past posting there is no way back: a run that may have posted is never taken over.
    `CREATE TRIGGER digest_runs_forward BEFORE UPDATE OF state ON digest_runs
     WHEN OLD.state IS NOT NEW.state AND OLD.state || '>' || NEW.state NOT IN (
       'running>posting', 'running>failed', 'posting>posted', 'posting>quiet', 'posting>failed')
     BEGIN SELECT RAISE(ABORT, 'digest_runs: state change not allowed'); END`,
  ],
};

/** The digests tables could not be read or written; the person who asked reads only that it is ours. */
export class DigestStoreError extends InternalError {
  readonly kind = 'digest-store';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DigestStoreError';
  }
}

export interface Digest {
  id: string;
  owner: string;
  channelId: string;
  kind: DigestKind;
  /** The pull zone (logs) or Shield zone (shield). */
  zoneId: number;
  /** Minutes after local midnight. */
  atMinute: number;
  timeZone: string;
  every: 'day' | 'weekday' | 'week';
  weekday: number | null;
  /** Shield only: the export's `--query`. */
  query: string | null;
  /** Shield only: the export's `--filter` values as typed (FIELD:OP:V1,V2). */
  filters: string[];
  createdAt: number;
  /** The next occurrence not yet posted. */
  nextRunAt: number;
  lastRunAt: number | null;
  state: 'running' | 'ended';
  endedReason: DigestEndReason | null;
  endedBy: string | null;
  endedAt: number | null;
  /** The approval request it was set by, when an approval rule held digest.set. */
  approvalId: string | null;
}

export type NewDigest = Omit<
  Digest,
  'lastRunAt' | 'state' | 'endedReason' | 'endedBy' | 'endedAt' | 'approvalId'
> & { approvalId?: string | null };

const RowSchema = z.object({
  id: z.string(),
  owner: z.string(),
  channel_id: z.string(),
  kind: z.enum(DIGEST_KINDS),
  zone_id: z.number().int(),
  at_minute: z.number().int(),
  time_zone: z.string(),
  every: z.enum(['day', 'weekday', 'week']),
  weekday: z.number().int().nullable(),
  query: z.string().nullable(),
  filters_json: z.string(),
  created_at: z.number().int(),
  next_run_at: z.number().int(),
  last_run_at: z.number().int().nullable(),
  state: z.enum(['running', 'ended']),
  ended_reason: z.enum(DIGEST_END_REASONS).nullable(),
  ended_by: z.string().nullable(),
  ended_at: z.number().int().nullable(),
  approval_id: z.string().nullable(),
});
const COLUMNS = Object.keys(RowSchema.shape).join(', ');

function toDigest(raw: Row): Digest {
  const parsed = RowSchema.safeParse(raw);
  if (!parsed.success)
    throw new DigestStoreError('a digest row has missing or mistyped columns', { cause: parsed.error });
  const row = parsed.data;
  const filters = z.array(z.string()).safeParse(JSON.parse(row.filters_json));
  if (!filters.success)
    throw new DigestStoreError(`digest ${row.id} is unreadable: filters_json has the wrong shape`);
  return {
    id: row.id,
    owner: row.owner,
    channelId: row.channel_id,
    kind: row.kind,
    zoneId: row.zone_id,
    atMinute: row.at_minute,
    timeZone: row.time_zone,
    every: row.every,
    weekday: row.weekday,
    query: row.query,
    filters: filters.data,
    createdAt: row.created_at,
    nextRunAt: row.next_run_at,
    lastRunAt: row.last_run_at,
    state: row.state,
    endedReason: row.ended_reason,
    endedBy: row.ended_by,
    endedAt: row.ended_at,
    approvalId: row.approval_id,
  };
}

export type DigestInsertOutcome =
  | { inserted: true }
  | { inserted: false; cap: 'user' | 'workspace'; running: number };

/** One occurrence's claim, as a replica holds it. */
export interface DigestClaim {
  digestId: string;
  occurrenceAt: number;
  runner: string;
}

export interface DigestStore {
  /** Stores a running digest unless its owner or the workspace is at its cap, in one statement. */
  insert(digest: NewDigest, caps: { perUser: number; perWorkspace: number }): Promise<DigestInsertOutcome>;
  get(id: string): Promise<Digest | null>;
  /** Running digests, oldest first. */
  running(): Promise<Digest[]>;
  /** Running digests whose next occurrence has come by `now`. */
  due(now: number): Promise<Digest[]>;
  /**
   * Claims an occurrence for `runner` until `leaseUntil`: a new claim, or one whose replica died
   * while summarising (its lease ran out before it began to post). False when another holds it
   * or it has gone further.
   */
  claim(claim: DigestClaim, now: number, leaseUntil: number): Promise<boolean>;
  /** Moves the lease of a run still summarising on; false when it was lost. */
  renew(claim: DigestClaim, leaseUntil: number): Promise<boolean>;
  /**
   * `running → posting`, by the claim's holder only and while the digest still runs (a Stop while it
   * was summarised posts nothing): after this nobody else may post it.
   */
  beginPosting(claim: DigestClaim): Promise<boolean>;
  /**
   * Ends a run and moves the digest to its next occurrence. A run that failed before posting
   * (`running → failed`) ends the same way: the occurrence is not tried again.
   */
  finish(claim: DigestClaim, end: DigestRunEnd, at: number, nextRunAt: number): Promise<void>;
  /** The state of an occurrence's claim; null when nobody claimed it. */
  runState(digestId: string, occurrenceAt: number): Promise<DigestRunState | null>;
  /** Moves a digest past an occurrence another replica has dealt with. */
  advance(digestId: string, nextRunAt: number): Promise<void>;
  /** Lets the runs this replica still summarises go at once (a clean shutdown): another takes them over. */
  release(runner: string): Promise<void>;
  /** `running → ended`; null when it had already ended (someone else ended it first). */
  end(id: string, reason: DigestEndReason, by: string | null, at: number): Promise<Digest | null>;
}

// One piece: one SQL statement per method on the two tables, through the same read and write.
export function createDigestStore(client: Client): DigestStore {
  const write = (statements: InStatement[]): Promise<ResultSet[]> =>
    retryBusy(() => client.batch(statements, 'write')).catch((error: unknown) => {
      throw new DigestStoreError('could not write to the digests tables', { cause: error });
    });
  const read = (statement: InStatement): Promise<ResultSet> =>
    retryBusy(() => client.execute(statement)).catch((error: unknown) => {
      throw new DigestStoreError('could not read the digests tables', { cause: error });
    });
  const changed = (result: ResultSet | undefined) => (result?.rowsAffected ?? 0) === 1;

  return {
    async insert(digest, caps) {
      const [inserted, counts] = await write([
        {
          sql: `INSERT INTO digests (id, owner, channel_id, kind, zone_id, at_minute, time_zone, every, weekday,
                  query, filters_json, created_at, next_run_at, state, approval_id)
                SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?
                WHERE (SELECT count(*) FROM digests WHERE state = 'running' AND owner = ?) < ?
                  AND (SELECT count(*) FROM digests WHERE state = 'running') < ?`,
          args: [
            digest.id,
            digest.owner,
            digest.channelId,
            digest.kind,
            digest.zoneId,
            digest.atMinute,
            digest.timeZone,
            digest.every,
            digest.weekday,
            digest.query,
            JSON.stringify(digest.filters),
            digest.createdAt,
            digest.nextRunAt,
            digest.approvalId ?? null,
            digest.owner,
            caps.perUser,
            caps.perWorkspace,
          ],
        },
        {
          sql: `SELECT (SELECT count(*) FROM digests WHERE state = 'running' AND owner = ?) AS mine,
                       (SELECT count(*) FROM digests WHERE state = 'running') AS total`,
          args: [digest.owner],
        },
      ]);
      if (changed(inserted)) return { inserted: true };
      const row = z.object({ mine: z.number(), total: z.number() }).parse(counts?.rows[0]);
      return row.mine >= caps.perUser
        ? { inserted: false, cap: 'user', running: row.mine }
        : { inserted: false, cap: 'workspace', running: row.total };
    },

    async get(id) {
      const row = (await read({ sql: `SELECT ${COLUMNS} FROM digests WHERE id = ?`, args: [id] })).rows[0];
      return row === undefined ? null : toDigest(row);
    },

    async running() {
      const result = await read(
        `SELECT ${COLUMNS} FROM digests WHERE state = 'running' ORDER BY created_at, id LIMIT 1000`,
      );
      return result.rows.map(toDigest);
    },

    async due(now) {
      const result = await read({
        sql: `SELECT ${COLUMNS} FROM digests WHERE state = 'running' AND next_run_at <= ?
              ORDER BY next_run_at, zone_id, id LIMIT 1000`,
        args: [now],
      });
      return result.rows.map(toDigest);
    },

    async claim({ digestId, occurrenceAt, runner }, now, leaseUntil) {
      const [claimed] = await write([
        {
          sql: `INSERT INTO digest_runs (digest_id, occurrence_at, state, runner, lease_expires_at, claimed_at)
                VALUES (?, ?, 'running', ?, ?, ?)
                ON CONFLICT (digest_id, occurrence_at) DO UPDATE SET
                  runner = excluded.runner, lease_expires_at = excluded.lease_expires_at,
                  claimed_at = excluded.claimed_at
                WHERE digest_runs.state = 'running' AND digest_runs.lease_expires_at < excluded.claimed_at`,
          args: [digestId, occurrenceAt, runner, leaseUntil, now],
        },
      ]);
      return changed(claimed);
    },

    async renew({ digestId, occurrenceAt, runner }, leaseUntil) {
      const [renewed] = await write([
        {
          sql: `UPDATE digest_runs SET lease_expires_at = ?
                WHERE digest_id = ? AND occurrence_at = ? AND runner = ? AND state = 'running'`,
          args: [leaseUntil, digestId, occurrenceAt, runner],
        },
      ]);
      return changed(renewed);
    },

    async beginPosting({ digestId, occurrenceAt, runner }) {
      const [moved] = await write([
        {
          sql: `UPDATE digest_runs SET state = 'posting'
                WHERE digest_id = ? AND occurrence_at = ? AND runner = ? AND state = 'running'
                  AND EXISTS (SELECT 1 FROM digests WHERE id = ? AND state = 'running')`,
          args: [digestId, occurrenceAt, runner, digestId],
        },
      ]);
      return changed(moved);
    },

    async finish({ digestId, occurrenceAt, runner }, end, at, nextRunAt) {
      await write([
        {
          sql: `UPDATE digest_runs SET state = ?, finished_at = ?
                WHERE digest_id = ? AND occurrence_at = ? AND runner = ?
                  AND (state = 'posting' OR (state = 'running' AND ? = 'failed'))`,
          args: [end, at, digestId, occurrenceAt, runner, end],
        },
        {
          // Only the runner that ended the run moves the digest on: one whose claim was taken over
          // leaves it due, so the occurrence is retried if the taker dies too.
          sql: `UPDATE digests SET last_run_at = ?, next_run_at = ?
                WHERE id = ? AND next_run_at < ?
                  AND EXISTS (SELECT 1 FROM digest_runs WHERE digest_id = ? AND occurrence_at = ?
                                AND runner = ? AND state = ? AND finished_at = ?)`,
          args: [occurrenceAt, nextRunAt, digestId, nextRunAt, digestId, occurrenceAt, runner, end, at],
        },
        {
          sql: 'DELETE FROM digest_runs WHERE finished_at IS NOT NULL AND finished_at < ?',
          args: [at - RUNS_KEPT_MS],
        },
      ]);
    },

    async runState(digestId, occurrenceAt) {
      const result = await read({
        sql: 'SELECT state FROM digest_runs WHERE digest_id = ? AND occurrence_at = ?',
        args: [digestId, occurrenceAt],
      });
      const row = result.rows[0];
      return row === undefined ? null : z.enum(DIGEST_RUN_STATES).parse(row.state);
    },

    async advance(digestId, nextRunAt) {
      await write([
        {
          sql: 'UPDATE digests SET next_run_at = ? WHERE id = ? AND next_run_at < ?',
          args: [nextRunAt, digestId, nextRunAt],
        },
      ]);
    },

    async release(runner) {
      await write([
        {
          sql: `UPDATE digest_runs SET lease_expires_at = 0 WHERE runner = ? AND state = 'running'`,
          args: [runner],
        },
      ]);
    },

    async end(id, reason, by, at) {
      const [updated, , after] = await write([
        {
          sql: `UPDATE digests SET state = 'ended', ended_reason = ?, ended_by = ?, ended_at = ?
                WHERE id = ? AND state = 'running'`,
          args: [reason, by, at, id],
        },
        // Digests set and stopped over the years would otherwise stay for good.
        { sql: `DELETE FROM digests WHERE state = 'ended' AND ended_at < ?`, args: [at - ENDED_KEPT_MS] },
        { sql: `SELECT ${COLUMNS} FROM digests WHERE id = ?`, args: [id] },
      ]);
      const row = after?.rows[0];
      return changed(updated) && row !== undefined ? toDigest(row) : null;
    },
  };
}
