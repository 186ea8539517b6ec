import type { Client } from '@libsql/client';
import { z } from 'zod';
import { InternalError } from '../errors.js';
import type { Logger } from '../telemetry/log.js';
import { retryBusy } from './busy.js';

/** One schema change: its statements run in one write batch together with its schema_migrations row. */
export interface Migration {
  version: number;
  name: string;
  statements: readonly string[];
}

/**
 * The state store's own tables (audit log, claims). The whole schema, with the tables other
 * parts keep here, is listed in src/runtime/migrations.ts and passed in.
 */
export const auditAndClaimsMigration: Migration = {
  version: 1,
  name: 'audit log and claims',
  statements: [
    `CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        time TEXT NOT NULL,
        user_id TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        operation TEXT NOT NULL,
        target TEXT,
        params TEXT NOT NULL,
        outcome TEXT NOT NULL,
        approval_id TEXT,
        correlation_id TEXT NOT NULL,
        detail TEXT,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL
      )`,
    // Each hash is the successor's prev_hash exactly once, so two rows can never fork the chain.
    'CREATE UNIQUE INDEX audit_log_prev_hash ON audit_log (prev_hash)',
    'CREATE INDEX audit_log_approval_id ON audit_log (approval_id) WHERE approval_id IS NOT NULL',
    // Append-only even against a mistaken query; tampering then needs a deliberate DROP TRIGGER.
    `CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
       BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`,
    `CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
       BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`,
    `CREATE TABLE claims (
        key TEXT PRIMARY KEY,
        claimed_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      )`,
    'CREATE INDEX claims_expires_at ON claims (expires_at)',
  ],
};

export interface ApplyMigrationsOptions {
  logger: Logger;
  now: () => Date;
  /** Every schema change, oldest first (src/runtime/migrations.ts). */
  migrations: readonly Migration[];
}

export interface MigrationReport {
  /** Versions this call applied; empty when the database was already current. */
  applied: number[];
  /** The highest version recorded in the database afterwards. */
  current: number;
}

/** A migration that could not be applied; the database keeps its previous version. */
export class MigrationError extends InternalError {
  readonly kind = 'migration';

  constructor(
    readonly version: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

const AppliedRowSchema = z.object({ version: z.number().int() });

async function appliedVersions(client: Client): Promise<Set<number>> {
  const result = await client.execute('SELECT version FROM schema_migrations');
  return new Set(result.rows.map((row) => AppliedRowSchema.parse(row).version));
}

function checkOrder(list: readonly Migration[]): void {
  let previous = 0;
  for (const migration of list) {
    if (!Number.isInteger(migration.version) || migration.version <= previous)
      throw new MigrationError(migration.version, 'migration versions must be increasing positive integers');
    previous = migration.version;
  }
}

/**
 * Brings the schema up to date. Safe when several processes start at once: a migration's
 * schema_migrations row is inserted first in the same write batch, so a process that lost
 * the race fails on the primary key, rolls back whole, and finds the version applied.
 */
export async function applyMigrations(
  client: Client,
  options: ApplyMigrationsOptions,
): Promise<MigrationReport> {
  const list = options.migrations;
  const { now } = options;
  checkOrder(list);

  await retryBusy(() =>
    client.batch(
      [
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
      ],
      'write',
    ),
  );

  let done = await retryBusy(() => appliedVersions(client));
  const applied: number[] = [];
  for (const migration of list) {
    if (done.has(migration.version)) continue;
    try {
      await retryBusy(() =>
        client.batch(
          [
            {
              sql: 'INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)',
              args: [migration.version, now().toISOString()],
            },
            ...migration.statements,
          ],
          'write',
        ),
      );
      applied.push(migration.version);
      options.logger.info('state database migrated', {
        version: migration.version,
        migration: migration.name,
      });
    } catch (error) {
      done = await retryBusy(() => appliedVersions(client));
      if (done.has(migration.version)) continue;
      throw new MigrationError(
        migration.version,
        `state database migration ${migration.version} (${migration.name}) failed`,
        { cause: error },
      );
    }
  }

  done = await retryBusy(() => appliedVersions(client));
  const current = Math.max(0, ...done);
  const known = list.at(-1)?.version ?? 0;
  // A newer release may already run against this database during a rolling deployment.
  if (current > known)
    options.logger.warn('state database is newer than this release', { databaseVersion: current, known });
  return { applied, current };
}
