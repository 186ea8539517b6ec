/**
 * Two replicas behind one Slack app: the one that runs `db tokens invalidate --regenerate` on the
 * bot's own database switches to the new token, and says so plainly; the other keeps the old one
 * until restarted, and each of its `/edge db` answers says which variable to set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { everyoneMayRun } from '../support/policies.js';

let dir: string;
let ran: Harness;
let other: Harness;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edgeops-token-replicas-'));
  const shared = {
    serviceDatabase: true,
    policyYaml: everyoneMayRun({ gated: ['db.tokens.invalidate'] }),
    env: { STATE_DATABASE_URL: `file:${join(dir, 'state.db')}` },
  };
  ran = await startHarness(shared);
  other = await startHarness({ ...shared, sandbox: ran.sandbox, clock: ran.clock });
});
afterAll(async () => {
  await other?.close();
  await ran?.close();
  rmSync(dir, { recursive: true, force: true });
});

const textOf = (call: RecordedCall) => JSON.stringify([call.args.text, call.args.blocks]);

async function answerTo(h: Harness, text: string): Promise<string> {
  const { responseUrl } = await h.command(text, { userId: 'U0YOU', channelId: 'C0OPS' });
  return JSON.stringify((await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id))).body);
}

describe('a regenerated token of the bot’s own database, with two replicas', () => {
  it('says which replicas it has not reached, and the other replica says so in each /edge db answer', async () => {
    await ran.command('db tokens invalidate --regenerate', { userId: 'U0YOU', channelId: 'C0OPS' });
    const card = await ran.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === 'C0APPROVALS' && textOf(call).includes('ap_'),
    );
    expect(textOf(card)).toContain('every other replica keeps the old token');
    expect(textOf(card)).toContain('SERVICE_DATABASE_AUTH_TOKEN');
    const id = /ap_[0-9a-f]{16}/.exec(textOf(card))![0];
    await ran.click('approvals:approve', id, { userId: 'U0LEAD', channelId: 'C0APPROVALS' });
    const result = await ran.fake.waitFor(
      'chat.postMessage',
      (call) =>
        call.args.channel === 'C0OPS' && textOf(call).includes('every other replica keeps the old token'),
    );
    expect(textOf(result)).toContain(id);

    // The replica that ran it reads with the new token; a result goes to the channel.
    await ran.command('db query SELECT 1 AS replica_that_ran', { userId: 'U0YOU', channelId: 'C0OPS' });
    await ran.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === 'C0OPS' && textOf(call).includes('replica_that_ran'),
    );
    // The other is refused, says why in every answer, and logs it once.
    const logged = other.logs.length;
    for (const statement of ['db query SELECT 1', 'db query SELECT 2']) {
      const answer = await answerTo(other, statement);
      expect(answer).toContain('refused the access token of this replica, SERVICE_DATABASE_AUTH_TOKEN');
    }
    const warnings = other.logs
      .slice(logged)
      .filter((line) => line.includes('refuses SERVICE_DATABASE_AUTH_TOKEN'));
    expect(warnings).toHaveLength(1);
  });
});
