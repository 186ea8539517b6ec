/**
 * The bot's own state on a remote libSQL server (the sandbox's Hrana endpoint), through the
 * engine: the audit chain lives there, and while it is unreachable nothing runs, gated or not.
 * What /readyz says meanwhile is in test/slack/state.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestIdIn } from '../support/approval-desk.js';
import { answered, type EngineTestbed, startEngineTestbed } from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ remoteState: true });
});
afterAll(async () => {
  bed?.sandbox.faults.clear();
  await bed?.close();
});

const reply = async (text: string) => answered(await bed.run(text));

describe('the state store on a remote libSQL server', () => {
  it('keeps the audit chain on the remote database', async () => {
    expect(await reply('dns')).toContain('DNS zones');
    const verify = await reply('audit --verify');
    expect(verify).toContain('The hash chain verifies');
    expect(verify).toContain('dns.list');
  });

  it('refuses commands while the state database is unreachable', async () => {
    bed.sandbox.faults.set('database.pipeline', { status: 503 });
    try {
      const before = bed.sandbox.requests.count('dnszone.list');
      const text = await reply('dns');
      expect(text).toContain('state store is unavailable');
      expect(bed.sandbox.requests.count('dnszone.list')).toBe(before);
    } finally {
      bed.sandbox.faults.clear();
    }
  });
});

describe('approvals while the state database is unreachable', () => {
  it('executes no gated operation', async () => {
    const remote = await startEngineTestbed({
      policyYaml: everyoneMayRun({ gated: ['pullzone.reset-key'] }),
      remoteState: true,
    });
    try {
      const asked = await remote.run('pullzone reset-key 410112 while the state store is down');
      const id = requestIdIn(answered(asked));
      expect(id).toBeDefined();
      const before = remote.sandbox.requests.count('pullzone.resetSecurityKey');
      remote.sandbox.faults.set('database.pipeline', { status: 503 });
      const told = answered(
        await remote.click({ actionId: 'approvals:approve', value: id }, { userId: 'U0LEAD' }),
      );
      expect(told).toMatch(/state store is unavailable|correlation id/);
      expect(remote.sandbox.requests.count('pullzone.resetSecurityKey')).toBe(before);
    } finally {
      remote.sandbox.faults.clear();
      await remote.close();
    }
  });
});
