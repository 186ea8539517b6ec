/**
 * The PRODUCT §3 example policy, through the engine: its approvals channel is not among its
 * `channels:`, and its approvers hold only the grants every member has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_POLICY_YAML } from '../policy/example-policy.js';
import { requestIdIn } from '../support/approval-desk.js';
import { answered, type EngineTestbed, startEngineTestbed } from '../support/engine.js';

let bed: EngineTestbed;

beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: EXAMPLE_POLICY_YAML });
});
afterAll(async () => {
  await bed?.close();
});

const stateOf = async (id: string) => (await bed.runtime.services.approvals.peek(id))?.state;

describe('the PRODUCT §3 example policy', () => {
  it('two leads approve a confirm: true request by typing the target id in the approvals channel', async () => {
    const database = bed.sandbox.databaseId;
    const note = answered(
      await bed.run(`db tokens invalidate --db ${database}`, { userId: 'U0ALICE', channelId: 'C0OPS' }),
    );
    expect(note).toContain('Approval requested');
    const id = requestIdIn(note);

    for (const lead of ['U0BOB', 'U0CAROL']) {
      const outcome = await bed.submit(
        { callbackId: 'approvals:confirm', privateMetadata: id },
        { confirmation: database },
        { userId: lead, channelId: 'C0APPROVALS' },
      );
      expect('records' in outcome).toBe(true);
    }
    expect(await stateOf(id)).toMatch(/succeeded|failed/);
    const request = await bed.runtime.services.approvals.peek(id);
    expect(request?.approvals.map((vote) => vote.userId)).toEqual(['U0BOB', 'U0CAROL']);
    const denials = (await bed.runtime.services.audit.list({ limit: 100 })).filter(
      (row) => row.outcome === 'denied' && row.operation === 'approvals.list',
    );
    expect(denials).toEqual([]);
  });
});
