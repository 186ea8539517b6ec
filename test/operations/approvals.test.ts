/**
 * The approval gate as the engine drives it, without Slack: a gated request becomes a card in the
 * approvals channel and a note to the requester, `/edge approvals` lists what each request will
 * do, and the requester can withdraw it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, buttonsOf, type EngineTestbed, startEngineTestbed, wordsOf } from '../support/engine.js';
import { APPROVALS_POLICY, everyoneMayRun } from '../support/policies.js';

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

describe('a click that will be refused', () => {
  it('is refused before any form: a lead who already approved is told so, not asked to type the id', async () => {
    const confirmBed = await startEngineTestbed({
      policyYaml: everyoneMayRun({
        rules: [{ ops: ['pullzone.reset-key'], required: 2, confirm: true }],
        leads: ['U0LEAD', 'U0LEAD2'],
      }),
    });
    try {
      const asked = await confirmBed.run('pullzone reset-key 308006 rotated');
      const card = asked.find((record) => record.kind === 'post');
      const approve =
        card?.kind === 'post'
          ? buttonsOf(card.reply).find((b) => b.actionId.startsWith('approvals:approve'))
          : undefined;
      expect(approve).toBeDefined();
      const lead = { userId: 'U0LEAD', channelId: 'C0APPROVALS' };
      const first = await confirmBed.click(approve!, lead);
      const form = first.find((record) => record.kind === 'form');
      expect(form?.kind === 'form' && form.modal.callbackId).toBe('approvals:confirm');
      const confirmed = await confirmBed.submit(
        { callbackId: 'approvals:confirm', privateMetadata: approve!.value },
        { confirmation: '308006' },
        lead,
      );
      expect('records' in confirmed && JSON.stringify(confirmed.records)).toContain('1 of 2');

      const again = await confirmBed.click(approve!, lead);
      expect(again.map((record) => record.kind)).toEqual(['respond']);
      expect(wordsOf(answers(again)[0]!)).toMatch(/already approved/i);
      // The requester is refused at once too: a form would ask them for nothing they may do.
      const own = await confirmBed.click(approve!, { userId: 'U0YOU', channelId: 'C0APPROVALS' });
      expect(own.map((record) => record.kind)).toEqual(['respond']);
    } finally {
      await confirmBed.close();
    }
  });
});

describe('an approvals table that cannot be written', () => {
  it('tells the requester the state store is unavailable, with a correlation id, and audits it as an error', async () => {
    const { client } = bed.runtime.services.state;
    await client.execute(
      `CREATE TRIGGER inserts_fail BEFORE INSERT ON approvals BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`,
    );
    let records: Awaited<ReturnType<EngineTestbed['run']>>;
    try {
      records = await bed.run('pullzone reset-key 308006 rotated while the disk fails');
    } finally {
      await client.execute('DROP TRIGGER inserts_fail');
    }
    const told = wordsOf(answers(records)[0]!);
    expect(told).toContain("The bot's state store is unavailable, so the approval request could not be read");
    const correlation = /correlation id (c-[0-9a-f]+)/.exec(told)?.[1];
    expect(correlation).toBeDefined();
    // What the log says stays in the log: not the table's words, not the disk's.
    expect(told).not.toContain('approvals table');
    expect(told).not.toContain('disk I/O error');
    const rows = (await bed.runtime.services.audit.list({ limit: 20 })).filter(
      (row) => row.correlationId === correlation,
    );
    expect(rows.map((row) => row.outcome)).toContain('error');
    expect(records.some((record) => record.kind === 'post')).toBe(false);
  });
});
