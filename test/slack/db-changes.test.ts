/**
 * A database change whose card Slack will not take: the file with its full statement cannot be
 * uploaded, so no card is posted and the request is cancelled. How `/edge db exec` and
 * `/edge db tokens` go through approval is tested through the engine in
 * test/operations/db-changes.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';
import { everyoneMayRun } from '../support/policies.js';

const POLICY = everyoneMayRun({
  leads: ['U0LEAD', 'U0LEAD2'],
  gated: ['db.exec', 'db.tokens.create'],
  rules: [{ ops: ['db.tokens.invalidate'], required: 2, confirm: true }],
});

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ policyYaml: POLICY, serviceDatabase: true });
});
afterAll(async () => {
  await h?.close();
});

const stateOf = async (id: string) => (await h.runtime.services.approvals.peek(id))?.state;

describe('database changes through approval', () => {
  it('cancels the request when the file with its full statement cannot be uploaded, and posts no card', async () => {
    const sql = `UPDATE orders SET status = 'refunded' WHERE id = 9 -- ${'w'.repeat(6_000)}`;
    h.fake.fail('files.completeUploadExternal', { error: 'internal_error' });
    const seen = new Set(h.fake.callsTo('chat.postMessage'));
    const { responseUrl } = await h.command(`db exec ${sql}`);
    const told = JSON.stringify(
      (await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 10_000)).body,
    );
    expect(told).toContain(
      'I could not post the approval card in <#C0APPROVALS>: the file with its full parameters could not be uploaded there.',
    );
    const id = /ap_[0-9a-f]{16}/.exec(told)![0];
    expect(await stateOf(id)).toBe('cancelled');
    const cards = h.fake
      .callsTo('chat.postMessage')
      .filter((c) => !seen.has(c) && JSON.stringify(c.args).includes('approvals:approve'));
    expect(cards).toEqual([]);
  });
});
