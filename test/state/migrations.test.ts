import { type Client, createClient } from '@libsql/client';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../src/runtime/migrations.js';
import { applyMigrations, type Migration, MigrationError } from '../../src/state/migrations.js';
import { openStateStore } from '../../src/state/store.js';
import { asDates, pinnedClock } from '../support/clock.js';
import { memoryLogger, tempDatabase } from './temp-db.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freshClient(): Promise<Client> {
  const db = await tempDatabase();
  cleanups.push(db.remove);
  const client = createClient({ url: db.url, timeout: 5000 });
  cleanups.push(() => client.close());
  return client;
}

async function tableNames(client: Client): Promise<string[]> {
  const result = await client.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  return result.rows.map((row) => String(row.name));
}

async function versions(client: Client): Promise<number[]> {
  const result = await client.execute('SELECT version FROM schema_migrations ORDER BY version');
  return result.rows.map((row) => Number(row.version));
}

const logger = memoryLogger();
/** The first migration alone, for tests that add versions of their own after it. */
const BASE = migrations.slice(0, 1);
const ALL_VERSIONS = migrations.map((migration) => migration.version);

describe('state database migrations', () => {
  it('creates the audit log and claims tables and records version 1 with its time', async () => {
    const client = await freshClient();
    const report = await applyMigrations(client, {
      logger,
      now: () => new Date('2025-03-01T10:00:00Z'),
      migrations: BASE,
    });
    expect(report).toEqual({ applied: [1], current: 1 });
    expect(await tableNames(client)).toEqual(
      expect.arrayContaining(['audit_log', 'claims', 'schema_migrations']),
    );
    const row = await client.execute('SELECT version, applied_at FROM schema_migrations');
    expect(row.rows.map((r) => ({ ...r }))).toEqual([{ version: 1, applied_at: '2025-03-01T10:00:00.000Z' }]);
  });

  it('applies nothing the second time the same database is opened', async () => {
    const db = await tempDatabase();
    cleanups.push(db.remove);
    const first = await openStateStore({ url: db.url, logger, now: asDates(pinnedClock()), migrations });
    await first.close();
    const secondLogger = memoryLogger();
    const second = await openStateStore({
      url: db.url,
      logger: secondLogger,
      now: asDates(pinnedClock()),
      migrations,
    });
    cleanups.push(() => second.close());
    expect(await versions(second.client)).toEqual(ALL_VERSIONS);
    expect(secondLogger.lines.some((line) => line.includes('state database migrated'))).toBe(false);
  });

  it('applies a migration added later on the next start, and only that one', async () => {
    const client = await freshClient();
    await applyMigrations(client, { logger, now: asDates(pinnedClock()), migrations: BASE });
    const next: Migration = {
      version: 2,
      name: 'approvals',
      statements: [
        'CREATE TABLE approvals (id TEXT PRIMARY KEY)',
        'CREATE INDEX approvals_id ON approvals (id)',
      ],
    };
    expect(
      await applyMigrations(client, { logger, now: asDates(pinnedClock()), migrations: [...BASE, next] }),
    ).toEqual({
      applied: [2],
      current: 2,
    });
    expect(await tableNames(client)).toContain('approvals');
    expect(await versions(client)).toEqual([1, 2]);
  });

  it('leaves nothing of a migration whose statement fails, and does not record it', async () => {
    const client = await freshClient();
    await applyMigrations(client, { logger, now: asDates(pinnedClock()), migrations: BASE });
    const broken: Migration = {
      version: 2,
      name: 'broken',
      statements: ['CREATE TABLE half_done (id INTEGER)', 'CREATE TABLE half_done (id INTEGER)'],
    };
    await expect(
      applyMigrations(client, { logger, now: asDates(pinnedClock()), migrations: [...BASE, broken] }),
    ).rejects.toThrow(MigrationError);
    expect(await tableNames(client)).not.toContain('half_done');
    expect(await versions(client)).toEqual([1]);
  });

  it('refuses a list whose versions do not increase', async () => {
    const client = await freshClient();
    const list: Migration[] = [
      { version: 2, name: 'b', statements: [] },
      { version: 1, name: 'a', statements: [] },
    ];
    await expect(
      applyMigrations(client, { logger, now: asDates(pinnedClock()), migrations: list }),
    ).rejects.toThrow(/increasing/);
  });

  it('several clients starting at once on one file apply each migration exactly once', async () => {
    const db = await tempDatabase();
    cleanups.push(db.remove);
    const clients = Array.from({ length: 4 }, () => createClient({ url: db.url, timeout: 5000 }));
    for (const client of clients) cleanups.push(() => client.close());
    const reports = await Promise.all(
      clients.map((client) => applyMigrations(client, { logger, now: asDates(pinnedClock()), migrations })),
    );
    expect(reports.flatMap((report) => report.applied)).toEqual(ALL_VERSIONS);
    expect(reports.every((report) => report.current === ALL_VERSIONS.at(-1))).toBe(true);
  });

  it('warns, and keeps going, when the database is newer than this release', async () => {
    const client = await freshClient();
    await applyMigrations(client, { logger, now: asDates(pinnedClock()), migrations });
    // One past this release's newest, however many migrations it has.
    const newer = Math.max(...migrations.map((migration) => migration.version)) + 1;
    await client.execute({
      sql: "INSERT INTO schema_migrations VALUES (?, '2030-01-01T00:00:00Z')",
      args: [newer],
    });
    const warned = memoryLogger();
    expect(
      await applyMigrations(client, { logger: warned, now: asDates(pinnedClock()), migrations }),
    ).toEqual({
      applied: [],
      current: newer,
    });
    expect(warned.lines.some((line) => line.includes('newer than this release'))).toBe(true);
  });
});
