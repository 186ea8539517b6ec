import { existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../src/runtime/migrations.js';
import { isBusyError } from '../../src/state/busy.js';
import { filePathOf, openStateStore, type StateStore, stateDatabaseKind } from '../../src/state/store.js';
import { asDates, pinnedClock } from '../support/clock.js';
import { memoryLogger, type TempDatabase, tempDatabase } from './temp-db.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freshDatabase(): Promise<TempDatabase> {
  const db = await tempDatabase();
  cleanups.push(db.remove);
  return db;
}

async function open(
  url: string,
  extra: Partial<Parameters<typeof openStateStore>[0]> = {},
): Promise<StateStore> {
  const store = await openStateStore({
    url,
    logger: memoryLogger(),
    now: asDates(pinnedClock()),
    migrations,
    ...extra,
  });
  cleanups.push(() => store.close());
  return store;
}

describe('state store on a file', () => {
  it('creates the missing parent directory and switches the file to WAL', async () => {
    const db = await freshDatabase();
    const path = join(db.dir, 'nested', 'deeper', 'edgeops.db');
    const store = await open(`file:${path}`);
    expect(existsSync(path)).toBe(true);
    expect(store.kind).toBe('file');
    const mode = await store.client.execute('PRAGMA journal_mode');
    expect(mode.rows[0]?.journal_mode).toBe('wal');
  });

  it('sets the busy timeout on every connection it opens, not just the first', async () => {
    const db = await freshDatabase();
    const store = await open(db.url, { busyTimeoutMs: 4321 });
    // An open transaction holds one pooled connection, so the next query runs on another.
    const tx = await store.client.transaction('read');
    try {
      const other = await store.client.execute('PRAGMA busy_timeout');
      expect(Object.values(other.rows[0] ?? {})).toEqual([4321]);
    } finally {
      tx.close();
    }
  });

  it('two stores opened at once on one new file both succeed and migrate it once', async () => {
    const db = await freshDatabase();
    const [a, b] = await Promise.all([open(db.url), open(db.url)]);
    expect(await a.ping()).toBe(true);
    expect(await b.ping()).toBe(true);
    const versions = await a.client.execute('SELECT version FROM schema_migrations');
    expect(versions.rows.map((row) => row.version)).toEqual(migrations.map((migration) => migration.version));
  });

  it('waits for another writer to release its lock instead of failing', async () => {
    const db = await freshDatabase();
    const store = await open(db.url, { busyTimeoutMs: 20 });
    const other = createClient({ url: db.url });
    cleanups.push(() => other.close());
    const lock = await other.transaction('write');
    setTimeout(() => void lock.commit(), 60);
    expect(await store.claimOnce('retry:1', 60_000)).toBe(true);
  });

  it('reports SQLITE_BUSY when another writer never lets go', async () => {
    const db = await freshDatabase();
    const store = await open(db.url, { busyTimeoutMs: 10 });
    const other = createClient({ url: db.url });
    cleanups.push(() => other.close());
    const lock = await other.transaction('write');
    cleanups.push(() => lock.close());
    const error = await store.claimOnce('stuck', 60_000).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isBusyError(error)).toBe(true);
  });

  it('after giving up on a lock, later writes really commit and leave the file unlocked', async () => {
    const db = await freshDatabase();
    const store = await open(db.url, { busyTimeoutMs: 10 });
    const other = createClient({ url: db.url, timeout: 200 });
    cleanups.push(() => other.close());
    const lock = await other.transaction('write');
    await expect(store.claimOnce('while-locked', 60_000)).rejects.toThrow(/SQLITE_BUSY|locked/);
    await lock.rollback();

    expect(await store.claimOnce('after-unlock', 60_000)).toBe(true);
    await store.client.execute({
      sql: 'INSERT INTO claims VALUES (?, 0, ?)',
      args: ['autocommit', store.now().getTime() + 60_000],
    });
    // Another connection sees both rows and can still take the write lock.
    await other.batch(
      [{ sql: 'INSERT INTO claims VALUES (?, 0, ?)', args: ['other', store.now().getTime() + 60_000] }],
      'write',
    );
    const keys = await other.execute('SELECT key FROM claims ORDER BY key');
    expect(keys.rows.map((row) => row.key)).toEqual(['after-unlock', 'autocommit', 'other']);
  });
});

describe('claimOnce', () => {
  it('is true for the first claim of a key and false for every later one', async () => {
    const db = await freshDatabase();
    const store = await open(db.url);
    expect(await store.claimOnce('slack:event:Ev1', 60_000)).toBe(true);
    expect(await store.claimOnce('slack:event:Ev1', 60_000)).toBe(false);
    expect(await store.claimOnce('slack:event:Ev2', 60_000)).toBe(true);
  });

  it('lets a key be claimed again once its claim has expired, and purges expired claims', async () => {
    const db = await freshDatabase();
    let clock = Date.parse('2025-03-01T10:00:00Z');
    const store = await open(db.url, { now: () => new Date(clock) });
    expect(await store.claimOnce('approve:A1', 5_000)).toBe(true);
    expect(await store.claimOnce('other', 1_000)).toBe(true);
    clock += 4_999;
    expect(await store.claimOnce('approve:A1', 5_000)).toBe(false);
    clock += 1;
    expect(await store.claimOnce('approve:A1', 5_000)).toBe(true);
    expect(await store.purgeClaims()).toBe(1);
    const left = await store.client.execute('SELECT key FROM claims ORDER BY key');
    expect(left.rows.map((row) => row.key)).toEqual(['approve:A1']);
  });

  it('gives exactly one winner when 20 claims for one key race across two stores', async () => {
    const db = await freshDatabase();
    const [a, b] = await Promise.all([open(db.url), open(db.url)]);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).claimOnce('action:double-click', 60_000)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe('recordClaims', () => {
  it('records every key of a batch larger than one statement takes, keeping claims already made', async () => {
    const db = await freshDatabase();
    const store = await open(db.url);
    expect(await store.claimOnce('read:0', 60_000)).toBe(true);
    const keys = Array.from({ length: 701 }, (_, i) => `read:${i}`);
    // Repeated within one statement's rows, and across two statements.
    await store.recordClaims([...keys.slice(0, 3), 'read:1', ...keys.slice(3), 'read:5'], 60_000);
    const count = await store.client.execute('SELECT count(*) AS n FROM claims');
    expect(Number(count.rows[0]!.n)).toBe(701);
    expect(await store.claimOnce('read:700', 60_000)).toBe(false);
    expect(await store.claimOnce('read:701', 60_000)).toBe(true);
    await store.recordClaims([], 60_000);
  });
});

describe('ping', () => {
  it('is true on a working database', async () => {
    const db = await freshDatabase();
    const store = await open(db.url);
    expect(await store.ping()).toBe(true);
  });

  it('is false once the store is closed', async () => {
    const db = await freshDatabase();
    const store = await open(db.url);
    await store.close();
    expect(await store.ping()).toBe(false);
  });

  it('is false, quickly, when the remote server refuses connections', async () => {
    const store = await open('http://127.0.0.1:1', { migrate: false });
    expect(store.kind).toBe('remote');
    const started = performance.now();
    expect(await store.ping()).toBe(false);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('is false within its timeout when the remote server never answers', async () => {
    const sockets = new Set<Socket>();
    // Accepts connections and never answers.
    const server: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        }),
    );
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const store = await open(`http://127.0.0.1:${address.port}`, { migrate: false, pingTimeoutMs: 200 });
    const started = performance.now();
    expect(await store.ping()).toBe(false);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1000);
  });
});

describe('state database URLs', () => {
  it('tells file, memory and remote databases apart', () => {
    expect(stateDatabaseKind('file:data/edgeops.db')).toBe('file');
    expect(stateDatabaseKind(':memory:')).toBe('memory');
    expect(stateDatabaseKind('libsql://state.example.test')).toBe('remote');
    expect(stateDatabaseKind('https://state.example.test')).toBe('remote');
  });

  it('finds the path of relative, absolute and three-slash file URLs', () => {
    expect(filePathOf('file:data/edgeops.db')).toBe('data/edgeops.db');
    expect(filePathOf('file:/var/lib/edgeops/state.db')).toBe('/var/lib/edgeops/state.db');
    expect(filePathOf('file:///var/lib/edgeops/state.db')).toBe('/var/lib/edgeops/state.db');
    expect(filePathOf('file://localhost/srv/state%20db.db')).toBe('/srv/state db.db');
  });
});

describe('state store in memory', () => {
  it('works for a single process with nothing on disk', async () => {
    const store = await open(':memory:');
    expect(store.kind).toBe('memory');
    expect(await store.claimOnce('k', 1000)).toBe(true);
    expect(await store.claimOnce('k', 1000)).toBe(false);
  });
});
