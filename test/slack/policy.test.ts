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
  it('lists in help only what the caller may run', async () => {
    const everyone = await reply('help', 'U0ZED');
    expect(everyone).toContain('/edge dns');
    expect(everyone).not.toContain('/edge apikeys');
    expect(everyone).not.toContain('/edge audit');
    const oncall = await reply('help', 'U0ALICE');
    expect(oncall).toContain('/edge apikeys');
    expect(oncall).toContain('/edge audit');
  });

  it('grants through user-group membership read from Slack', async () => {
    const dave = await reply('apikeys', 'U0DAVE');
    expect(dave).toContain('API keys (');
    expect(h.fake.callsTo('usergroups.users.list').length).toBeGreaterThan(0);
  });

  it('denies with the reason and who can help, and calls nothing', async () => {
    const before = h.sandbox.requests.count('apikey.list');
    const denied = await reply('apikeys', 'U0ZED');
    expect(denied).toContain('Not allowed');
    expect(denied).toContain('U0ALICE');
    expect(h.sandbox.requests.count('apikey.list')).toBe(before);
    // Filtered by caller: the last test's own row is written after its answer, and may land after this one.
    const rows = await h.runtime.services.audit.list({ limit: 20, filter: { userId: 'U0ZED' } });
    expect(rows.filter((row) => row.operation === 'apikey.list').map((row) => row.outcome)).toEqual([
      'denied',
    ]);
  });

  it('answers outside the allowed channels with an ephemeral denial naming where it works', async () => {
    const before = h.sandbox.requests.count();
    const denied = await reply('dns', 'U0ALICE', 'C0RANDOM');
    expect(denied).toContain('"response_type":"ephemeral"');
    expect(denied).toContain('C0OPS');
    expect(denied).toContain('C0INCIDENT');
    expect(h.sandbox.requests.count()).toBe(before);
  });

  it('enforces a grant’s own channel list', async () => {
    const denied = await reply('apikeys', 'U0ALICE', 'C0INCIDENT');
    expect(denied).toContain('Not allowed');
  });

  it('explains in whoami what the caller may run and why not the rest', async () => {
    const text = await reply('whoami', 'U0ALICE');
    expect(text).toContain('oncall');
    expect(text).toMatch(/white_check_mark: `\/edge apikeys` \(apikey.list\)/);
    expect(text).toMatch(/no_entry_sign: `\/edge library create` \(library.create\)/);
  });

  it('reloads the policy file when it changes', async () => {
    writeFileSync(h.policyPath!, `${POLICY}  - ops: [apikey.list]\n    roles: [everyone]\n`);
    await expect
      .poll(async () => reply('apikeys', 'U0ZED'), { timeout: 5_000, interval: 200 })
      .toContain('API keys (');
  });
});
