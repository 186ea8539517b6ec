/**
 * The DM that delivers a new key leaves no trail: "Saved it, delete this" deletes it for its
 * reader only, and a reminder follows in its thread, once, when nobody pressed it. What Slack
 * says of a message already gone is in test/slack/approvals.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trusted } from '../../../src/reply/markup.js';
import { ephemeral } from '../../../src/reply/model.js';
import { type ApprovalDesk, approvalDesk } from '../../support/approval-desk.js';
import {
  answered,
  buttonsOf,
  dmsIn,
  type EngineTestbed,
  postsIn,
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

type Ref = { channelId: string; ts: string };

describe('secrets leave no trail', () => {
  /** Resets pull zone 308006 through an approval; returns the DM that delivered the new key. */
  async function keyDm(): Promise<{ key: string; ref: Ref; button: string }> {
    const zone = 308006;
    const { id } = await desk.requestReset(zone);
    const clicked = await desk.click('approve', id, 'U0LEAD');
    expect(await desk.stateOf(id)).toBe('succeeded');
    const key = bed.sandbox.pullZoneSecurityKey(zone)!;
    const dm = dmsIn(clicked).find((record) => JSON.stringify(record).includes(key));
    if (!dm) throw new Error('no DM with the new key');
    const button = buttonsOf(dm.reply).find((b) => b.actionId === 'approvals:forget')?.value;
    expect(wordsOf(dm.reply)).toContain('Saved it, delete this');
    if (!button || !/^sm_[0-9a-f]{16}$/.test(button)) throw new Error('no delete button on the secret DM');
    return { key, ref: dm.ref, button };
  }

  const remindersOf = (dm: { ref: Ref }) =>
    postsIn(bed.messenger.records, dm.ref.channelId).filter((post) => post.threadTs === dm.ref.ts);

  const forget = (value: string, caller: { userId: string; channelId: string; messageTs?: string }) =>
    bed.click({ actionId: 'approvals:forget', value }, caller);

  it('"Saved it, delete this" on a DM whose record was never written deletes the DM clicked', async () => {
    // A DM as the bot sends a secret, with no row in the secret trail.
    const dm = await bed.messenger.sendDirect(
      'U0YOU',
      ephemeral('secret', [{ type: 'text', text: trusted('The key: `not-really-secret`') }]),
    );
    if (!dm) throw new Error('the DM was not sent');
    const said = answered(
      await forget('sm_00000000000000ff', { userId: 'U0YOU', channelId: dm.channelId, messageTs: dm.ts }),
    );
    expect(said).toContain('Deleted: the secret is gone from this conversation');
    expect(bed.board.shown(dm)).toBeUndefined();
    // Anywhere but a DM, an unknown message is left alone.
    expect(answered(await forget('sm_00000000000000ff', { userId: 'U0YOU', channelId: 'C0OPS' }))).toContain(
      'I have no record of that message',
    );
  });

  it('"Saved it, delete this" deletes the DM that delivered the key, for its reader only; no reminder follows', async () => {
    const dm = await keyDm();
    const stranger = answered(await forget(dm.button, { userId: 'U0LEAD', channelId: dm.ref.channelId }));
    expect(stranger).toContain('who received it, can delete that message');
    expect(bed.board.shown(dm.ref)).toBeDefined();
    // The stranger's press is audited as refused, not as done.
    expect(
      (await bed.runtime.services.audit.list({ limit: 50, filter: { userId: 'U0LEAD' } })).some(
        (row) => row.outcome === 'refused' && (row.detail ?? '').includes('Only its reader can delete it'),
      ),
    ).toBe(true);

    const said = answered(await forget(dm.button, { userId: 'U0YOU', channelId: dm.ref.channelId }));
    expect(said).toContain('Deleted: the secret is gone from this conversation');
    expect(said).not.toContain(dm.key);
    expect(bed.board.shown(dm.ref)).toBeUndefined();

    bed.clock.advance(11 * 60_000);
    await bed.runtime.approvals.sweep(bed.messenger);
    expect(remindersOf(dm)).toEqual([]);

    expect(answered(await forget(dm.button, { userId: 'U0YOU', channelId: dm.ref.channelId }))).toContain(
      'already deleted',
    );
  });

  it('reminds the reader after 10 minutes in the DM’s thread, once across two sweeping runtimes, without the secret', async () => {
    const dm = await keyDm();
    bed.clock.advance(10 * 60_000 - 1_000);
    await bed.runtime.approvals.sweep(bed.messenger);
    expect(remindersOf(dm)).toEqual([]);
    bed.clock.advance(1_000);
    await desk.sweepOnTwoRuntimes(10 * 60_000);
    expect(remindersOf(dm)).toHaveLength(1);
    const reminder = JSON.stringify(remindersOf(dm)[0]!.reply);
    expect(reminder).toContain('press *Saved it, delete this*');
    expect(reminder).not.toContain(dm.key);
  });
});
