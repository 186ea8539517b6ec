/**
 * The PRODUCT §3 example policy, end to end: its approvals channel is not among its
 * `channels:`, and its approvers hold only the grants every member has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_POLICY_YAML } from '../policy/example-policy.js';
import { type Harness, startHarness } from '../support/harness.js';
import { textInput } from '../support/payloads.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ policyYaml: EXAMPLE_POLICY_YAML });
});
afterAll(async () => {
  await h?.close();
});

const stateOf = async (id: string) => (await h.runtime.services.approvals.peek(id))?.state;

describe('the PRODUCT §3 example policy', () => {
  it('two leads approve a confirm: true request by typing the target id in the approvals channel', async () => {
    const database = h.sandbox.databaseId;
    const { responseUrl } = await h.command(`db tokens invalidate --db ${database}`, {
      userId: 'U0ALICE',
      channelId: 'C0OPS',
    });
    const note = JSON.stringify(
      (await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body,
    );
    expect(note).toContain('Approval requested');
    const id = /ap_[0-9a-f]{16}/.exec(note)![0];

    for (const lead of ['U0BOB', 'U0CAROL']) {
      const ack = await h.submitView(
        'approvals:confirm',
        JSON.stringify({ c: 'C0APPROVALS', m: id }),
        { confirmation: textInput(database) },
        { userId: lead },
      );
      expect(ack.status).toBe(200);
    }
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toMatch(/succeeded|failed/);
    const request = await h.runtime.services.approvals.peek(id);
    expect(request?.approvals.map((vote) => vote.userId)).toEqual(['U0BOB', 'U0CAROL']);
    const denials = (await h.runtime.services.audit.list({ limit: 100 })).filter(
      (row) => row.outcome === 'denied' && row.operation === 'approvals.list',
    );
    expect(denials).toEqual([]);
  });
});
