import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pinnedClock } from '../support/clock.js';
import { type Harness, startHarness } from '../support/harness.js';
import { everyoneMayRun } from '../support/policies.js';

const clock = pinnedClock();

let sandbox: Sandbox;
let h: Harness;

beforeAll(async () => {
  sandbox = await startSandbox({ now: clock });
  // The bot's own state on a remote libSQL server: the sandbox's Hrana endpoint.
  h = await startHarness({
    clock,
    sandbox,
    env: {
      STATE_DATABASE_URL: sandbox.databaseUrl,
      STATE_DATABASE_AUTH_TOKEN: sandbox.databaseTokens.fullAccess,
    },
  });
});
afterAll(async () => {
  sandbox.faults.clear();
  await h?.close();
  await sandbox?.close();
});

async function reply(text: string) {
  const { responseUrl } = await h.command(text);
  return JSON.stringify((await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 8_000)).body);
}

describe('the state store on a remote libSQL server', () => {
  it('keeps the audit chain on the remote database', async () => {
    expect(await reply('dns')).toContain('DNS zones');
    const verify = await reply('audit --verify');
    expect(verify).toContain('The hash chain verifies');
    expect(verify).toContain('dns.list');
  });

  it('answers /readyz 503 and refuses commands while the state database is unreachable', async () => {
    expect((await fetch(`${h.baseUrl}/readyz`)).status).toBe(200);
    sandbox.faults.set('database.pipeline', { status: 503 });
    try {
      expect((await fetch(`${h.baseUrl}/readyz`)).status).toBe(503);
      const before = sandbox.requests.count('dnszone.list');
      const text = await reply('dns');
      expect(text).toContain('state store is unavailable');
      expect(sandbox.requests.count('dnszone.list')).toBe(before);
    } finally {
      sandbox.faults.clear();
    }
    expect((await fetch(`${h.baseUrl}/readyz`)).status).toBe(200);
  });
});

describe('approvals while the state database is unreachable', () => {
  it('executes no gated operation', async () => {
    const remote = await startHarness({
      clock,
      sandbox,
      policyYaml: everyoneMayRun({ gated: ['pullzone.reset-key'] }),
      env: {
        STATE_DATABASE_URL: sandbox.databaseUrl,
        STATE_DATABASE_AUTH_TOKEN: sandbox.databaseTokens.fullAccess,
      },
    });
    try {
      const { responseUrl } = await remote.command('pullzone reset-key 410112 while the state store is down');
      const asked = JSON.stringify(
        (await remote.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 8_000)).body,
      );
      const id = /ap_[0-9a-f]{16}/.exec(asked)?.[0];
      expect(id).toBeDefined();
      const before = sandbox.requests.count('pullzone.resetSecurityKey');
      sandbox.faults.set('database.pipeline', { status: 503 });
      const clicked = remote.fake.responseUrl();
      await remote.click('approvals:approve', id!, { userId: 'U0LEAD', responseUrl: clicked });
      const told = JSON.stringify(
        (await remote.fake.waitForResponse((p) => clicked.endsWith(p.id), 8_000)).body,
      );
      expect(told).toMatch(/state store is unavailable|correlation id/);
      expect(sandbox.requests.count('pullzone.resetSecurityKey')).toBe(before);
    } finally {
      sandbox.faults.clear();
      await remote.close();
    }
  });
});
