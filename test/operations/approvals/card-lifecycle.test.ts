/**
 * Cards people notice, understand and finish, through the engine: what a card says in its
 * header, the reminder in its thread, the reason of a Reject, the audit of every click, and the
 * card and the requester's DM at each end.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ApprovalDesk, approvalDesk } from '../../support/approval-desk.js';
import {
  answered,
  dmsIn,
  type EngineTestbed,
  headerOf,
  onlyAnswer,
  postsIn,
  type Recorded,
  readableOf,
  startEngineTestbed,
  wordsOf,
} from '../../support/engine.js';
import { APPROVALS_POLICY } from '../../support/policies.js';

let bed: EngineTestbed;
let desk: ApprovalDesk;

beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: APPROVALS_POLICY });
  desk = approvalDesk(bed);
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => {
  bed.sandbox.faults.clear();
});

/** The DMs to `userId` among the records, as words. */
const dmsTo = (userId: string, records: readonly Recorded[]) =>
  dmsIn(records, userId).map((dm) => wordsOf(dm.reply));

describe('cards people notice, understand and finish', () => {
  const LEADS = '<@U0LEAD>, <@U0LEAD2> or <!subteam^S0LEADS> (leads), 1 of them';

  it('the card says what will happen in its header, names the approvers by mention, and keeps the operation id in its context', async () => {
    const zone = desk.freshZone();
    const { id, card } = await desk.requestReset(zone);
    expect(headerOf(card)).toBe(`Reset the token-authentication key of pull zone ${zone}`);
    const text = wordsOf(card);
    expect(text).toContain(`*Who may approve:* ${LEADS}`);
    expect(text).toContain(`pullzone.reset-key · request ${id}`);
    expect(text).not.toContain('Approval needed');
  });

  it('reminds the approvers in the card’s thread at half the time to live, once, with two runtimes sweeping one state database', async () => {
    const zone = desk.freshZone();
    const { id } = await desk.requestReset(zone);
    const card = (await bed.runtime.services.approvals.peek(id))!.card!;
    const reminders = () => postsIn(bed.messenger.records).filter((post) => post.threadTs === card.ts);
    bed.clock.advance(15 * 60_000 - 1_000);
    await bed.runtime.approvals.sweep(bed.messenger);
    expect(reminders()).toEqual([]);
    bed.clock.advance(1_000);
    const since = bed.messenger.records.length;
    await desk.sweepOnTwoRuntimes(60_000);
    expect(reminders()).toHaveLength(1);
    const reminder = reminders()[0]!;
    expect(reminder.channelId).toBe(card.channel);
    const text = wordsOf(reminder.reply);
    expect(text).toContain(`Reminder for ${LEADS}`);
    expect(text).toContain('expires in 15 min');
    expect(await desk.stateOf(id)).toBe('pending');
    // The card is brought up to date with the reminder, without a new post that would notify again.
    const versions = bed.messenger.records
      .slice(since)
      .filter(
        (record) =>
          (record.kind === 'update' && record.ref.channelId === card.channel && record.ref.ts === card.ts) ||
          (record.kind === 'post' &&
            record.channelId === card.channel &&
            !record.threadTs &&
            wordsOf(record.reply).includes(id)),
      );
    expect(versions.at(-1)?.kind).toBe('update');
    expect(wordsOf((await desk.latestCard(id))!)).toContain('asked 15 min ago · expires in 15 min');
  });

  it('Reject asks why; the reason goes on the card, to the requester by DM and into the audit row', async () => {
    const zone = desk.freshZone();
    const { id } = await desk.requestReset(zone);
    const rejected = await desk.reject(id, 'U0LEAD', 'not during the freeze');
    expect(await desk.stateOf(id)).toBe('rejected');
    expect(headerOf(await desk.latestCard(id))).toBe('⛔ Rejected');
    expect(wordsOf((await desk.latestCard(id))!)).toContain('Rejected by <@U0LEAD>: not during the freeze');
    const told = dmsTo('U0YOU', rejected).join('\n');
    expect(told).toContain(
      '<@U0LEAD> rejected your request: *Reset the token-authentication key of pull zone',
    );
    expect(told).toContain('Reason: not during the freeze');
    const row = (await bed.runtime.services.audit.list({ limit: 50 })).find(
      (r) => r.approvalId === id && r.outcome === 'rejected',
    );
    expect(row?.detail).toBe('rejected by U0LEAD; reason: not during the freeze');
  });

  it('clicks are audited under the request’s operation and target, so /edge audit --op shows who clicked what', async () => {
    const zone = desk.freshZone();
    const { id } = await desk.requestReset(zone);
    expect(answered(await desk.click('approve', id, 'U0RANDOM'))).toContain(
      'Only members of leads can approve',
    );
    await desk.reject(id, 'U0LEAD', 'not now');
    expect(await desk.stateOf(id)).toBe('rejected');
    const rows = (await bed.runtime.services.audit.list({ limit: 100 })).filter(
      (row) => row.approvalId === id,
    );
    // A click the approver may not make is audited as refused, not as a click that was done.
    expect(
      rows
        .filter((row) => ['clicked', 'submitted', 'refused'].includes(row.outcome))
        .map((row) => [row.userId, row.operation, row.target, row.outcome])
        .sort(),
    ).toEqual([
      ['U0LEAD', 'pullzone.reset-key', String(zone), 'clicked'],
      ['U0LEAD', 'pullzone.reset-key', String(zone), 'submitted'],
      ['U0RANDOM', 'pullzone.reset-key', String(zone), 'refused'],
    ]);
    const refusal = rows.find((row) => row.outcome === 'refused');
    expect(refusal?.detail).toContain('Only members of leads can approve');
    expect(rows.some((row) => row.operation === 'approvals.list')).toBe(false);
    const listed = readableOf(
      onlyAnswer(await bed.run(`audit --op pullzone.reset-key --target ${zone}`, { userId: 'U0LEAD' })),
    );
    // One row per request: the refused click, the Reject click that opened the form, and the
    // form's submit, each under its own step rather than the engine's closing word.
    expect(listed).toContain(`@U0RANDOM | pullzone.reset-key | ${zone} | approval-refused | c-`);
    expect(listed).toContain(`@U0LEAD | pullzone.reset-key | ${zone} | clicked | c-`);
    expect(listed).toContain(`@U0LEAD | pullzone.reset-key | ${zone} | rejected | c-`);
    expect(listed).not.toContain('| submitted |');
    expect(listed).not.toContain('| refused |');
  });

  it('Reject by someone who may not reject is refused without a form, and a forged submit is refused too', async () => {
    const { id } = await desk.requestReset(desk.freshZone());
    const stranger = await desk.click('reject', id, 'U0RANDOM');
    expect(answered(stranger)).toContain('Only members of leads can reject');
    const own = await desk.click('reject', id, 'U0YOU');
    expect(answered(own)).toContain('You requested this');
    expect([...stranger, ...own].filter((record) => record.kind === 'form')).toEqual([]);
    const forged = await bed.submit(
      { callbackId: 'approvals:reject', privateMetadata: id },
      { reason: 'because I can' },
      { userId: 'U0RANDOM', channelId: 'C0APPROVALS' },
    );
    expect('records' in forged && answered(forged.records)).toContain('Only members of leads can reject');
    expect(await desk.stateOf(id)).toBe('pending');
    // A reason longer than 500 characters is refused on its field; the form stays open.
    const long = await bed.submit(
      { callbackId: 'approvals:reject', privateMetadata: id },
      { reason: 'x'.repeat(501) },
      { userId: 'U0LEAD', channelId: 'C0APPROVALS' },
    );
    expect(JSON.stringify(long)).toContain('Keep the reason to 500 characters (it has 501)');
    expect(await desk.stateOf(id)).toBe('pending');
    await desk.reject(id, 'U0LEAD');
    expect(wordsOf((await desk.latestCard(id))!)).toContain('Rejected by <@U0LEAD>, no reason given.');
  });

  it('an approved and done request heads its card with the outcome and tells the requester, without the key', async () => {
    const zone = 308006;
    const { id } = await desk.requestReset(zone);
    const clicked = await desk.click('approve', id, 'U0LEAD');
    expect(await desk.stateOf(id)).toBe('succeeded');
    expect(headerOf(await desk.latestCard(id))).toBe(`✓ Key reset for pull zone ${zone}`);
    const ran = dmsTo('U0YOU', clicked).filter((dm) => dm.includes('it ran'));
    expect(ran).toHaveLength(1);
    expect(ran[0]).toContain(`Key reset for pull zone ${zone}: your request was approved by <@U0LEAD>`);
    expect(ran[0]).not.toContain(bed.sandbox.pullZoneSecurityKey(zone)!);
  });

  it('a failed request heads its card “✗ Failed” and tells the requester the error', async () => {
    const { id } = await desk.requestReset(desk.freshZone());
    bed.sandbox.faults.set('pullzone.resetSecurityKey', { status: 500 });
    const clicked = await desk.click('approve', id, 'U0LEAD');
    expect(await desk.stateOf(id)).toBe('failed');
    expect(headerOf(await desk.latestCard(id))).toBe('✗ Failed');
    const detail = (await bed.runtime.services.approvals.peek(id))!.result!.detail;
    const told = dmsTo('U0YOU', clicked).join('\n');
    expect(told).toContain('It was not retried.');
    expect(told).toContain(detail.slice(0, 30));
  });

  it('an expired request heads its card “⏰ Expired unanswered” and tells the requester once', async () => {
    const { id } = await desk.requestReset(desk.freshZone());
    const since = bed.messenger.records.length;
    bed.clock.advance(31 * 60_000);
    await Promise.all([
      bed.runtime.approvals.sweep(bed.messenger),
      bed.runtime.approvals.sweep(bed.messenger),
    ]);
    await bed.runtime.approvals.sweep(bed.messenger);
    expect(await desk.stateOf(id)).toBe('expired');
    expect(headerOf(await desk.latestCard(id))).toBe('⏰ Expired unanswered');
    const told = dmsTo('U0YOU', bed.messenger.records.slice(since)).filter(
      (dm) => dm.includes(id) && dm.includes('expired unanswered'),
    );
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('Nobody approved it within 30 min');
  });

  it('a cancelled request heads its card “✖ Cancelled”', async () => {
    const { id } = await desk.requestReset(desk.freshZone());
    await desk.click('cancel', id, 'U0YOU');
    expect(headerOf(await desk.latestCard(id))).toBe('✖ Cancelled');
    expect(wordsOf((await desk.latestCard(id))!)).toContain('Cancelled by <@U0YOU>');
  });
});
