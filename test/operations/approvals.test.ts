/**
 * The approval gate as the engine drives it, without Slack: a gated request becomes a card in the
 * approvals channel and a note to the requester, `/edge approvals` lists what each request will
 * do, and the requester can withdraw it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyToPlainText } from '../../src/reply/plain.js';
import { renderReply } from '../../src/slack/blocks/reply.js';
import { validateBlocks } from '../support/block-kit.js';
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

describe('/edge approvals --all', () => {
  it('is a table of the latest requests, a waiting one’s id linking to its card, with no buttons', async () => {
    const zone = bed.sandbox.pullZoneIds[0]!;
    bed.clock.set(bed.clock() + 60_000);
    const first = await bed.run(`pullzone reset-key ${zone} rotated by mistake`, { userId: 'U0ANN' });
    const withdrawn = requestIdIn(wordsOf(answers(first)[0]!))!;
    await bed.run(`approvals cancel ${withdrawn}`, { userId: 'U0ANN' });
    bed.clock.set(bed.clock() + 60_000);
    const second = await bed.run(`pullzone reset-key ${zone} rotated after an incident`, { userId: 'U0ANN' });
    const card = second.find((record) => record.kind === 'post' && record.channelId === 'C0APPROVALS');
    const waiting = requestIdIn(wordsOf(answers(second)[0]!))!;

    const [history] = answers(await bed.run('approvals --all', { userId: 'U0LEAD' }));
    const tables = history!.blocks.flatMap((block) => (block.type === 'table' ? [block.table] : []));
    expect(tables).toHaveLength(1);
    const table = tables[0]!;
    expect(table.columns).toEqual([
      { header: 'Request', kind: 'text' },
      { header: 'What', kind: 'text' },
      { header: 'Operation', kind: 'text' },
      { header: 'Requester', kind: 'text' },
      { header: 'State', kind: 'text' },
      { header: 'Approvals', kind: 'number' },
      { header: 'Needed', kind: 'number' },
      { header: 'When', kind: 'text' },
    ]);
    const filed = Object.values(await bed.runtime.approvals.countByState()).reduce((sum, n) => sum + n, 0);
    expect(table.rows).toHaveLength(filed);
    expect(table.file).toBeUndefined();
    const ref = card?.kind === 'post' ? card.ref : undefined;
    const link = `https://example.slack.com/archives/C0APPROVALS/p${ref?.ts.replace('.', '')}`;
    // Newest first.
    expect(table.rows[0]).toEqual([
      { text: waiting, url: link },
      `Reset the token-authentication key of pull zone ${zone}`,
      'pullzone.reset-key',
      { user: 'U0ANN' },
      'pending',
      0,
      1,
      expect.stringMatching(/^asked .* · expires in 30 min/),
    ]);
    const closed = table.rows.find((row) => row[0] === withdrawn);
    expect(closed?.slice(3, 7)).toEqual([{ user: 'U0ANN' }, 'cancelled', 0, 1]);
    // The decision is on the card, never on a table row.
    expect(buttonsOf(history!)).toEqual([]);

    // Slack draws the link as a rich_text cell, the requester as a member; a closed request's id is text.
    const rendered = renderReply(history!);
    const drawn = rendered.blocks.find((block) => block.type === 'table') as unknown as {
      rows: unknown[][];
      column_settings: unknown[];
    };
    expect(drawn.rows[1]![0]).toEqual({
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'link', url: link, text: waiting }] }],
    });
    expect(drawn.rows[1]![3]).toEqual({
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'user', user_id: 'U0ANN' }] }],
    });
    expect(drawn.rows[1]![5]).toEqual({ type: 'raw_number', value: 0, text: '0' });
    expect(drawn.rows.find((row) => JSON.stringify(row[0]).includes(withdrawn))?.[0]).toEqual({
      type: 'raw_text',
      text: withdrawn,
    });
    expect(drawn.column_settings[5]).toEqual({ align: 'right' });
    expect(validateBlocks(rendered.blocks)).toEqual([]);
    // Every text form keeps the link as its words and its URL.
    expect(replyToPlainText(history!)).toContain(`${waiting} (${link})`);

    // Without --all the waiting request is listed as before, beside its buttons.
    const [listing] = answers(await bed.run('approvals', { userId: 'U0LEAD' }));
    expect(listing!.blocks.some((block) => block.type === 'table')).toBe(false);
    expect(
      buttonsOf(listing!).some((b) => b.actionId.startsWith('approvals:approve') && b.value === waiting),
    ).toBe(true);
    await bed.run(`approvals cancel ${waiting}`, { userId: 'U0ANN' });
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
