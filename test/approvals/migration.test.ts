import { afterEach, describe, expect, it } from 'vitest';
import { APPROVAL_STATES, canTransition } from '../../src/approvals/machine.js';
import { approvalsMigration } from '../../src/approvals/migration.js';
import { migrations } from '../../src/schema.js';
import { type ApprovalFixture, approvalFixture } from './support.js';

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
});
