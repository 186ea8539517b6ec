/** `/edge whoami` and the refusals it explains, through the engine with a recording responder. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, type EngineTestbed, startEngineTestbed, wordsOf } from '../support/engine.js';
import { ONCALL_POLICY } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: ONCALL_POLICY });
});
afterAll(async () => {
  await bed?.close();
});

describe('/edge whoami', () => {
  it('answers privately with the roles and, per operation, the same words a refusal uses', async () => {
    const [answer] = await bed.run('whoami', { userId: 'U0DAVE' });
    expect(answer).toMatchObject({ kind: 'respond', reply: { visibility: 'ephemeral' } });
    const words = wordsOf(
      answer!.kind === 'respond' ? answer!.reply : { text: '', blocks: [], visibility: 'ephemeral' },
    );
    expect(words).toContain('roles: everyone');
    expect(words).toContain(
      'apikey.list is granted to oncall, and you are not in it; ask <@U0ALICE>, <!subteam^S0ONCALL> for help',
    );

    const [refusal] = answers(await bed.run('apikeys', { userId: 'U0DAVE' }));
    expect(refusal?.visibility).toBe('ephemeral');
    expect(refusal?.text).toBe(
      'Not allowed: apikey.list is granted to oncall, and you are not in it; ask @U0ALICE, <!subteam^S0ONCALL> for help.',
    );
  });

  it('writes a refusal to the audit log in the words the user read', async () => {
    await bed.run('apikeys', { userId: 'U0ALICE', channelId: 'C0RANDOM' });
    const [row] = await bed.runtime.services.audit.list({ limit: 1 });
    expect(row).toMatchObject({ outcome: 'denied', operation: 'apikey.list', userId: 'U0ALICE' });
    expect(row!.detail).toBe('Not allowed: you may run apikey.list only in #C0OPS (grants[1]).');
  });
});
