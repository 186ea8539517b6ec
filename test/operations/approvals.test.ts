/**
 * The approval gate as the engine drives it, without Slack: a gated request becomes a card in the
 * approvals channel and a note to the requester, `/edge approvals` lists what each request will
 * do, and the requester can withdraw it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, type EngineTestbed, startEngineTestbed, wordsOf } from '../support/engine.js';
import { APPROVALS_POLICY } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: APPROVALS_POLICY });
});
afterAll(async () => {
  await bed?.close();
});

const requestIdIn = (text: string) => /ap_[0-9a-f]{16}/.exec(text)?.[0];

describe('a gated request through the engine', () => {
  it('posts the card in the approvals channel, tells the requester, and runs nothing yet', async () => {
    const before = bed.sandbox.requests.count('pullzone.resetSecurityKey');
    const records = await bed.run('pullzone reset-key 308006 rotated after an incident');
    const card = records.find((record) => record.kind === 'post');
    expect(card).toMatchObject({ kind: 'post', channelId: 'C0APPROVALS' });
    const cardWords = card?.kind === 'post' ? wordsOf(card.reply) : '';
    expect(cardWords).toContain('Reset the token-authentication key of pull zone 308006');
    expect(cardWords).toContain('rotated after an incident');
    const id = requestIdIn(cardWords);
    expect(id).toBeDefined();
    const [note] = answers(records);
    expect(wordsOf(note!)).toContain(id);
    expect(bed.sandbox.requests.count('pullzone.resetSecurityKey')).toBe(before);

    const listed = answers(await bed.run('approvals', { userId: 'U0LEAD' }));
    expect(wordsOf(listed[0]!)).toContain(id);
    expect(wordsOf(listed[0]!)).toContain('pull zone 308006');

    const withdrawn = answers(await bed.run(`approvals cancel ${id}`));
    expect(wordsOf(withdrawn[0]!)).toMatch(/cancel/i);
    expect((await bed.runtime.services.approvals.peek(id!))?.state).toBe('cancelled');
  });

  it('refuses a request id that is not one, saying what to type', async () => {
    const [answer] = answers(await bed.run('approvals cancel 42'));
    expect(answer?.visibility).toBe('ephemeral');
    expect(answer?.text).toContain('"42" is not a request id (ap_ and 16 hex digits; see /edge approvals)');
  });
});
