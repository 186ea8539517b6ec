/**
 * The approval gate through the engine: a card that cannot be recorded, clicks by the requester,
 * by strangers and after expiry, the one run an approval makes, the policy in force at each
 * click, cancelling, listing and escalation. What only Slack shows (a card Slack refuses, a DM
 * Slack cannot open, user groups read from Slack) is in test/slack/approvals.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Reply } from '../../../src/reply/model.js';
import { type ApprovalDesk, approvalDesk, requestIdIn } from '../../support/approval-desk.js';
import {
  answered,
  answers,
  buttonsOf,
  dmsIn,
  type EngineTestbed,
  fieldsOf,
  postsIn,
  type Recorded,
  recordingSurface,
  startEngineTestbed,
  wordsOf,
} from '../../support/engine.js';
import { APPROVALS_POLICY } from '../../support/policies.js';

const POLICY = APPROVALS_POLICY;

let bed: EngineTestbed;
let desk: ApprovalDesk;

beforeAll(async () => {
  bed = await startEngineTestbed({
    policyYaml: POLICY,
    groups: { S0LEADS: ['U0GROUPLEAD'], S0SOLO: ['U0YOU'] },
  });
  desk = approvalDesk(bed);
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => {
  bed.sandbox.faults.clear();
});

const freshZone = () => desk.freshZone();

const ask = async (text: string, userId = 'U0YOU') => answered(await bed.run(text, { userId }));

/** What the card at `ref` shows now, as words. */
const shownAt = (ref: { channelId: string; ts: string }) => wordsOf(bed.board.shown(ref)!);

/**
 * Asks for a key reset of a fresh zone while the state database refuses `event` (an SQLite
 * trigger event on the approvals table, e.g. `UPDATE OF card_ts`), as a failing disk would.
 */
async function requestWhileFailing(event: string) {
  const zone = freshZone();
  const { client } = bed.runtime.services.state;
  await client.execute(
    `CREATE TRIGGER writes_fail BEFORE ${event} ON approvals BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`,
  );
  try {
    const records = await bed.run(`pullzone reset-key ${zone} rotated`);
    return { zone, records, reply: answered(records) };
  } finally {
    await client.execute('DROP TRIGGER writes_fail');
  }
}

/**
 * Asks for a key reset of `zone`; `until` runs when the card is about to go up, before the
 * transport has posted it, as a slow post would let an approver act in the meantime.
 */
async function requestHoldingCard(zone: number, until: (card: Reply) => Promise<void>) {
  const surface = recordingSurface({ board: bed.board });
  const post = surface.postToChannel;
  const held = {
    ...surface,
    async postToChannel(channelId: string, reply: Reply, threadTs?: string) {
      if (channelId === 'C0APPROVALS' && wordsOf(reply).includes(`pull zone ${zone}`)) await until(reply);
      return post(channelId, reply, threadTs);
    },
  };
  await bed.runtime.engine
    .plan({ userId: 'U0YOU', channelId: 'C0OPS', text: `pullzone reset-key ${zone} rotated`, surface: held })
    .run();
  return surface.records;
}

const requestReset = (zone: number, userId?: string) => desk.requestReset(zone, userId);

const resets = () => bed.sandbox.requests.count('pullzone.resetSecurityKey');

/** Runs `work` under another policy, then puts the file's policy back. */
async function withPolicy(yaml: string, work: () => Promise<void>) {
  bed.setPolicy(yaml);
  try {
    await work();
  } finally {
    bed.setPolicy(POLICY);
  }
}

const said = (records: readonly Recorded[]) => answered(records);

describe('the approval gate', () => {
  it('cancels a request whose posted card cannot be recorded, and takes the buttons off that card', async () => {
    // The card's place is written after it is posted: make exactly that write fail.
    const { records, reply } = await requestWhileFailing('UPDATE OF card_ts');
    expect(reply).toContain(
      'The approval card in <#C0APPROVALS> was posted, but the state database could not record it. Ask again in a minute.',
    );
    const id = requestIdIn(reply);
    expect(await desk.stateOf(id)).toBe('cancelled');
    const shown = shownAt(desk.cardIn(records).ref);
    expect(shown).toContain(`Request ${id} is cancelled: the state database could not record it`);
    expect(shown).not.toContain('approvals:approve');
    const rows = (await bed.runtime.services.audit.list({ limit: 50 })).filter(
      (row) => row.approvalId === id,
    );
    expect(rows[0]?.detail).toContain('could not be recorded in C0APPROVALS');
  });

  it('keeps a request open, and says so on its card and to its requester, when it can be neither recorded nor cancelled', async () => {
    // Every change to a request fails: the card's place, and the cancel that would follow.
    const { records, reply } = await requestWhileFailing('UPDATE');
    const id = requestIdIn(reply);
    expect(reply).toContain('was posted, but the state database could not record it.');
    expect(reply).toContain(`could not be cancelled either, so it stays open until`);
    expect(reply).not.toContain('is cancelled');
    expect(await desk.stateOf(id)).toBe('pending');
    const shown = shownAt(desk.cardIn(records).ref);
    expect(shown).toContain(`Request ${id} could not be recorded on this card`);
    expect(shown).toContain(`/edge approvals ${id}`);
    expect(shown).not.toContain('approvals:approve');
    // Once the database answers, the requester can cancel it as the reply says.
    expect(await ask(`approvals cancel ${id}`)).toContain(`Request ${id} is cancelled`);
  });

  it('tells the requester a request was decided as its card went up, and the card shows where it stands', async () => {
    const zone = freshZone();
    const { client } = bed.runtime.services.state;
    // The card's place cannot be recorded, and in the moment the card is up an approver approves it.
    await client.execute(
      `CREATE TRIGGER card_fails BEFORE UPDATE OF card_ts ON approvals BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`,
    );
    let id = '';
    try {
      const records = await requestHoldingCard(zone, async (card) => {
        id = requestIdIn(wordsOf(card));
        await desk.click('approve', id, 'U0LEAD');
        expect(await desk.stateOf(id)).not.toBe('pending');
      });
      const reply = said(records);
      expect(reply).toContain(`Request ${id} was decided in the moment its card went up`);
      expect(reply).not.toContain('is cancelled');
      expect(reply).not.toContain('Approval requested');
      // Not cancelled under the approver: it ran, once.
      expect(await desk.stateOf(id)).toBe('succeeded');
      const shown = shownAt(desk.cardIn(records).ref);
      expect(shown).not.toContain('approvals:approve');
      expect(shown).toContain(id);
    } finally {
      await client.execute('DROP TRIGGER card_fails');
    }
  });

  it('says it could not confirm a request is cancelled when the state database stops answering as its card goes up', async () => {
    const zone = freshZone();
    const { client } = bed.runtime.services.state;
    // Once the card is up, the approvals table is gone: it can be neither recorded, nor
    // cancelled, nor read back.
    let records: Recorded[];
    try {
      records = await requestHoldingCard(zone, async () => {
        await client.execute('ALTER TABLE approvals RENAME TO approvals_away');
      });
    } finally {
      await client.execute('ALTER TABLE approvals_away RENAME TO approvals');
    }
    const reply = said(records);
    const id = requestIdIn(reply);
    expect(reply).toContain('was posted, but the state database could not record it.');
    expect(reply).toContain(`Whether request ${id} is cancelled could not be confirmed`);
    expect(reply).toContain(`/edge approvals ${id}`);
    expect(reply).not.toContain('is cancelled,');
    const shown = shownAt(desk.cardIn(records).ref);
    expect(shown).toContain(`Request ${id} could not be recorded on this card`);
    expect(shown).toContain('It may still be open');
    expect(shown).not.toContain('approvals:approve');
    // It was never cancelled, and the reply said it might not be: it is still there to decide.
    expect(await desk.stateOf(id)).toBe('pending');
    expect(await ask(`approvals cancel ${id}`)).toContain(`Request ${id} is cancelled`);
  });

  it('posts a card with what will happen, the requester, reason, expiry and Approve/Reject', async () => {
    const zone = freshZone();
    const { card } = await requestReset(zone);
    const text = wordsOf(card);
    expect(text).toContain(`Reset the token-authentication key of pull zone ${zone}`);
    expect(text).toContain('<@U0YOU>');
    expect(text).toContain('rotated after an incident');
    const expiry = new Date(bed.clock() + 30 * 60_000).toISOString().slice(11, 16);
    expect(text).toContain(`asked 0 s ago · expires in 30 min, ${expiry} UTC`);
    expect(text).toContain('0 of 1');
    expect(buttonsOf(card).map((button) => button.actionId)).toContain('approvals:approve');
    expect(buttonsOf(card).some((button) => button.style === 'danger')).toBe(true);
  });

  it('refuses the requester approving their own request, and runs nothing', async () => {
    const { id } = await requestReset(freshZone());
    const before = resets();
    expect(said(await desk.click('approve', id, 'U0YOU'))).toContain('You requested this');
    expect(await desk.stateOf(id)).toBe('pending');
    expect(resets()).toBe(before);
  });

  it('refuses someone who is not an approver', async () => {
    const { id } = await requestReset(freshZone());
    const before = resets();
    expect(said(await desk.click('approve', id, 'U0RANDOM'))).toContain('Only members of leads can approve');
    expect(await desk.stateOf(id)).toBe('pending');
    expect(resets()).toBe(before);
  });

  it('refuses a click after expiry, and the sweep closes the request and updates its card', async () => {
    const { id } = await requestReset(freshZone());
    bed.clock.advance(31 * 60_000);
    const before = resets();
    const late = await desk.click('approve', id, 'U0LEAD');
    expect(said(late)).toMatch(/expired/i);
    expect(resets()).toBe(before);
    const since = bed.messenger.records.length;
    await bed.runtime.approvals.sweep(bed.messenger);
    expect(await desk.stateOf(id)).toBe('expired');
    // The late click closed it, so the requester hears it from there, and once.
    const told = dmsIn([...late, ...bed.messenger.records.slice(since)], 'U0YOU')
      .map((dm) => wordsOf(dm.reply))
      .filter((dm) => dm.includes(id) && dm.includes('expired unanswered'));
    expect(told).toHaveLength(1);
    expect(wordsOf((await desk.latestCard(id))!)).toContain('Expired');
  });

  it('a Reject closes the request, and a later Approve is told who decided', async () => {
    const { id } = await requestReset(freshZone());
    await desk.reject(id, 'U0LEAD');
    expect(await desk.stateOf(id)).toBe('rejected');
    const before = resets();
    const late = said(await desk.click('approve', id, 'U0LEAD2'));
    expect(late).toContain('rejected by <@U0LEAD>');
    expect(resets()).toBe(before);
  });

  it('an approval runs the reset once; the key goes only to the requester by DM', async () => {
    const zone = 308006;
    const { id } = await requestReset(zone);
    const before = resets();
    const clicked = await desk.click('approve', id, 'U0LEAD');
    expect(await desk.stateOf(id)).toBe('succeeded');
    expect(resets() - before).toBe(1);
    const key = bed.sandbox.pullZoneSecurityKey(zone)!;
    expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
    const dm = clicked.find((record) => JSON.stringify(record).includes(key));
    expect(dm).toMatchObject({ kind: 'dm', userId: 'U0YOU' });
    // The card, the channel and the audit log show only its fingerprint.
    const elsewhere = clicked.filter((record) => record !== dm && JSON.stringify(record).includes(key));
    expect(elsewhere).toEqual([]);
    // The request's state moves first, and its audit row follows.
    const rows = await bed.runtime.services.audit.list({ limit: 200 });
    expect(rows.some((row) => row.approvalId === id && row.outcome === 'succeeded')).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(key);
  });

  it('50 concurrent Approve clicks on one request make exactly one platform call', async () => {
    const { id } = await requestReset(freshZone());
    const before = resets();
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => desk.click('approve', id, i % 2 ? 'U0LEAD' : 'U0LEAD2')),
    );
    expect(await desk.stateOf(id)).toMatch(/succeeded|failed/);
    expect(resets() - before).toBe(1);
  });

  it('refuses a second request for the same pull zone, pointing at the first', async () => {
    const zone = freshZone();
    const { id } = await requestReset(zone);
    const second = await ask(`pullzone reset-key ${zone} again`, 'U0OTHER');
    expect(second).toContain(id);
    expect(second).toContain('<@U0YOU>');
  });

  it('lets the requester cancel with the button on their note', async () => {
    const { id } = await requestReset(freshZone());
    expect(said(await desk.click('cancel', id, 'U0LEAD'))).toMatch(/requester/);
    await desk.click('cancel', id, 'U0YOU');
    expect(await desk.stateOf(id)).toBe('cancelled');
  });

  it('reports a failed execution (platform 500) on the card and to the requester, without retrying', async () => {
    const { id } = await requestReset(freshZone());
    bed.sandbox.faults.set('pullzone.resetSecurityKey', { status: 500 });
    const before = resets();
    const clicked = await desk.click('approve', id, 'U0LEAD');
    expect(await desk.stateOf(id)).toBe('failed');
    expect(resets() - before).toBe(1);
    const dm = dmsIn(clicked).find((record) => JSON.stringify(record).includes('failed'));
    expect(JSON.stringify(dm)).toContain('not retried');
    expect(
      clicked.some(
        (record) =>
          record.kind === 'update' &&
          wordsOf(record.reply).includes(id) &&
          wordsOf(record.reply).includes('Failed'),
      ),
    ).toBe(true);
  });

  it('a lead removed from the policy after the request was made can no longer approve it', async () => {
    const { id, card } = await requestReset(freshZone());
    expect(wordsOf(card)).toContain('checked again at each click against the policy in force');
    const before = resets();
    await withPolicy(
      POLICY.replace('leads: [U0LEAD, U0LEAD2, S0LEADS]', 'leads: [U0LEAD, S0LEADS]'),
      async () => {
        const refused = said(await desk.click('approve', id, 'U0LEAD2'));
        expect(refused).toContain('policy in force now');
        expect(await desk.stateOf(id)).toBe('pending');
        expect(resets()).toBe(before);
      },
    );
    // Nor does someone added since: the rule stored with the request must name them too.
    await withPolicy(
      POLICY.replace('leads: [U0LEAD, U0LEAD2, S0LEADS]', 'leads: [U0LEAD, U0LEAD2, U0NEWLEAD, S0LEADS]'),
      async () => {
        expect(said(await desk.click('approve', id, 'U0NEWLEAD'))).toContain('when this request was made');
        expect(await desk.stateOf(id)).toBe('pending');
      },
    );
    await desk.click('approve', id, 'U0LEAD2');
    expect(await desk.stateOf(id)).toMatch(/succeeded|failed/);
    expect(resets()).toBe(before + 1);
  });

  it('refuses at once a reset of a pull zone the platform does not know, and names a known one on its card', async () => {
    const records = await bed.run('pullzone reset-key 999999 rotated');
    const reply = said(records);
    expect(reply).toContain(
      'No pull zone 999999 was found on the platform, so nobody was asked to approve anything. Check the id, or find it with /edge pullzones.',
    );
    expect(reply).not.toContain('Approval requested');
    expect(postsIn(records, 'C0APPROVALS')).toEqual([]);
    const stored = await bed.runtime.services.state.client.execute(
      "SELECT count(*) AS n FROM approvals WHERE target = '999999'",
    );
    expect(Number(stored.rows[0]?.n)).toBe(0);

    const zone = freshZone();
    const { id, card } = await requestReset(zone);
    expect(wordsOf(card)).toContain(`${zone} · zone-${zone} · zone-${zone}.b-cdn.net`);
    expect(said(await desk.click('cancel', id, 'U0YOU'))).toContain('cancelled');
  });

  it('refuses at once a request whose approver group holds nobody but the requester', async () => {
    const records = await bed.run('db tokens create --db solo-db', { userId: 'U0YOU' });
    const reply = said(records);
    expect(reply).toContain('only 0 approvers other than you are listed (counting the members of S0SOLO)');
    expect(reply).not.toContain('Approval requested');
    expect(postsIn(records).filter((post) => JSON.stringify(post).includes('solo-db'))).toEqual([]);
    const stored = await bed.runtime.services.state.client.execute(
      "SELECT count(*) AS n FROM approvals WHERE target = 'solo-db'",
    );
    expect(Number(stored.rows[0]?.n)).toBe(0);
  });

  it('lets the requester cancel from /edge approvals, and with /edge approvals cancel ID', async () => {
    const { id } = await requestReset(freshZone());
    const mine = answers(await bed.run('approvals', { userId: 'U0YOU' }));
    expect(mine.flatMap(buttonsOf).map((button) => button.actionId)).toContain(`approvals:cancel#${id}`);
    expect(await ask('approvals', 'U0LEAD')).not.toContain(`approvals:cancel#${id}`);
    await bed.click(
      { actionId: `approvals:cancel#${id}`, value: id },
      { userId: 'U0YOU', channelId: 'C0OPS' },
    );
    expect(await desk.stateOf(id)).toBe('cancelled');

    const { id: other } = await requestReset(freshZone());
    expect(await ask(`approvals cancel ${other}`, 'U0LEAD')).toContain('Only the requester');
    expect(await desk.stateOf(other)).toBe('pending');
    expect(await ask(`approvals cancel ${other}`, 'U0YOU')).toContain(`Request ${other} is cancelled`);
    expect(await desk.stateOf(other)).toBe('cancelled');
    // Audited under what it cancelled, as the Cancel button is, not under approvals.list.
    const typed = (
      await bed.runtime.services.audit.list({ limit: 50, filter: { approvalId: other } })
    ).filter((row) => row.userId === 'U0YOU' && row.outcome === 'typed');
    expect(typed).toHaveLength(1);
    expect(typed[0]).toMatchObject({
      operation: 'pullzone.reset-key',
      target: expect.stringMatching(/^\d+$/),
    });
    expect(await ask('approvals cancel nonsense', 'U0YOU')).toContain('is not a request id');
  });

  it('files a typed cancel that the policy denies under approvals.list, not in the request’s history', async () => {
    const { id } = await requestReset(freshZone());
    await withPolicy(
      APPROVALS_POLICY.replace(
        'grants:\n  - ops: "*"\n    roles: [everyone]',
        'grants:\n  - ops: [pullzone.reset-key]\n    roles: [everyone]',
      ),
      async () => {
        expect(await ask(`approvals cancel ${id}`, 'U0MALLORY')).toContain('approvals.list');
      },
    );
    const denied = (
      await bed.runtime.services.audit.list({ limit: 50, filter: { userId: 'U0MALLORY' } })
    ).filter((row) => row.outcome === 'denied');
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ operation: 'approvals.list', approvalId: null });
    expect(await desk.stateOf(id)).toBe('pending');
  });

  it('lists a request with its age, expiry and reason for approvers, and with Cancel for its requester', async () => {
    const { id } = await requestReset(freshZone());
    const forLead = await ask('approvals', 'U0LEAD');
    expect(forLead).toMatch(/When: asked \d+ s ago · expires in 30 min, \d\d:\d\d UTC/);
    expect(forLead).toContain('Reason: rotated after an incident');
    const mine = answers(await bed.run('approvals', { userId: 'U0YOU' }));
    const actions = mine.flatMap(buttonsOf).map((button) => button.actionId);
    expect(actions).toContain(`approvals:cancel#${id}`);
    expect(actions).not.toContain(`approvals:approve#${id}`);
  });

  it('/edge approvals ID shows the request whole: parameters, full digest and the timeline of its audit rows', async () => {
    const zone = freshZone();
    const { id } = await requestReset(zone);
    const digest = (await bed.runtime.services.approvals.peek(id))!.paramsDigest;
    await desk.reject(id, 'U0LEAD', 'not during the freeze');
    expect(await desk.stateOf(id)).toBe('rejected');
    const whole = answers(await bed.run(`approvals ${id}`, { userId: 'U0NOBODY' }));
    const shown = whole.map(wordsOf).join('\n');
    expect(shown).toContain(`Request ${id}`);
    expect(shown).toContain(`Reset the token-authentication key of pull zone ${zone}`);
    expect(fieldsOf(whole[0]!).get('Reason')).toBe('rotated after an incident');
    expect(shown).toContain(`parameters sha256 \`${digest}\``);
    const timeline = shown.slice(shown.indexOf('*Timeline*'));
    expect(timeline.indexOf('*approval-requested* · <@U0YOU>')).toBeGreaterThan(0);
    expect(timeline.indexOf('*rejected* · <@U0LEAD>')).toBeGreaterThan(
      timeline.indexOf('*approval-requested*'),
    );
    expect(timeline).toContain('reason: not during the freeze');
    expect(shown).not.toContain('approvals:approve');

    const unknown = await ask('approvals ap_0000000000000000', 'U0YOU');
    expect(unknown).toContain('There is no approval request ap_0000000000000000');
    expect(unknown).toContain('/edge approvals --all');
    expect(await ask('approvals nonsense', 'U0YOU')).toContain('is not a request id');
  });

  it('escalates at half the time to live: the reminder mentions the escalation role, whose member is refused before and accepted after', async () => {
    const escalating = POLICY.replace(
      '  solo: [S0SOLO, U0YOU]',
      '  solo: [S0SOLO, U0YOU]\n  oncall: [U0ONCALL]',
    ).replace(
      '      approvers: [leads]\n      required: 1',
      '      approvers: [leads]\n      required: 1\n      escalate_to: oncall',
    );
    expect(escalating).toContain('escalate_to: oncall');
    await withPolicy(escalating, async () => {
      const zone = freshZone();
      const { id, card } = await requestReset(zone);
      expect(wordsOf(card)).toMatch(/it escalates to oncall, whose members may approve from then on/);
      const before = resets();

      const early = said(await desk.click('approve', id, 'U0ONCALL'));
      expect(early).toMatch(/members of oncall may approve it only from \d\d:\d\d UTC/);
      expect(await desk.stateOf(id)).toBe('pending');
      expect(await ask('approvals', 'U0ONCALL')).not.toContain(`approvals:approve#${id}`);

      const ref = (await bed.runtime.services.approvals.peek(id))!.card!;
      bed.clock.advance(15 * 60_000);
      const since = bed.messenger.records.length;
      await bed.runtime.approvals.sweep(bed.messenger);
      const reminder = postsIn(bed.messenger.records.slice(since)).find((post) => post.threadTs === ref.ts);
      expect(wordsOf(reminder!.reply)).toContain(
        'Escalated to <@U0ONCALL> (oncall): you may approve or reject it from now on.',
      );
      expect(await ask('approvals', 'U0ONCALL')).toContain(`approvals:approve#${id}`);
      expect(await ask('approvals', 'U0NOBODY')).not.toContain(`approvals:approve#${id}`);

      const late = said(await desk.click('approve', id, 'U0ONCALL'));
      expect(late).toContain('You approved');
      // Accepted: it ran (the platform call was made) on the escalated approver's approval alone.
      const decided = await bed.runtime.services.approvals.peek(id);
      expect(decided?.approvals.map((vote) => vote.userId)).toEqual(['U0ONCALL']);
      expect(decided?.state).not.toBe('pending');
      expect(resets()).toBe(before + 1);
    });
  });

  it('lists pending requests with buttons for approvers only', async () => {
    const { id } = await requestReset(freshZone());
    const forLead = await ask('approvals', 'U0LEAD');
    expect(forLead).toContain(id);
    expect(forLead).toContain(`approvals:approve#${id}`);
    const forOthers = await ask('approvals', 'U0NOBODY');
    expect(forOthers).toContain(id);
    expect(forOthers).not.toContain(`approvals:approve#${id}`);
  });
});
