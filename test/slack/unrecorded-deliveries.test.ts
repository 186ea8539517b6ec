/**
 * A change runs only after its delivery is recorded: when the state database cannot record
 * it, the change fails closed (nothing runs, the user is told), while reads still answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';
import { everyoneMayRun } from '../support/policies.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ policyYaml: everyoneMayRun() });
});
afterAll(async () => {
  await h?.close();
});

async function reply(text: string, retryNum?: number) {
  const { responseUrl } = await h.command(text, { retryNum });
  return JSON.stringify((await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body);
}

describe('when the state database cannot record a delivery', () => {
  it('runs no change, first delivery or redelivery, and says why; reads still answer', async () => {
    await h.runtime.services.state.client.execute('DROP TABLE claims');
    const before = h.sandbox.requests.count('pullzone.resetSecurityKey');
    for (const retryNum of [undefined, 1]) {
      const told = await reply('pullzone reset-key 308006 rotated', retryNum);
      expect(told).toContain("The bot's state store is unavailable, so nothing was run");
      expect(told).toContain('correlation id');
    }
    expect(h.sandbox.requests.count('pullzone.resetSecurityKey')).toBe(before);
    expect(await reply('dns')).toContain('DNS zones');
  });
});
