/**
 * The access policy where the running bot has a say: membership of a user group read from Slack,
 * and the policy file read again when it changes. What the policy allows and denies is tested
 * through the engine in test/operations/policy.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';

const POLICY = `
channels: [C0OPS, C0INCIDENT]
roles:
  everyone: ["*"]
  oncall: [S0ONCALL, U0ALICE]
  leads: [U0BOB]
grants:
  - ops: [dns.list, shield.enums]
    roles: [everyone]
  - ops: [apikey.list, audit.list]
    roles: [oncall]
    channels: [C0OPS]
`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ policyYaml: POLICY });
  h.fake.setUserGroup('S0ONCALL', ['U0DAVE']);
});
afterAll(async () => {
  await h?.close();
});

async function reply(text: string, userId: string, channelId = 'C0OPS') {
  const { responseUrl } = await h.command(text, { userId, channelId });
  const post = await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000);
  return JSON.stringify(post.body);
}

describe('access policy through Slack', () => {
  it('grants through user-group membership read from Slack', async () => {
    const dave = await reply('apikeys', 'U0DAVE');
    expect(dave).toContain('API keys (');
    expect(h.fake.callsTo('usergroups.users.list').length).toBeGreaterThan(0);
  });

  it('reloads the policy file when it changes', async () => {
    writeFileSync(h.policyPath!, `${POLICY}  - ops: [apikey.list]\n    roles: [everyone]\n`);
    await expect
      .poll(async () => reply('apikeys', 'U0ZED'), { timeout: 5_000, interval: 200 })
      .toContain('API keys (');
  });
});
