/**
 * The access policy through the engine: help and whoami list what the caller may run, a denial
 * says why and who can help and calls nothing, and channels limit where things run. Group
 * membership read from Slack and the policy file's reload are in test/slack/policy.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answered, answers, type EngineTestbed, startEngineTestbed } from '../support/engine.js';

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

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: POLICY, groups: { S0ONCALL: ['U0DAVE'] } });
});
afterAll(async () => {
  await bed?.close();
});

const reply = async (text: string, userId: string, channelId = 'C0OPS') =>
  answered(await bed.run(text, { userId, channelId }));

describe('access policy', () => {
  it('lists in help only what the caller may run', async () => {
    const everyone = await reply('help', 'U0ZED');
    expect(everyone).toContain('/edge dns');
    expect(everyone).not.toContain('/edge apikeys');
    expect(everyone).not.toContain('/edge audit');
    const oncall = await reply('help', 'U0ALICE');
    expect(oncall).toContain('/edge apikeys');
    expect(oncall).toContain('/edge audit');
  });

  it('denies with the reason and who can help, and calls nothing', async () => {
    const before = bed.sandbox.requests.count('apikey.list');
    const denied = await reply('apikeys', 'U0ZED');
    expect(denied).toContain('Not allowed');
    expect(denied).toContain('U0ALICE');
    expect(bed.sandbox.requests.count('apikey.list')).toBe(before);
    const rows = await bed.runtime.services.audit.list({ limit: 20, filter: { userId: 'U0ZED' } });
    expect(rows.filter((row) => row.operation === 'apikey.list').map((row) => row.outcome)).toEqual([
      'denied',
    ]);
  });

  it('answers outside the allowed channels with an ephemeral denial naming where it works', async () => {
    const before = bed.sandbox.requests.count();
    const records = await bed.run('dns', { userId: 'U0ALICE', channelId: 'C0RANDOM' });
    expect(answers(records).map((answer) => answer.visibility)).toEqual(['ephemeral']);
    const denied = answered(records);
    expect(denied).toContain('C0OPS');
    expect(denied).toContain('C0INCIDENT');
    expect(bed.sandbox.requests.count()).toBe(before);
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
});
