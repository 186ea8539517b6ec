/**
 * The long jobs running now (exports, big log days), one row each, kept by the replica that runs
 * it: a lease it renews while it lives. A replica whose process stops renews nothing, and once
 * its jobs' leases have run out another replica (or itself, restarted) takes each row, at most
 * once, to close what the job left open: its progress message and Cancel button, its audit trail.
 * This module reads no clock: callers pass the time in.
 */
import type { Client, Row } from '@libsql/client';
import { z } from 'zod';
import { InternalError } from '../errors.js';
import { retryBusy } from './busy.js';
import type { Migration } from './migrations.js';

export const runningJobsMigration: Migration = {
  version: 11,
  name: 'long jobs running, and audit rows by correlation id',
  statements: [
    `CREATE TABLE running_jobs (
      id TEXT PRIMARY KEY,
      runner TEXT NOT NULL,
      lease_expires_at INTEGER NOT NULL,
      title TEXT NOT NULL,
      user_id TEXT NOT NULL,
      channel_id TEXT NOT NULL,
      correlation_id TEXT NOT NULL,
      started_at INTEGER NOT NULL,
      progress_channel TEXT,
      progress_ts TEXT
    )`,
    'CREATE INDEX running_jobs_lease ON running_jobs (lease_expires_at)',
    // What a stopped job's closing row reads: the rows of its request.
    'CREATE INDEX audit_log_correlation_id ON audit_log (correlation_id)',
  ],
};

export interface RunningJobRecord {
  id: string;
  /** The replica running it (the runtime's instance id). */
  runner: string;
  title: string;
  userId: string;
  channelId: string;
  correlationId: string;
  startedAt: number;
  /** Its progress message, once there is one. */
  progress?: { channelId: string; ts: string };
}

export interface RunningJobStore {
  begin(job: RunningJobRecord, leaseExpiresAt: number): Promise<void>;
  /** The job's progress message, for whoever closes it. */
  progress(id: string, ref: { channelId: string; ts: string }): Promise<void>;
  end(id: string): Promise<void>;
  /** Renews the leases of `ids`, jobs `runner` runs. */
  renew(runner: string, ids: readonly string[], leaseExpiresAt: number): Promise<void>;
  /**
   * Jobs whose lease ran out before `now`, each taken (removed) by this call alone; at most
   * `limit`. With `peek`, only read: nothing is taken.
   */
  takeStopped(now: number, limit: number, options?: { peek?: boolean }): Promise<RunningJobRecord[]>;
}

export class RunningJobStoreError extends InternalError {
  readonly kind = 'running-jobs';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RunningJobStoreError';
  }
}

const RowSchema = z.object({
  id: z.string(),
  runner: z.string(),
  title: z.string(),
  user_id: z.string(),
  channel_id: z.string(),
  correlation_id: z.string(),
  started_at: z.number(),
  progress_channel: z.string().nullable(),
  progress_ts: z.string().nullable(),
});

function recordOf(row: Row): RunningJobRecord {
  const parsed = RowSchema.parse({ ...row });
  return {
    id: parsed.id,
    runner: parsed.runner,
    title: parsed.title,
    userId: parsed.user_id,
    channelId: parsed.channel_id,
    correlationId: parsed.correlation_id,
    startedAt: parsed.started_at,
    ...(parsed.progress_channel && parsed.progress_ts
      ? { progress: { channelId: parsed.progress_channel, ts: parsed.progress_ts } }
      : {}),
  };
}

export function createRunningJobStore(client: Client): RunningJobStore {
  const write = async (what: string, sql: string, args: (string | number)[]) => {
    try {
      return await retryBusy(() => client.execute({ sql, args }));
    } catch (error) {
      throw new RunningJobStoreError(`running jobs: ${what} failed`, { cause: error });
    }
  };
  return {
    async begin(job, leaseExpiresAt) {
      await write(
        'begin',
        `INSERT INTO running_jobs (id, runner, lease_expires_at, title, user_id, channel_id, correlation_id, started_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          job.id,
          job.runner,
          leaseExpiresAt,
          job.title,
          job.userId,
          job.channelId,
          job.correlationId,
          job.startedAt,
        ],
      );
    },
    async progress(id, ref) {
      await write('progress', 'UPDATE running_jobs SET progress_channel = ?, progress_ts = ? WHERE id = ?', [
        ref.channelId,
        ref.ts,
        id,
      ]);
    },
    async end(id) {
      await write('end', 'DELETE FROM running_jobs WHERE id = ?', [id]);
    },
    async renew(runner, ids, leaseExpiresAt) {
      if (ids.length === 0) return;
      const places = ids.map(() => '?').join(', ');
      await write(
        'renew',
        `UPDATE running_jobs SET lease_expires_at = ? WHERE runner = ? AND id IN (${places})`,
        [leaseExpiresAt, runner, ...ids],
      );
    },
    async takeStopped(now, limit, options = {}) {
      const found = await write(
        'find stopped',
        'SELECT * FROM running_jobs WHERE lease_expires_at < ? ORDER BY lease_expires_at LIMIT ?',
        [now, limit],
      );
      if (options.peek) return found.rows.map(recordOf);
      const taken: RunningJobRecord[] = [];
      for (const row of found.rows) {
        const job = recordOf(row);
        // Conditional: a replica that took it first, or a runner that renewed it meanwhile, wins.
        const removed = await write(
          'take',
          'DELETE FROM running_jobs WHERE id = ? AND lease_expires_at < ?',
          [job.id, now],
        );
        if (removed.rowsAffected === 1) taken.push(job);
      }
      return taken;
    },
  };
}
