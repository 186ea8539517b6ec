import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../src/runtime/migrations.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { type AuditEntry, type AuditLog, createAuditLog, GENESIS_HASH } from '../../src/state/audit.js';
import { openStateStore, type StateStore } from '../../src/state/store.js';
import { asDates, pinnedClock } from '../support/clock.js';
import { memoryLogger, tempDatabase } from './temp-db.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Fixture {
  url: string;
  store: StateStore;
  audit: AuditLog;
  secrets: SecretRegistry;
}

/** The audit log of a second store on the fixture's database, as another replica would open it. */
async function secondReplica(url: string) {
  const store = await openStateStore({
    url,
    logger: memoryLogger(),
    now: asDates(pinnedClock()),
    migrations,
  });
  cleanups.push(() => store.close());
  return createAuditLog({ store, secrets: new SecretRegistry() });
}

async function fixture(): Promise<Fixture> {
  const db = await tempDatabase();
  cleanups.push(db.remove);
  const store = await openStateStore({
    url: db.url,
    logger: memoryLogger(),
    now: asDates(pinnedClock()),
    migrations,
  });
  cleanups.push(() => store.close());
  const secrets = new SecretRegistry();
  let tick = Date.parse('2025-03-01T10:00:00Z');
  const clock = () => {
    tick += 1000;
    return new Date(tick);
  };
  const audit = createAuditLog({ store, secrets, now: clock });
  return { url: db.url, store, audit, secrets };
}

function entry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    userId: 'U0001',
    channelId: 'C0001',
    operation: 'pullzone.purge',
    target: 'pz-123',
    params: { zone: 'pz-123', urls: ['https://cdn.example.test/a.css'] },
    outcome: 'succeeded',
    approvalId: null,
    correlationId: 'corr-1',
    ...overrides,
  };
}

async function appendMany(audit: AuditLog, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) await audit.append(entry({ correlationId: `corr-${i}` }));
}

/** Tampering as someone with database access would: lift the append-only guard, then edit. */
async function tamper(store: StateStore, sql: string): Promise<void> {
  await store.client.batch(
    ['DROP TRIGGER audit_log_no_update', 'DROP TRIGGER audit_log_no_delete', sql],
    'write',
  );
}

async function rawTable(store: StateStore): Promise<string> {
  const result = await store.client.execute('SELECT * FROM audit_log');
  return JSON.stringify(result.rows);
}

describe('audit log chain', () => {
  it('chains each row to the one before, starting from 64 zeros', async () => {
    const { audit } = await fixture();
    const first = await audit.append(entry());
    const second = await audit.append(entry({ outcome: 'failed', detail: 'platform said 500' }));
    expect(first.prevHash).toBe(GENESIS_HASH);
    expect(second.prevHash).toBe(first.hash);
    expect(second.id).toBeGreaterThan(first.id);
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes the canonical JSON of the row (sorted keys, no id) followed by the previous hash', async () => {
    const { audit } = await fixture();
    const row = await audit.append({
      time: '2025-03-01T10:00:00.000Z',
      userId: 'U1',
      channelId: 'C1',
      operation: 'dns.record.add',
      target: 'example.test',
      params: { type: 'A', name: 'www', value: '192.0.2.1' },
      outcome: 'requested',
      approvalId: 'AP1',
      correlationId: 'c1',
    });
    const canonical =
      '{"approvalId":"AP1","channelId":"C1","correlationId":"c1","detail":null,' +
      '"operation":"dns.record.add","outcome":"requested","params":{"name":"www","type":"A","value":"192.0.2.1"},' +
      '"target":"example.test","time":"2025-03-01T10:00:00.000Z","userId":"U1"}';
    expect(row.hash).toBe(
      createHash('sha256')
        .update(canonical + GENESIS_HASH)
        .digest('hex'),
    );
  });

  it('verifies an intact chain and counts its rows', async () => {
    const { audit } = await fixture();
    expect(await audit.verify()).toEqual({ ok: true, count: 0 });
    await appendMany(audit, 5);
    expect(await audit.verify()).toEqual({ ok: true, count: 5 });
  });

  it('names the row whose outcome was changed behind its back', async () => {
    const { store, audit } = await fixture();
    await appendMany(audit, 5);
    await tamper(store, "UPDATE audit_log SET outcome = 'denied' WHERE id = 3");
    expect(await audit.verify()).toMatchObject({ ok: false, brokenAt: 3, count: 2 });
  });

  it('names the row whose params were changed behind its back', async () => {
    const { store, audit } = await fixture();
    await appendMany(audit, 5);
    await tamper(store, `UPDATE audit_log SET params = '{"zone":"pz-999"}' WHERE id = 4`);
    expect(await audit.verify()).toMatchObject({ ok: false, brokenAt: 4, count: 3 });
  });

  it('names a row whose stored hash was rewritten', async () => {
    const { store, audit } = await fixture();
    await appendMany(audit, 3);
    await tamper(store, `UPDATE audit_log SET hash = '${'f'.repeat(64)}' WHERE id = 2`);
    expect(await audit.verify()).toMatchObject({ ok: false, brokenAt: 2 });
  });

  it('detects a row deleted from the middle at the row that followed it', async () => {
    const { store, audit } = await fixture();
    await appendMany(audit, 5);
    await tamper(store, 'DELETE FROM audit_log WHERE id = 3');
    const result = await audit.verify();
    expect(result).toMatchObject({ ok: false, brokenAt: 4, count: 2 });
    expect(result.ok ? '' : result.reason).toMatch(/prev_hash/);
  });

  it('detects the newest rows being deleted', async () => {
    const { store, audit } = await fixture();
    await appendMany(audit, 5);
    await tamper(store, 'DELETE FROM audit_log WHERE id >= 4');
    expect(await audit.verify()).toMatchObject({ ok: false, brokenAt: 4, count: 3 });
  });

  it('detects the newest rows being deleted even after a new row was appended to what was left', async () => {
    const { store, audit, secrets } = await fixture();
    await appendMany(audit, 5);
    await tamper(store, 'DELETE FROM audit_log WHERE id >= 4');
    // A process started after the deletion chains its row onto row 3, so every hash still matches.
    const restarted = createAuditLog({ store, secrets });
    await restarted.append(entry({ correlationId: 'after' }));
    const result = await restarted.verify();
    expect(result).toMatchObject({ ok: false, brokenAt: 6, count: 3 });
    expect(result.ok ? '' : result.reason).toContain('ids 4–5 are missing');
  });

  it('does not take rows another replica appends while it runs for deleted ones', async () => {
    const { url, store, audit, secrets } = await fixture();
    await appendMany(audit, 3);
    const replicaAudit = await secondReplica(url);
    // The other replica appends right after each page of the chain is read, before the end is checked.
    const execute: typeof store.client.execute = async (statement) => {
      const result = await store.client.execute(statement);
      if (typeof statement !== 'string' && statement.sql.includes('FROM audit_log WHERE id >'))
        await replicaAudit.append(entry({ correlationId: 'meanwhile' }));
      return result;
    };
    const racing = { ...store, client: Object.assign(Object.create(store.client), { execute }) };
    const verifying = createAuditLog({ store: racing, secrets });
    expect(await verifying.verify()).toMatchObject({ ok: true });
    // The rows appended meanwhile are in the chain, which still verifies as a whole.
    expect(await audit.verify()).toEqual({ ok: true, count: 4 });
  });

  it('verifies in pages, letting a timer set after it starts run before it ends', async () => {
    const { store, audit, secrets } = await fixture();
    await appendMany(audit, 10);
    const pages: unknown[] = [];
    const execute: typeof store.client.execute = async (statement) => {
      if (typeof statement !== 'string' && statement.sql.includes('FROM audit_log WHERE id >'))
        pages.push(statement.args);
      return store.client.execute(statement);
    };
    const counted = { ...store, client: Object.assign(Object.create(store.client), { execute }) };
    const paged = createAuditLog({ store: counted, secrets, verifyPageRows: 4 });
    const order: string[] = [];
    const verifying = paged.verify().then((result) => {
      order.push('verified');
      return result;
    });
    setImmediate(() => order.push('timer'));
    expect(await verifying).toEqual({ ok: true, count: 10 });
    expect(order).toEqual(['timer', 'verified']);
    // 4 + 4 + 2 rows, each page starting after the last id read.
    expect(pages).toEqual([
      [0, 4],
      [4, 4],
      [8, 4],
    ]);
  });

  it('refuses updates and deletes of audit rows from the bot’s own connection', async () => {
    const { store, audit } = await fixture();
    await appendMany(audit, 2);
    await expect(store.client.execute("UPDATE audit_log SET outcome = 'x' WHERE id = 1")).rejects.toThrow(
      /append-only/,
    );
    await expect(store.client.execute('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
    expect(await audit.verify()).toEqual({ ok: true, count: 2 });
  });

  it('keeps one unbroken chain when two stores in one process append at once', async () => {
    const { url, audit } = await fixture();
    const otherAudit = await secondReplica(url);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? audit : otherAudit).append(entry({ correlationId: `race-${i}` })),
      ),
    );
    expect(await audit.verify()).toEqual({ ok: true, count: 30 });
  });
});

describe('audit log listing', () => {
  it('lists newest first, honours the limit and pages back with beforeId', async () => {
    const { audit } = await fixture();
    await appendMany(audit, 5);
    const newest = await audit.list({ limit: 2 });
    expect(newest.map((row) => row.correlationId)).toEqual(['corr-5', 'corr-4']);
    const older = await audit.list({ limit: 10, beforeId: newest[1]?.id });
    expect(older.map((row) => row.correlationId)).toEqual(['corr-3', 'corr-2', 'corr-1']);
  });

  it('returns rows exactly as appended', async () => {
    const { audit } = await fixture();
    const appended = await audit.append(entry({ approvalId: 'AP-7', detail: 'needs 2 approvals' }));
    expect(await audit.list({ limit: 1 })).toEqual([appended]);
  });

  it('refuses an entry without a correlation id', async () => {
    const { audit } = await fixture();
    await expect(audit.append(entry({ correlationId: '' }))).rejects.toThrow(/correlationId/);
    expect(await audit.verify()).toEqual({ ok: true, count: 0 });
  });
});

describe('secrets in audit rows', () => {
  it('stores secret-named parameters as fingerprints, at any depth', async () => {
    const { store, audit } = await fixture();
    const row = await audit.append(
      entry({
        operation: 'pullzone.reset-key',
        params: {
          securityKey: 'sk-live-0123456789abcdef',
          nested: { apiKey: 'ak-9f8e7d6c5b4a3210', ReadOnlyApiKey: 'ro-key-aaaabbbbcccc' },
          credentials: [{ token: 'tok_ZZZZYYYYXXXX1111' }],
          Authorization: 'Bearer eyJhbGciOi.payload.sig9',
          password: 'short',
          zone: 'pz-123',
          keyId: 42,
        },
      }),
    );
    const raw = await rawTable(store);
    for (const secret of [
      'sk-live-0123456789abcdef',
      'ak-9f8e7d6c5b4a3210',
      'ro-key-aaaabbbbcccc',
      'tok_ZZZZYYYYXXXX1111',
      'eyJhbGciOi',
      'short',
    ])
      expect(raw).not.toContain(secret);
    expect(row.params).toEqual({
      securityKey: '…cdef',
      nested: { apiKey: '…3210', ReadOnlyApiKey: '…cccc' },
      credentials: [{ token: '…1111' }],
      Authorization: '…sig9',
      password: '[redacted]',
      zone: 'pz-123',
      keyId: 42,
    });
  });

  it('redacts registered secrets wherever they appear: params, target and detail', async () => {
    const { store, audit, secrets } = await fixture();
    const leaked = 'acct-key-7c1d2e3f4a5b';
    secrets.add(leaked);
    await audit.append(
      entry({
        target: `zone-${leaked}`,
        params: { note: `the key is ${leaked}`, list: [leaked], [leaked]: true },
        detail: `platform echoed ${leaked}`,
      }),
    );
    const raw = await rawTable(store);
    expect(raw).not.toContain(leaked);
    expect(raw).toContain('…4a5b');
    expect(await audit.verify()).toEqual({ ok: true, count: 1 });
  });

  it('keeps a database token’s access mode readable under an `authorization` parameter', async () => {
    const { audit } = await fixture();
    const row = await audit.append(
      entry({ operation: 'db.token.generate', params: { authorization: 'read-only' } }),
    );
    expect(row.params).toEqual({ authorization: 'read-only' });
  });
});

describe('parameters that JSON cannot carry as they are', () => {
  it('are stored the way JSON.stringify would write them, and the chain still verifies', async () => {
    const { audit } = await fixture();
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const row = await audit.append(
      entry({
        params: {
          at: new Date('2025-03-01T10:00:00Z'),
          ratio: Number.NaN,
          missing: undefined,
          callback: () => 1,
          big: 12345678901234567890n,
          tags: new Set(['a', 'b']),
          cyclic,
        },
      }),
    );
    expect(row.params).toEqual({
      at: '2025-03-01T10:00:00.000Z',
      ratio: null,
      big: '12345678901234567890',
      tags: ['a', 'b'],
      cyclic: { name: 'loop', self: '[circular]' },
    });
    expect(await audit.list({ limit: 1 })).toEqual([row]);
    expect(await audit.verify()).toEqual({ ok: true, count: 1 });
  });
});
