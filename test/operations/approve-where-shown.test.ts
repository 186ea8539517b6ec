/**
 * An Approve button only beside everything the card shows (PRODUCT §4): `/edge approvals` shows
 * what the card shows of a write with no WHERE, and the Home and the reminder, which have no
 * room for all of it, point to the card instead of offering Approve.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIGEST_SHOWN } from '../../src/operations/approvals/card.js';
import type { Reply } from '../../src/reply/model.js';
import {
  buttonsOf,
  type EngineTestbed,
  onlyAnswer,
  type Recorded,
  recordingSurface,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';

const POLICY = `
roles:
  everyone: ["*"]
  leads: [U0LEAD]
grants:
  - ops: "*"
    roles: [everyone]
approvals:
  channel: C0APPROVALS
  ttl: 30m
  rules:
    - ops: [db.exec]
      approvers: [leads]
      required: 1
`;

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: POLICY, serviceDatabase: true });
});
afterAll(async () => {
  await bed?.close();
});

/**
 * A pending `DELETE FROM customers` asked by `userId`: its id, its card and where the card is.
 * Each test asks as its own requester: one open write per person and database.
 */
async function deleteEveryCustomer(userId: string) {
  const records = await bed.run('db exec DELETE FROM customers', { userId });
  const posted = records.find(
    (record): record is Extract<Recorded, { kind: 'post' }> =>
      record.kind === 'post' && record.channelId === 'C0APPROVALS',
  );
  if (!posted) throw new Error(`no card: ${JSON.stringify(records.map((r) => r.kind))}`);
  const id = /ap_[0-9a-f]{16}/.exec(wordsOf(posted.reply))![0];
  const request = (await bed.runtime.services.approvals.peek(id))!;
  return { id, card: posted.reply, ref: posted.ref, digest: request.paramsDigest.slice(0, DIGEST_SHOWN) };
}

const cancel = (id: string, userId: string) =>
  bed.click({ actionId: 'approvals:cancel', value: id }, { userId });

/** The text of the blocks just before the actions block holding this request's Approve. */
function besideApprove(reply: Reply, id: string): string {
  const at = reply.blocks.findIndex(
    (block) =>
      block.type === 'actions' && block.buttons.some((b) => b.actionId === `approvals:approve#${id}`),
  );
  expect(at).toBeGreaterThan(0);
  const before = reply.blocks.slice(0, at);
  // The blocks of this request: from the one that names it, up to its buttons.
  const first = before.findLastIndex((block) => JSON.stringify(block).includes(id));
  return JSON.stringify(before.slice(first));
}

describe('/edge approvals, where approvers get Approve', () => {
  it('shows beside Approve the statement, its impact, the bold No WHERE warning and the digest, as the card does', async () => {
    const { id, card, digest } = await deleteEveryCustomer('U0ASKS1');
    const cardText = wordsOf(card);
    expect(cardText).toContain('*No WHERE: this changes every row of');

    const listing = onlyAnswer(await bed.run('approvals', { userId: 'U0LEAD' }));
    const shown = besideApprove(listing, id);
    expect(shown).toContain('DELETE FROM customers');
    expect(shown).toContain('Impact');
    expect(shown).toContain('*No WHERE: this changes every row of');
    expect(shown).toContain(digest);

    const whole = onlyAnswer(await bed.run(`approvals ${id}`, { userId: 'U0LEAD' }));
    expect(buttonsOf(whole).map((b) => b.actionId)).toContain(`approvals:approve#${id}`);
    expect(wordsOf(whole)).toContain('*No WHERE: this changes every row of');
    await cancel(id, 'U0ASKS1');
  });
});

describe('the Home, which cannot show all of it', () => {
  it('offers an approver no Approve or Reject for a pending db exec, and links to its card', async () => {
    const { id, ref } = await deleteEveryCustomer('U0ASKS2');

    const home = onlyAnswer(await bed.run('home', { userId: 'U0LEAD' }));
    const text = wordsOf(home);
    expect(text).toMatch(/Waiting for you \(\d+\)/);
    expect(text).toContain(id);
    expect(text).not.toContain('approvals:approve');
    expect(text).not.toContain('approvals:reject');
    const permalink = await recordingSurface().permalink(ref);
    expect(text).toContain(`<${permalink}|Open its card>`);
    await cancel(id, 'U0ASKS2');
  });

  it('says where the card is and how to open the request when there is no link to it (the console)', async () => {
    const { id } = await deleteEveryCustomer('U0ASKS3');
    const surface = { ...recordingSurface(), permalink: async () => undefined };
    await bed.runtime.engine.plan({ userId: 'U0LEAD', channelId: 'C0OPS', text: 'home', surface }).run();

    const text = wordsOf(onlyAnswer(surface.records));
    expect(text).toContain('Its card is in <#C0APPROVALS>');
    expect(text).toContain(`/edge approvals ${id}`);
    expect(text).not.toContain('approvals:approve');
    await cancel(id, 'U0ASKS3');
  });
});

describe('the reminder at half the time to live', () => {
  it('has no Approve of its own and links to the card', async () => {
    const { id, ref } = await deleteEveryCustomer('U0ASKS4');
    bed.clock.advance(15 * 60_000);
    const surface = recordingSurface();
    await bed.runtime.approvals.sweep(surface);

    const reminder = surface.records.find(
      (record): record is Extract<Recorded, { kind: 'post' }> =>
        record.kind === 'post' && record.threadTs === ref.ts && wordsOf(record.reply).includes(id),
    );
    expect(reminder).toBeDefined();
    const text = wordsOf(reminder!.reply);
    expect(text).toContain(id);
    expect(buttonsOf(reminder!.reply)).toEqual([]);
    expect(text).toContain(`<${await recordingSurface().permalink(ref)}|Open its card>`);
    await cancel(id, 'U0ASKS4');
  });
});
