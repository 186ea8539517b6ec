import { afterEach, describe, expect, it } from 'vitest';
import { APPROVAL_STATES, canTransition } from '../../src/approvals/machine.js';
import { approvalsMigration, lockPerRequesterMigration } from '../../src/approvals/migration.js';
import { migrations } from '../../src/runtime/migrations.js';
import { openStateStore } from '../../src/state/store.js';
import { memoryLogger, tempDatabase } from '../state/temp-db.js';
import { type ApprovalFixture, approvalFixture, testClock } from './support.js';

let fixture: ApprovalFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const insert = (id: string, state: string, target = id) => ({
  sql: `INSERT INTO approvals (id, operation, target, params_json, params_digest, requester, channel_id, reason,
          state, created_at, expires_at, required, approver_roles_json, approver_ids_json, confirm)
        VALUES (?, 'db.exec', ?, '{}', 'digest', 'U0ALICE', 'C0OPS', '', ?, 0, 1, 1, '[]', '[]', 0)`,
  args: [id, target, state],
});

describe('the approvals migration', () => {
  it('has a version of its own among the store’s migrations', () => {
    const others = migrations.filter((migration) => migration !== approvalsMigration);
    expect(others.map((migration) => migration.version)).not.toContain(approvalsMigration.version);
    expect(approvalsMigration.version).toBeGreaterThan(1);
  });

  it('the database refuses exactly the state changes the machine refuses', async () => {
    fixture = await approvalFixture();
    const { client } = fixture.store;
    let n = 0;
    for (const from of APPROVAL_STATES)
      for (const to of APPROVAL_STATES) {
        if (from === to) continue;
        const id = `ap_${String(n++).padStart(16, '0')}`;
        // Closed states do not hold the lock, so each row can have its own target without clashing.
        await client.execute(insert(id, from));
        const moved = await client
          .execute({ sql: 'UPDATE approvals SET state = ? WHERE id = ?', args: [to, id] })
          .then(
            () => true,
            (error: unknown) => {
              expect(String(error)).toContain('state transition not allowed');
              return false;
            },
          );
        expect({ from, to, moved }).toEqual({ from, to, moved: canTransition(from, to) });
      }
  });

  it('holds one open request per operation and target, and frees the target once it closes', async () => {
    fixture = await approvalFixture();
    const { client } = fixture.store;
    await client.execute(insert('ap_a', 'pending', 'db-main'));
    await expect(client.execute(insert('ap_b', 'pending', 'db-main'))).rejects.toThrow(/UNIQUE/);
    await client.execute("UPDATE approvals SET state = 'rejected' WHERE id = 'ap_a'");
    await client.execute(insert('ap_c', 'pending', 'db-main'));
  });

  it('refuses to change what was asked once the request exists', async () => {
    fixture = await approvalFixture();
    const { client } = fixture.store;
    await client.execute(insert('ap_a', 'pending'));
    for (const column of ['params_json', 'params_digest', 'target', 'requester', 'expires_at', 'required'])
      await expect(
        client.execute({ sql: `UPDATE approvals SET ${column} = ? WHERE id = 'ap_a'`, args: ['2'] }),
      ).rejects.toThrow(/cannot be changed once made/);
  });

  it('moves the requests stored before it to the new lock: writes per requester, the rest per target', async () => {
    const db = await tempDatabase();
    const before = migrations.filter((migration) => migration.version < lockPerRequesterMigration.version);
    const old = await openStateStore({
      url: db.url,
      logger: memoryLogger(),
      now: testClock(),
      migrations: before,
    });
    await old.client.execute(insert('ap_write', 'pending', 'db-main'));
    await old.client.execute({
      sql: `INSERT INTO approvals (id, operation, target, params_json, params_digest, requester, channel_id,
              reason, state, created_at, expires_at, required, approver_roles_json, approver_ids_json, confirm)
            VALUES ('ap_reset', 'pullzone.reset-key', '4242', '{}', 'digest', 'U0ALICE', 'C0OPS', '',
              'pending', 0, 1, 1, '[]', '[]', 0)`,
      args: [],
    });
    await old.close();
    const store = await openStateStore({ url: db.url, logger: memoryLogger(), now: testClock(), migrations });
    try {
      const owners = await store.client.execute('SELECT id, lock_owner FROM approvals ORDER BY id');
      expect(owners.rows.map((row) => [row.id, row.lock_owner])).toEqual([
        ['ap_reset', ''],
        ['ap_write', 'U0ALICE'],
      ]);
      const asking = (id: string, operation: string, target: string, owner: string) => ({
        sql: `INSERT INTO approvals (id, operation, target, lock_owner, params_json, params_digest, requester,
                channel_id, reason, state, created_at, expires_at, required, approver_roles_json,
                approver_ids_json, confirm)
              VALUES (?, ?, ?, ?, '{}', 'digest', ?, 'C0OPS', '', 'pending', 0, 1, 1, '[]', '[]', 0)`,
        args: [id, operation, target, owner, owner || 'U0ERIN'],
      });
      // Another person's write to the same database is free; Alice's second one and a second reset are not.
      await store.client.execute(asking('ap_erin', 'db.exec', 'db-main', 'U0ERIN'));
      await expect(
        store.client.execute(asking('ap_alice2', 'db.exec', 'db-main', 'U0ALICE')),
      ).rejects.toThrow(/UNIQUE/);
      await expect(
        store.client.execute(asking('ap_reset2', 'pullzone.reset-key', '4242', '')),
      ).rejects.toThrow(/UNIQUE/);
      await expect(
        store.client.execute("UPDATE approvals SET lock_owner = 'U0ERIN' WHERE id = 'ap_write'"),
      ).rejects.toThrow(/cannot be changed once made/);
    } finally {
      await store.close();
      await db.remove();
    }
  });
});
