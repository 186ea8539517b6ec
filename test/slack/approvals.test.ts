import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/load.js';
import { trusted } from '../../src/reply/markup.js';
import { ephemeral } from '../../src/reply/model.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { memoryLogger } from '../state/temp-db.js';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { checkboxes, staticSelect, textInput } from '../support/payloads.js';
import { APPROVALS_POLICY } from '../support/policies.js';

const POLICY = APPROVALS_POLICY;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ policyYaml: POLICY });
  h.fake.setUserGroup('S0LEADS', ['U0GROUPLEAD']);
  h.fake.setUserGroup('S0SOLO', ['U0YOU']);
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.faults.clear();
});

const ZONES = [410112, 410113, 410114];
let nextZone = 0;
/** Each test asks about its own pull zone, on the platform: one open request per operation and target. */
const freshZone = () => {
  const zone = ZONES[nextZone++ % ZONES.length]! + 1_000_000 * Math.floor(nextZone / ZONES.length);
  h.sandbox.addPullZone(zone);
  return zone;
};

async function ephemeralReply(text: string, userId = 'U0YOU') {
  const { responseUrl } = await h.command(text, { userId });
  return JSON.stringify((await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body);
}

/** The newest card in the approvals channel that mentions `target`. */
async function cardFor(target: string): Promise<RecordedCall> {
  const matches = (call: RecordedCall) =>
    call.method === 'chat.postMessage' &&
    call.args.channel === 'C0APPROVALS' &&
    JSON.stringify(call.args.blocks).includes(target);
  await h.fake.waitFor('chat.postMessage', matches, 5_000);
  return h.fake.calls.filter(matches).at(-1)!;
}

/**
 * Two runtimes on one state database sweep at once, then again `laterMs` afterwards in the other
 * order: what is claimed once is posted once.
 */
async function sweepOnTwoRuntimes(laterMs: number): Promise<void> {
  const second = await createRuntime({
    config: h.config,
    platform: h.config.platform!,
    secrets: h.runtime.secrets,
    logger: memoryLogger(),
    now: h.clock,
  });
  try {
    await Promise.all([h.runtime.approvals.sweep(h.systemSurface), second.approvals.sweep(h.systemSurface)]);
    h.clock.advance(laterMs);
    await second.approvals.sweep(h.systemSurface);
    await h.runtime.approvals.sweep(h.systemSurface);
  } finally {
    await second.close();
  }
}

function requestIdOf(call: RecordedCall): string {
  const id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(call.args.blocks))?.[0];
  if (!id) throw new Error('no request id on the card');
  return id;
}

async function click(action: 'approve' | 'reject' | 'cancel', id: string, userId: string) {
  const responseUrl = h.fake.responseUrl();
  await h.click(`approvals:${action}`, id, { userId, responseUrl, channelId: 'C0APPROVALS' });
  return responseUrl;
}

async function clickAndRead(action: 'approve' | 'reject' | 'cancel', id: string, userId: string) {
  const responseUrl = await click(action, id, userId);
  return JSON.stringify((await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body);
}

/** Reject from the card: the click opens the reason form, and the rejection happens on its submit. */
async function reject(id: string, userId: string, reason = '') {
  const opened = h.fake.callsTo('views.open').length;
  await click('reject', id, userId);
  await h.fake.waitFor(
    'views.open',
    (call) =>
      h.fake.callsTo('views.open').indexOf(call) >= opened &&
      JSON.stringify(call.args).includes('approvals:reject') &&
      JSON.stringify(call.args).includes(id),
    5_000,
  );
  const ack = await h.submitView(
    'approvals:reject',
    JSON.stringify({ c: 'C0APPROVALS', m: id }),
    { reason: textInput(reason || null) },
    { userId },
  );
  expect(ack.status).toBe(200);
}

/** The last version of a request's card: the newest update, or the post when it was never updated. */
async function latestCard(id: string) {
  const versions = h.fake.calls.filter(
    (call) =>
      (call.method === 'chat.update' || call.method === 'chat.postMessage') &&
      call.args.channel === 'C0APPROVALS' &&
      !call.args.thread_ts &&
      JSON.stringify(call.args.blocks).includes(id),
  );
  return versions.at(-1)!;
}

const headerOf = (call: RecordedCall) =>
  (call.args.blocks as { type: string; text?: { text: string } }[]).find((block) => block.type === 'header')
    ?.text?.text;

/** The DMs the requester received since `since` calls, as JSON. */
const dmsTo = (userId: string, since = 0) =>
  h.fake.calls
    .slice(since)
    .filter((call) => call.method === 'chat.postMessage' && call.args.channel === h.fake.dmChannelFor(userId))
    .map((call) => JSON.stringify(call.args));

async function stateOf(id: string) {
  return (await h.runtime.services.approvals.peek(id))?.state;
}

/**
 * Asks for a key reset of a fresh zone while the state database refuses `event` (an SQLite
 * trigger event on the approvals table, e.g. `UPDATE OF card_ts`), as a failing disk would.
 */
async function requestWhileFailing(event: string): Promise<{ zone: number; reply: string }> {
  const zone = freshZone();
  const { client } = h.runtime.services.state;
  await client.execute(
    `CREATE TRIGGER writes_fail BEFORE ${event} ON approvals BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`,
  );
  try {
    return { zone, reply: await ephemeralReply(`pullzone reset-key ${zone} rotated`) };
  } finally {
    await client.execute('DROP TRIGGER writes_fail');
  }
}

async function requestReset(zone: number, userId = 'U0YOU') {
  const reply = await ephemeralReply(`pullzone reset-key ${zone} rotated after an incident`, userId);
  expect(reply).toContain('Approval requested');
  expect(reply).toContain('approvals:cancel');
  return requestIdOf(await cardFor(String(zone)));
}

const resets = () => h.sandbox.requests.count('pullzone.resetSecurityKey');

/** Writes the policy file and waits until the bot has reloaded it. */
async function usePolicy(yaml: string) {
  const parsed = parsePolicy(yaml, h.policyPath!);
  if (!parsed.ok) throw new Error(parsed.error);
  writeFileSync(h.policyPath!, yaml);
  await expect
    .poll(() => JSON.stringify(h.runtime.policies.current().roles), { timeout: 5_000 })
    .toBe(JSON.stringify(parsed.policy.roles));
}

/** Runs `work` under another policy, then puts the file's policy back. */
async function withPolicy(yaml: string, work: () => Promise<void>) {
  await usePolicy(yaml);
  try {
    await work();
  } finally {
    await usePolicy(POLICY);
  }
}

describe('the approval gate through Slack', () => {
  it('cancels a request whose card could not be posted, with the reason audited, and tells the requester why', async () => {
    const zone = freshZone();
    // First in the file: no earlier test has a message still on its way to take this failure.
    h.fake.fail('chat.postMessage', { error: 'not_in_channel' });
    const reply = await ephemeralReply(`pullzone reset-key ${zone} rotated`);
    expect(reply).toContain(
      'I could not post the approval card in <#C0APPROVALS>: the bot is not in that channel. Invite it, then ask again.',
    );
    expect(reply).not.toContain('correlation id');
    const id = /ap_[0-9a-f]{16}/.exec(reply)![0];
    expect(await stateOf(id)).toBe('cancelled');
    const rows = (await h.runtime.services.audit.list({ limit: 50 })).filter((row) => row.approvalId === id);
    expect(rows[0]).toMatchObject({ outcome: 'cancelled' });
    expect(rows[0]?.detail).toContain('could not be posted in C0APPROVALS: the bot is not in that channel');
    // Nothing holds the pull zone: asking again works once the bot is invited.
    const again = await requestReset(zone);
    expect(again).not.toBe(id);
  });

  it('cancels a request whose posted card cannot be recorded, and takes the buttons off that card', async () => {
    // The card's place is written after it is posted: make exactly that write fail.
    const { zone, reply } = await requestWhileFailing('UPDATE OF card_ts');
    expect(reply).toContain(
      'The approval card in <#C0APPROVALS> was posted, but the state database could not record it. Ask again in a minute.',
    );
    const id = /ap_[0-9a-f]{16}/.exec(reply)![0];
    expect(await stateOf(id)).toBe('cancelled');
    const card = await cardFor(String(zone));
    const shown = h.fake.message(String(card.args.channel), String(card.response?.ts));
    expect(JSON.stringify(shown)).toContain(
      `Request ${id} is cancelled: the state database could not record it`,
    );
    expect(JSON.stringify(shown)).not.toContain('approvals:approve');
    const rows = (await h.runtime.services.audit.list({ limit: 50 })).filter((row) => row.approvalId === id);
    expect(rows[0]?.detail).toContain('could not be recorded in C0APPROVALS');
  });

  it('keeps a request open, and says so on its card and to its requester, when it can be neither recorded nor cancelled', async () => {
    // Every change to a request fails: the card's place, and the cancel that would follow.
    const { zone, reply } = await requestWhileFailing('UPDATE');
    const id = /ap_[0-9a-f]{16}/.exec(reply)![0];
    expect(reply).toContain('was posted, but the state database could not record it.');
    expect(reply).toContain(`could not be cancelled either, so it stays open until`);
    expect(reply).not.toContain('is cancelled');
    expect(await stateOf(id)).toBe('pending');
    const card = await cardFor(String(zone));
    const shown = JSON.stringify(h.fake.message(String(card.args.channel), String(card.response?.ts)));
    expect(shown).toContain(`Request ${id} could not be recorded on this card`);
    expect(shown).toContain(`/edge approvals ${id}`);
    expect(shown).not.toContain('approvals:approve');
    // Once the database answers, the requester can cancel it as the reply says.
    expect(await ephemeralReply(`approvals cancel ${id}`)).toContain(`Request ${id} is cancelled`);
  });

  it('tells the requester a request was decided as its card went up, and the card shows where it stands', async () => {
    const zone = freshZone();
    const { client } = h.runtime.services.state;
    // The card's place cannot be recorded, and in the moment the card is up an approver approves it.
    await client.execute(
      `CREATE TRIGGER card_fails BEFORE UPDATE OF card_ts ON approvals BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`,
    );
    let id = '';
    h.fake.hold('chat.postMessage', {
      when: (args) =>
        args.channel === 'C0APPROVALS' && JSON.stringify(args.blocks).includes(`pull zone ${zone}`),
      until: async (args) => {
        id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(args.blocks))![0];
        await click('approve', id, 'U0LEAD');
        await expect.poll(() => stateOf(id), { timeout: 5_000 }).not.toBe('pending');
      },
    });
    try {
      const reply = await ephemeralReply(`pullzone reset-key ${zone} rotated`);
      expect(reply).toContain(`Request ${id} was decided in the moment its card went up`);
      expect(reply).not.toContain('is cancelled');
      expect(reply).not.toContain('Approval requested');
      // Not cancelled under the approver: it ran, once.
      await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('succeeded');
      const card = await cardFor(String(zone));
      const shown = JSON.stringify(h.fake.message(String(card.args.channel), String(card.response?.ts)));
      expect(shown).not.toContain('approvals:approve');
      expect(shown).toContain(id);
    } finally {
      await client.execute('DROP TRIGGER card_fails');
    }
  });

  it('says it could not confirm a request is cancelled when the state database stops answering as its card goes up', async () => {
    const zone = freshZone();
    const { client } = h.runtime.services.state;
    // Once the card is up, the approvals table is gone: it can be neither recorded, nor
    // cancelled, nor read back.
    h.fake.hold('chat.postMessage', {
      when: (args) =>
        args.channel === 'C0APPROVALS' && JSON.stringify(args.blocks).includes(`pull zone ${zone}`),
      until: async () => {
        await client.execute('ALTER TABLE approvals RENAME TO approvals_away');
      },
    });
    let reply: string;
    try {
      reply = await ephemeralReply(`pullzone reset-key ${zone} rotated`);
    } finally {
      await client.execute('ALTER TABLE approvals_away RENAME TO approvals');
    }
    const id = /ap_[0-9a-f]{16}/.exec(reply)![0];
    expect(reply).toContain('was posted, but the state database could not record it.');
    expect(reply).toContain(`Whether request ${id} is cancelled could not be confirmed`);
    expect(reply).toContain(`/edge approvals ${id}`);
    expect(reply).not.toContain('is cancelled,');
    const card = await cardFor(String(zone));
    const shown = JSON.stringify(h.fake.message(String(card.args.channel), String(card.response?.ts)));
    expect(shown).toContain(`Request ${id} could not be recorded on this card`);
    expect(shown).toContain('It may still be open');
    expect(shown).not.toContain('approvals:approve');
    // It was never cancelled, and the reply said it might not be: it is still there to decide.
    expect(await stateOf(id)).toBe('pending');
    expect(await ephemeralReply(`approvals cancel ${id}`)).toContain(`Request ${id} is cancelled`);
  });

  it('posts a card with what will happen, the requester, reason, expiry and Approve/Reject', async () => {
    const zone = freshZone();
    await requestReset(zone);
    const card = await cardFor(String(zone));
    const text = JSON.stringify(card.args.blocks);
    expect(text).toContain(`Reset the token-authentication key of pull zone ${zone}`);
    expect(text).toContain('<@U0YOU>');
    expect(text).toContain('rotated after an incident');
    const expiry = new Date(h.clock() + 30 * 60_000).toISOString().slice(11, 16);
    expect(text).toContain(`asked 0 s ago · expires in 30 min, ${expiry} UTC`);
    expect(text).toContain('0 of 1');
    expect(text).toContain('"action_id":"approvals:approve"');
    expect(text).toContain('"style":"danger"');
  });

  it('refuses the requester approving their own request, and runs nothing', async () => {
    const id = await requestReset(freshZone());
    const before = resets();
    expect(await clickAndRead('approve', id, 'U0YOU')).toContain('You requested this');
    expect(await stateOf(id)).toBe('pending');
    expect(resets()).toBe(before);
  });

  it('refuses someone who is not an approver', async () => {
    const id = await requestReset(freshZone());
    const before = resets();
    expect(await clickAndRead('approve', id, 'U0RANDOM')).toContain('Only members of leads can approve');
    expect(await stateOf(id)).toBe('pending');
    expect(resets()).toBe(before);
  });

  it('refuses a click after expiry, and the sweep closes the request and updates its card', async () => {
    const id = await requestReset(freshZone());
    h.clock.advance(31 * 60_000);
    const before = resets();
    const since = h.fake.calls.length;
    expect(await clickAndRead('approve', id, 'U0LEAD')).toMatch(/expired/i);
    expect(resets()).toBe(before);
    await h.runtime.approvals.sweep(h.systemSurface);
    expect(await stateOf(id)).toBe('expired');
    // The late click closed it, so the requester hears it from there, and once.
    await expect
      .poll(() => dmsTo('U0YOU', since).filter((dm) => dm.includes(id) && dm.includes('expired unanswered')))
      .toHaveLength(1);
    const updates = h.fake
      .callsTo('chat.update')
      .filter((call) => JSON.stringify(call.args.blocks).includes(id));
    expect(JSON.stringify(updates.at(-1)?.args.blocks)).toContain('Expired');
  });

  it('a Reject closes the request, and a later Approve is told who decided', async () => {
    const id = await requestReset(freshZone());
    await reject(id, 'U0LEAD');
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('rejected');
    const before = resets();
    const late = await clickAndRead('approve', id, 'U0LEAD2');
    expect(late).toContain('rejected by <@U0LEAD>');
    expect(resets()).toBe(before);
  });

  it('an approval runs the reset once; the key goes only to the requester by DM', async () => {
    const zone = 308006;
    const id = await requestReset(zone);
    const before = resets();
    await click('approve', id, 'U0LEAD');
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('succeeded');
    expect(resets() - before).toBe(1);
    const key = h.sandbox.pullZoneSecurityKey(zone)!;
    expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
    const dm = await h.fake.waitFor(
      'chat.postMessage',
      (call) => JSON.stringify(call.args).includes(key),
      5_000,
    );
    expect(String(dm.args.channel)).toBe(h.fake.dmChannelFor('U0YOU'));
    // The card, the channel and the audit log show only its fingerprint.
    const elsewhere = h.fake.calls.filter((call) => call !== dm && JSON.stringify(call.args).includes(key));
    expect(elsewhere).toEqual([]);
    // The request's state moves first, and its audit row follows.
    const succeededRow = async () =>
      (await h.runtime.services.audit.list({ limit: 200 })).some(
        (row) => row.approvalId === id && row.outcome === 'succeeded',
      );
    await expect.poll(succeededRow, { timeout: 5_000 }).toBe(true);
    expect(JSON.stringify(await h.runtime.services.audit.list({ limit: 200 }))).not.toContain(key);
  });

  it('when the new key cannot be sent by DM, the channel is told so with what to do, and the key goes nowhere', async () => {
    // A zone the sandbox has, and whose earlier request has finished (fresh ids past the first round do not exist).
    const zone = 308006;
    const id = await requestReset(zone);
    const posts = new Set(h.fake.callsTo('chat.postMessage'));
    h.fake.fail('conversations.open', { error: 'user_disabled', times: 1 });
    await click('approve', id, 'U0LEAD');
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('succeeded');
    const result = await h.fake.waitFor(
      'chat.postMessage',
      (call) => !posts.has(call) && JSON.stringify(call.args).includes('could not be sent'),
      5_000,
    );
    const told = JSON.stringify(result.args);
    expect(told).toContain('could not be sent to <@U0YOU> by direct message');
    expect(told).toContain('ask for the change again');
    expect(told).toMatch(/correlation id c-[0-9a-f]{10}/);
    // Nothing claims it was sent: not the result, not the card, not the audit row.
    expect(told).not.toMatch(/went to the requester|sent to the requester by DM/);
    const ran = async () =>
      (await h.runtime.services.audit.list({ limit: 50, filter: { approvalId: id } })).find(
        (row) => row.outcome === 'succeeded',
      );
    await expect
      .poll(async () => (await ran())?.detail, { timeout: 5_000 })
      .toContain('could not be sent to the requester by direct message');
    const card = h.fake
      .callsTo('chat.update')
      .filter((call) => JSON.stringify(call.args.blocks).includes(id))
      .at(-1);
    expect(JSON.stringify(card?.args.blocks)).toContain('could not be sent to the requester');
    const key = h.sandbox.pullZoneSecurityKey(zone)!;
    expect(h.fake.calls.filter((call) => JSON.stringify(call.args).includes(key))).toEqual([]);
  });

  it('counts an approver in a Slack user group', async () => {
    const id = await requestReset(freshZone());
    await click('approve', id, 'U0GROUPLEAD');
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toMatch(/succeeded|failed/);
  });

  it('50 concurrent Approve clicks on one request make exactly one platform call', async () => {
    const id = await requestReset(freshZone());
    const before = resets();
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => click('approve', id, i % 2 ? 'U0LEAD' : 'U0LEAD2')),
    );
    await expect.poll(() => stateOf(id), { timeout: 10_000 }).toMatch(/succeeded|failed/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(resets() - before).toBe(1);
  });

  it('refuses a second request for the same pull zone, pointing at the first', async () => {
    const zone = freshZone();
    const id = await requestReset(zone);
    const second = await ephemeralReply(`pullzone reset-key ${zone} again`, 'U0OTHER');
    expect(second).toContain(id);
    expect(second).toContain('<@U0YOU>');
  });

  it('lets the requester cancel with the button on their note', async () => {
    const id = await requestReset(freshZone());
    expect(await clickAndRead('cancel', id, 'U0LEAD')).toMatch(/requester/);
    await clickAndRead('cancel', id, 'U0YOU');
    expect(await stateOf(id)).toBe('cancelled');
  });

  it('reports a failed execution (platform 500) on the card and to the requester, without retrying', async () => {
    const id = await requestReset(freshZone());
    h.sandbox.faults.set('pullzone.resetSecurityKey', { status: 500 });
    const before = resets();
    await click('approve', id, 'U0LEAD');
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('failed');
    expect(resets() - before).toBe(1);
    const dm = await h.fake.waitFor(
      'chat.postMessage',
      (call) => String(call.args.channel).startsWith('D') && JSON.stringify(call.args).includes('failed'),
      5_000,
    );
    expect(JSON.stringify(dm.args)).toContain('not retried');
    // The card and the DM are sent one after the other; under load the card may come second.
    await h.fake.waitFor(
      'chat.update',
      (call) =>
        JSON.stringify(call.args.blocks).includes(id) && JSON.stringify(call.args.blocks).includes('Failed'),
      5_000,
    );
  });

  it('a lead removed from the policy after the request was made can no longer approve it', async () => {
    const id = await requestReset(freshZone());
    const card = JSON.stringify((await cardFor(id)).args.blocks);
    expect(card).toContain('checked again at each click against the policy in force');
    const before = resets();
    await withPolicy(
      POLICY.replace('leads: [U0LEAD, U0LEAD2, S0LEADS]', 'leads: [U0LEAD, S0LEADS]'),
      async () => {
        const refused = await clickAndRead('approve', id, 'U0LEAD2');
        expect(refused).toContain('policy in force now');
        expect(await stateOf(id)).toBe('pending');
        expect(resets()).toBe(before);
      },
    );
    // Nor does someone added since: the rule stored with the request must name them too.
    await withPolicy(
      POLICY.replace('leads: [U0LEAD, U0LEAD2, S0LEADS]', 'leads: [U0LEAD, U0LEAD2, U0NEWLEAD, S0LEADS]'),
      async () => {
        expect(await clickAndRead('approve', id, 'U0NEWLEAD')).toContain('when this request was made');
        expect(await stateOf(id)).toBe('pending');
      },
    );
    await click('approve', id, 'U0LEAD2');
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toMatch(/succeeded|failed/);
    expect(resets()).toBe(before + 1);
  });

  it('refuses at once a reset of a pull zone the platform does not know, and names a known one on its card', async () => {
    const cards = () =>
      h.fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'C0APPROVALS').length;
    const before = cards();
    const reply = await ephemeralReply('pullzone reset-key 999999 rotated');
    expect(reply).toContain(
      'No pull zone 999999 was found on the platform, so nobody was asked to approve anything. Check the id, or find it with /edge pullzones.',
    );
    expect(reply).not.toContain('Approval requested');
    expect(cards()).toBe(before);
    const stored = await h.runtime.services.state.client.execute(
      "SELECT count(*) AS n FROM approvals WHERE target = '999999'",
    );
    expect(Number(stored.rows[0]?.n)).toBe(0);

    const zone = freshZone();
    const id = await requestReset(zone);
    expect(JSON.stringify((await cardFor(String(zone))).args.blocks)).toContain(
      `${zone} · zone-${zone} · zone-${zone}.b-cdn.net`,
    );
    expect(await clickAndRead('cancel', id, 'U0YOU')).toContain('cancelled');
  });

  it('refuses at once a request whose approver group holds nobody but the requester', async () => {
    const reply = await ephemeralReply('db tokens create --db solo-db', 'U0YOU');
    expect(reply).toContain('only 0 approvers other than you are listed (counting the members of S0SOLO)');
    expect(reply).not.toContain('Approval requested');
    expect(
      h.fake.callsTo('chat.postMessage').filter((call) => JSON.stringify(call.args).includes('solo-db')),
    ).toEqual([]);
    const stored = await h.runtime.services.state.client.execute(
      "SELECT count(*) AS n FROM approvals WHERE target = 'solo-db'",
    );
    expect(Number(stored.rows[0]?.n)).toBe(0);
  });

  it('lets the requester cancel from /edge approvals, and with /edge approvals cancel ID', async () => {
    const id = await requestReset(freshZone());
    const mine = await ephemeralReply('approvals', 'U0YOU');
    expect(mine).toContain(`"action_id":"approvals:cancel#${id}"`);
    expect(await ephemeralReply('approvals', 'U0LEAD')).not.toContain(`approvals:cancel#${id}`);
    await h.click(`approvals:cancel#${id}`, id, { userId: 'U0YOU', channelId: 'C0OPS' });
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('cancelled');

    const other = await requestReset(freshZone());
    expect(await ephemeralReply(`approvals cancel ${other}`, 'U0LEAD')).toContain('Only the requester');
    expect(await stateOf(other)).toBe('pending');
    expect(await ephemeralReply(`approvals cancel ${other}`, 'U0YOU')).toContain(
      `Request ${other} is cancelled`,
    );
    expect(await stateOf(other)).toBe('cancelled');
    // Audited under what it cancelled, as the Cancel button is, not under approvals.list.
    // The row is written just after the answer is posted.
    const typedRows = async () =>
      (await h.runtime.services.audit.list({ limit: 50, filter: { approvalId: other } })).filter(
        (row) => row.userId === 'U0YOU' && row.outcome === 'typed',
      );
    await expect.poll(async () => (await typedRows()).length, { timeout: 5_000 }).toBe(1);
    const typed = await typedRows();
    expect(typed[0]).toMatchObject({
      operation: 'pullzone.reset-key',
      target: expect.stringMatching(/^\d+$/),
    });
    expect(await ephemeralReply('approvals cancel nonsense', 'U0YOU')).toContain('is not a request id');
  });

  it('files a typed cancel that the policy denies under approvals.list, not in the request’s history', async () => {
    const id = await requestReset(freshZone());
    await withPolicy(
      APPROVALS_POLICY.replace(
        'grants:\n  - ops: "*"\n    roles: [everyone]',
        'grants:\n  - ops: [pullzone.reset-key]\n    roles: [everyone]',
        // A role of its own, so that the reload can be seen (usePolicy waits for the roles).
      ).replace('roles:\n', 'roles:\n  reloaded: [U0NOBODY]\n'),
      async () => {
        expect(await ephemeralReply(`approvals cancel ${id}`, 'U0MALLORY')).toContain('approvals.list');
      },
    );
    const denied = async () =>
      (await h.runtime.services.audit.list({ limit: 50, filter: { userId: 'U0MALLORY' } })).filter(
        (row) => row.outcome === 'denied',
      );
    await expect.poll(async () => (await denied()).length, { timeout: 5_000 }).toBe(1);
    expect((await denied())[0]).toMatchObject({ operation: 'approvals.list', approvalId: null });
    expect(await stateOf(id)).toBe('pending');
  });

  it('lists a request with its age, expiry and reason for approvers, and with Cancel for its requester', async () => {
    const id = await requestReset(freshZone());
    const forLead = await ephemeralReply('approvals', 'U0LEAD');
    expect(forLead).toMatch(/When: asked \d+ s ago · expires in 30 min, \d\d:\d\d UTC/);
    expect(forLead).toContain('Reason: rotated after an incident');
    const mine = await ephemeralReply('approvals', 'U0YOU');
    expect(mine).toContain(`"action_id":"approvals:cancel#${id}"`);
    expect(mine).not.toContain(`approvals:approve#${id}`);
  });

  it('/edge approvals ID shows the request whole: parameters, full digest and the timeline of its audit rows', async () => {
    const zone = freshZone();
    const id = await requestReset(zone);
    const digest = (await h.runtime.services.approvals.peek(id))!.paramsDigest;
    await reject(id, 'U0LEAD', 'not during the freeze');
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('rejected');
    const shown = await ephemeralReply(`approvals ${id}`, 'U0NOBODY');
    expect(shown).toContain(`Request ${id}`);
    expect(shown).toContain(`Reset the token-authentication key of pull zone ${zone}`);
    expect(shown).toContain('*Reason*');
    expect(shown).toContain('rotated after an incident');
    expect(shown).toContain(`parameters sha256 \`${digest}\``);
    const timeline = shown.slice(shown.indexOf('*Timeline*'));
    expect(timeline.indexOf('*approval-requested* · <@U0YOU>')).toBeGreaterThan(0);
    expect(timeline.indexOf('*rejected* · <@U0LEAD>')).toBeGreaterThan(
      timeline.indexOf('*approval-requested*'),
    );
    expect(timeline).toContain('reason: not during the freeze');
    expect(shown).not.toContain('approvals:approve');

    const unknown = await ephemeralReply('approvals ap_0000000000000000', 'U0YOU');
    expect(unknown).toContain('There is no approval request ap_0000000000000000');
    expect(unknown).toContain('/edge approvals --all');
    expect(await ephemeralReply('approvals nonsense', 'U0YOU')).toContain('is not a request id');
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
      const id = await requestReset(zone);
      const card = await cardFor(String(zone));
      expect(JSON.stringify(card.args.blocks)).toMatch(
        /it escalates to oncall, whose members may approve from then on/,
      );
      const before = resets();

      const early = await clickAndRead('approve', id, 'U0ONCALL');
      expect(early).toMatch(/members of oncall may approve it only from \d\d:\d\d UTC/);
      expect(await stateOf(id)).toBe('pending');
      expect(await ephemeralReply('approvals', 'U0ONCALL')).not.toContain(`approvals:approve#${id}`);

      const ref = (await h.runtime.services.approvals.peek(id))!.card!;
      h.clock.advance(15 * 60_000);
      await h.runtime.approvals.sweep(h.systemSurface);
      const reminder = h.fake.callsTo('chat.postMessage').find((call) => call.args.thread_ts === ref.ts);
      expect(JSON.stringify(reminder?.args.blocks)).toContain(
        'Escalated to <@U0ONCALL> (oncall): you may approve or reject it from now on.',
      );
      expect(await ephemeralReply('approvals', 'U0ONCALL')).toContain(`approvals:approve#${id}`);
      expect(await ephemeralReply('approvals', 'U0NOBODY')).not.toContain(`approvals:approve#${id}`);

      const late = await clickAndRead('approve', id, 'U0ONCALL');
      expect(late).toContain('You approved');
      // Accepted: it ran (the platform call was made) on the escalated approver's approval alone.
      const decided = await h.runtime.services.approvals.peek(id);
      expect(decided?.approvals.map((vote) => vote.userId)).toEqual(['U0ONCALL']);
      expect(decided?.state).not.toBe('pending');
      expect(resets()).toBe(before + 1);
    });
  });

  it('lists pending requests with buttons for approvers only', async () => {
    const id = await requestReset(freshZone());
    const forLead = await ephemeralReply('approvals', 'U0LEAD');
    expect(forLead).toContain(id);
    expect(forLead).toContain(`approvals:approve#${id}`);
    const forOthers = await ephemeralReply('approvals', 'U0NOBODY');
    expect(forOthers).toContain(id);
    expect(forOthers).not.toContain(`approvals:approve#${id}`);
  });
});

describe('secrets leave no trail', () => {
  /** Resets pull zone 308006 through an approval; returns the DM that delivered the new key. */
  async function keyDm(): Promise<{
    call: RecordedCall;
    key: string;
    channel: string;
    ts: string;
    button: string;
  }> {
    const zone = 308006;
    const id = await requestReset(zone);
    await click('approve', id, 'U0LEAD');
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('succeeded');
    const key = h.sandbox.pullZoneSecurityKey(zone)!;
    const call = await h.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.args).includes(key), 5_000);
    const button = /"action_id":"approvals:forget","value":"(sm_[0-9a-f]{16})"/.exec(
      JSON.stringify(call.args.blocks),
    )?.[1];
    expect(JSON.stringify(call.args.blocks)).toContain('Saved it, delete this');
    if (!button) throw new Error('no delete button on the secret DM');
    return { call, key, channel: String(call.response.channel), ts: String(call.response.ts), button };
  }

  const remindersOf = (dm: { channel: string; ts: string }) =>
    h.fake
      .callsTo('chat.postMessage')
      .filter((call) => call.args.channel === dm.channel && call.args.thread_ts === dm.ts);

  it('"Saved it, delete this" on a DM whose record was never written deletes the DM clicked', async () => {
    // A DM as the bot sends a secret, with no row in the secret trail.
    const dm = await h.systemSurface.sendDirect(
      'U0YOU',
      ephemeral('secret', [{ type: 'text', text: trusted('The key: `not-really-secret`') }]),
    );
    if (!dm) throw new Error('the DM was not sent');
    const inDm = h.fake.responseUrl();
    await h.click('approvals:forget', 'sm_00000000000000ff', {
      userId: 'U0YOU',
      channelId: dm.channelId,
      messageTs: dm.ts,
      responseUrl: inDm,
    });
    const said = JSON.stringify((await h.fake.waitForResponse((p) => inDm.endsWith(p.id), 5_000)).body);
    expect(said).toContain('Deleted: the secret is gone from this conversation');
    expect(h.fake.message(dm.channelId, dm.ts)?.deleted).toBe(true);
    // Anywhere but a DM, an unknown message is left alone.
    const inChannel = h.fake.responseUrl();
    await h.click('approvals:forget', 'sm_00000000000000ff', {
      userId: 'U0YOU',
      channelId: 'C0OPS',
      responseUrl: inChannel,
    });
    expect(
      JSON.stringify((await h.fake.waitForResponse((p) => inChannel.endsWith(p.id), 5_000)).body),
    ).toContain('I have no record of that message');
  });

  it('"Saved it, delete this" deletes the DM that delivered the key, for its reader only; no reminder follows', async () => {
    const dm = await keyDm();
    const stranger = h.fake.responseUrl();
    await h.click('approvals:forget', dm.button, {
      userId: 'U0LEAD',
      channelId: dm.channel,
      responseUrl: stranger,
    });
    expect(
      JSON.stringify((await h.fake.waitForResponse((p) => stranger.endsWith(p.id), 5_000)).body),
    ).toContain('who received it, can delete that message');
    expect(h.fake.message(dm.channel, dm.ts)?.deleted).toBe(false);
    // The stranger's press is audited as refused, not as done (written just after the answer).
    await expect
      .poll(async () =>
        (await h.runtime.services.audit.list({ limit: 50, filter: { userId: 'U0LEAD' } })).some(
          (row) => row.outcome === 'refused' && (row.detail ?? '').includes('Only its reader can delete it'),
        ),
      )
      .toBe(true);

    const mine = h.fake.responseUrl();
    await h.click('approvals:forget', dm.button, {
      userId: 'U0YOU',
      channelId: dm.channel,
      responseUrl: mine,
    });
    const said = JSON.stringify((await h.fake.waitForResponse((p) => mine.endsWith(p.id), 5_000)).body);
    expect(said).toContain('Deleted: the secret is gone from this conversation');
    expect(said).not.toContain(dm.key);
    expect(h.fake.message(dm.channel, dm.ts)?.deleted).toBe(true);

    h.clock.advance(11 * 60_000);
    await h.runtime.approvals.sweep(h.systemSurface);
    expect(remindersOf(dm)).toEqual([]);

    const again = h.fake.responseUrl();
    await h.click('approvals:forget', dm.button, {
      userId: 'U0YOU',
      channelId: dm.channel,
      responseUrl: again,
    });
    expect(JSON.stringify((await h.fake.waitForResponse((p) => again.endsWith(p.id), 5_000)).body)).toContain(
      'already deleted',
    );
  });

  it('reminds the reader after 10 minutes in the DM’s thread, once across two sweeping runtimes, without the secret', async () => {
    const dm = await keyDm();
    h.clock.advance(10 * 60_000 - 1_000);
    await h.runtime.approvals.sweep(h.systemSurface);
    expect(remindersOf(dm)).toEqual([]);
    h.clock.advance(1_000);
    await sweepOnTwoRuntimes(10 * 60_000);
    expect(remindersOf(dm)).toHaveLength(1);
    const reminder = JSON.stringify(remindersOf(dm)[0]!.args);
    expect(reminder).toContain('press *Saved it, delete this*');
    expect(reminder).not.toContain(dm.key);
  });

  it('says plainly when Slack says the message is already gone', async () => {
    const dm = await keyDm();
    // Gone already, as when Slack removed it or another click won.
    h.fake.message(dm.channel, dm.ts)!.deleted = true;
    const url = h.fake.responseUrl();
    await h.click('approvals:forget', dm.button, {
      userId: 'U0YOU',
      channelId: dm.channel,
      responseUrl: url,
    });
    expect(JSON.stringify((await h.fake.waitForResponse((p) => url.endsWith(p.id), 5_000)).body)).toContain(
      'Slack says that message is already gone',
    );
    h.clock.advance(11 * 60_000);
    await h.runtime.approvals.sweep(h.systemSurface);
    expect(remindersOf(dm)).toEqual([]);
  });
});

describe('N-of-M with a typed confirmation (Shield bot detection)', () => {
  const form = {
    executionMode: staticSelect('1'),
    requestIntegrity: staticSelect('2'),
    ipAddress: staticSelect('1'),
    fingerprint: staticSelect('3'),
    aggression: staticSelect('2'),
    complex: checkboxes(['on']),
  };

  it('opens the form, then needs two distinct approvers who each type the zone id', async () => {
    const zone = 5101;
    await h.command(`shield bot-detection ${zone}`);
    const opened = await h.fake.waitFor(
      'views.open',
      (call) => JSON.stringify(call.args).includes('shield.bot-detection:submit'),
      5_000,
    );
    const metadata = String((opened.args.view as { private_metadata: string }).private_metadata);
    const ack = await h.submitView('shield.bot-detection:submit', metadata, form);
    expect(ack.status).toBe(200);
    const id = requestIdOf(await cardFor('Update bot detection of Shield zone 5101'));

    // Approve opens the confirmation form; a wrong id is refused on the field.
    await click('approve', id, 'U0SHA');
    await h.fake.waitFor(
      'views.open',
      (call) => JSON.stringify(call.args).includes('approvals:confirm'),
      5_000,
    );
    const wrong = await h.submitView(
      'approvals:confirm',
      JSON.stringify({ c: 'C0APPROVALS', m: id }),
      { confirmation: textInput('5102') },
      { userId: 'U0SHA' },
    );
    expect(JSON.stringify(wrong.body)).toContain('"response_action":"errors"');
    expect(await stateOf(id)).toBe('pending');

    await h.submitView(
      'approvals:confirm',
      JSON.stringify({ c: 'C0APPROVALS', m: id }),
      { confirmation: textInput('5101') },
      { userId: 'U0SHA' },
    );
    await expect
      .poll(async () => (await h.runtime.services.approvals.peek(id))?.approvals.length, { timeout: 5_000 })
      .toBe(1);
    expect(await stateOf(id)).toBe('pending');

    // The same approver again does not count twice.
    await h.submitView(
      'approvals:confirm',
      JSON.stringify({ c: 'C0APPROVALS', m: id }),
      { confirmation: textInput('5101') },
      { userId: 'U0SHA' },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await stateOf(id)).toBe('pending');

    await h.submitView(
      'approvals:confirm',
      JSON.stringify({ c: 'C0APPROVALS', m: id }),
      { confirmation: textInput('5101') },
      { userId: 'U0SHB' },
    );
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('succeeded');
    expect(h.sandbox.botDetection(zone)).toMatchObject({
      executionMode: 1,
      browserFingerprint: { sensitivity: 3, complexEnabled: true },
    });
  });

  /** The value a form field starts with, from the view Slack was asked to open. */
  function initialOf(view: unknown, actionId: string): unknown {
    const blocks = (view as { blocks: { element?: { action_id?: string } & Record<string, unknown> }[] })
      .blocks;
    const element = blocks.find((block) => block.element?.action_id === actionId)?.element;
    const option = (element?.initial_option as { value?: string } | undefined)?.value;
    const options = (element?.initial_options as { value: string }[] | undefined)?.map((o) => o.value);
    return option ?? options ?? null;
  }

  async function openForm(zone: number) {
    const { triggerId } = await h.command(`shield bot-detection ${zone}`);
    const opened = await h.fake.waitFor('views.open', (call) => call.args.trigger_id === triggerId, 5_000);
    const view = opened.args.view as { private_metadata: string };
    return { view, metadata: String(view.private_metadata) };
  }

  it('starts the form from the zone’s current settings, and the card shows before → after with the changes marked', async () => {
    const zone = h.sandbox.ids.bigShieldZone;
    await h.runtime.services.platform.updateBotDetection({
      shieldZoneId: zone,
      executionMode: 1,
      requestIntegrity: { sensitivity: 3 },
      ipAddress: { sensitivity: 3 },
      browserFingerprint: { sensitivity: 2, aggression: 3, complexEnabled: true },
    });
    const { view, metadata } = await openForm(zone);
    expect(
      ['executionMode', 'requestIntegrity', 'ipAddress', 'fingerprint', 'aggression', 'complex'].map((id) =>
        initialOf(view, id),
      ),
    ).toEqual(['1', '3', '3', '2', '3', ['on']]);
    expect(JSON.stringify(view)).toContain('the form shows its current settings');
    // Weaken one check, keep the rest as they are.
    await h.submitView('shield.bot-detection:submit', metadata, {
      executionMode: staticSelect('1'),
      requestIntegrity: staticSelect('3'),
      ipAddress: staticSelect('1'),
      fingerprint: staticSelect('2'),
      aggression: staticSelect('3'),
      complex: checkboxes(['on']),
    });
    const card = JSON.stringify((await cardFor(`Update bot detection of Shield zone ${zone}`)).args.blocks);
    expect(card).toContain('*IP address (changed)*\\nHigh → Low');
    expect(card).toContain('*Execution mode*\\nChallenge (unchanged)');
    expect(card).toContain('*Complex fingerprinting*\\non (unchanged)');
    // The zone is named by the pull zone it guards, as the platform names it.
    expect(card).toContain(`${zone}, guarding pull zone 900001 · firehose`);
    expect(card).not.toContain('current settings unknown');
    const id = requestIdOf(await cardFor(`Update bot detection of Shield zone ${zone}`));
    await reject(id, 'U0SHA');
  });

  it('says in bold on the card that the current settings are unknown when they cannot be read', async () => {
    h.sandbox.faults.set('shield.botDetection.get', { status: 403 });
    const zone = h.sandbox.ids.shieldZone;
    const { view, metadata } = await openForm(zone);
    expect(JSON.stringify(view)).toContain('its current settings could not be read');
    await h.submitView('shield.bot-detection:submit', metadata, form);
    const card = await h.fake.waitFor(
      'chat.postMessage',
      (call) =>
        call.args.channel === 'C0APPROVALS' &&
        JSON.stringify(call.args.blocks).includes(`Shield zone ${zone}"`) &&
        JSON.stringify(call.args.blocks).includes('unknown'),
      5_000,
    );
    expect(JSON.stringify(card.args.blocks)).toContain(
      ':warning: *current settings unknown; these values replace them.*',
    );
    expect(JSON.stringify(card.args.blocks)).toContain('*Execution mode*\\nChallenge');
    await reject(requestIdOf(card), 'U0SHA');
  });

  it('refuses a Shield zone the platform does not know before its form opens', async () => {
    const forms = h.fake.callsTo('views.open').length;
    const reply = await ephemeralReply('shield bot-detection 4040404');
    expect(reply).toContain('No Shield zone 4040404 was found on the platform');
    expect(h.fake.callsTo('views.open').length).toBe(forms);
  });

  it('tells the approver whose approval ran the change that it failed, and why', async () => {
    // A zone on a plan without bot detection: the platform refuses the change when it runs.
    const zone = h.sandbox.ids.basicShieldZone;
    const { metadata } = await openForm(zone);
    await h.submitView('shield.bot-detection:submit', metadata, form);
    const id = requestIdOf(await cardFor(`Update bot detection of Shield zone ${zone}`));
    for (const user of ['U0SHA', 'U0SHB'])
      await h.submitView(
        'approvals:confirm',
        JSON.stringify({ c: 'C0APPROVALS', m: id }),
        { confirmation: textInput(String(zone)) },
        { userId: user },
      );
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('failed');
    const told = await h.fake.waitFor(
      'chat.postEphemeral',
      (call) => call.args.user === 'U0SHB' && JSON.stringify(call.args).includes(`Shield zone ${zone}`),
      5_000,
    );
    const text = JSON.stringify(told.args);
    expect(text).toContain('and it failed');
    expect(text).toContain('and it failed: Bot detection is not available on the plan of this Shield zone');
    expect(text).toContain('It was not retried.');
    expect(text).not.toContain('it has run');
  });

  it('shows the platform’s envelope error (success=false, errorKey) as a failure', async () => {
    await h.command('shield bot-detection 5102');
    const opened = await h.fake.waitFor(
      'views.open',
      (call) =>
        JSON.stringify(call.args).includes('"private_metadata":"{\\"c\\":\\"C0OPS\\",\\"m\\":\\"5102\\"}"'),
      5_000,
    );
    const metadata = String((opened.args.view as { private_metadata: string }).private_metadata);
    await h.submitView('shield.bot-detection:submit', metadata, form);
    const id = requestIdOf(await cardFor('Shield zone 5102'));
    for (const user of ['U0SHA', 'U0SHC'])
      await h.submitView(
        'approvals:confirm',
        JSON.stringify({ c: 'C0APPROVALS', m: id }),
        { confirmation: textInput('5102') },
        { userId: user },
      );
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('failed');
    const request = await h.runtime.services.approvals.peek(id);
    expect(request?.result?.detail).toContain('invalid_plan_type.bot_detection');
  });
});

describe('cards people notice, understand and finish', () => {
  const LEADS = '<@U0LEAD>, <@U0LEAD2> or <!subteam^S0LEADS> (leads), 1 of them';

  it('the card says what will happen in its header, names the approvers by mention, and keeps the operation id in its context', async () => {
    const zone = freshZone();
    const id = await requestReset(zone);
    const card = await cardFor(String(zone));
    expect(headerOf(card)).toBe(`Reset the token-authentication key of pull zone ${zone}`);
    const text = JSON.stringify(card.args.blocks);
    expect(text).toContain(`*Who may approve:* ${LEADS}`);
    expect(text).toContain(`pullzone.reset-key · request ${id}`);
    expect(text).not.toContain('Approval needed');
  });

  it('reminds the approvers in the card’s thread at half the time to live, once, with two runtimes sweeping one state database', async () => {
    const zone = freshZone();
    const id = await requestReset(zone);
    const card = (await h.runtime.services.approvals.peek(id))!.card!;
    const reminders = () =>
      h.fake.callsTo('chat.postMessage').filter((call) => call.args.thread_ts === card.ts);
    h.clock.advance(15 * 60_000 - 1_000);
    await h.runtime.approvals.sweep(h.systemSurface);
    expect(reminders()).toEqual([]);
    h.clock.advance(1_000);
    await sweepOnTwoRuntimes(60_000);
    expect(reminders()).toHaveLength(1);
    const reminder = reminders()[0]!;
    expect(reminder.args.channel).toBe(card.channel);
    const text = JSON.stringify(reminder.args.blocks);
    expect(text).toContain(`Reminder for ${LEADS}`);
    expect(text).toContain('expires in 15 min');
    expect(await stateOf(id)).toBe('pending');
    // The card is brought up to date with the reminder, without a new post that would notify again.
    const updated = await latestCard(id);
    expect(updated.method).toBe('chat.update');
    expect(JSON.stringify(updated.args.blocks)).toContain('asked 15 min ago · expires in 15 min');
  });

  it('Reject asks why; the reason goes on the card, to the requester by DM and into the audit row', async () => {
    const zone = freshZone();
    const id = await requestReset(zone);
    const since = h.fake.calls.length;
    await reject(id, 'U0LEAD', 'not during the freeze');
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('rejected');
    await expect.poll(async () => headerOf(await latestCard(id)), { timeout: 5_000 }).toBe('⛔ Rejected');
    expect(JSON.stringify((await latestCard(id)).args.blocks)).toContain(
      'Rejected by <@U0LEAD>: not during the freeze',
    );
    await expect
      .poll(() => dmsTo('U0YOU', since).join('\n'), { timeout: 5_000 })
      .toContain('<@U0LEAD> rejected your request: *Reset the token-authentication key of pull zone');
    expect(dmsTo('U0YOU', since).join('\n')).toContain('Reason: not during the freeze');
    const row = (await h.runtime.services.audit.list({ limit: 50 })).find(
      (r) => r.approvalId === id && r.outcome === 'rejected',
    );
    expect(row?.detail).toBe('rejected by U0LEAD; reason: not during the freeze');
  });

  it('clicks are audited under the request’s operation and target, so /edge audit --op shows who clicked what', async () => {
    const zone = freshZone();
    const id = await requestReset(zone);
    expect(await clickAndRead('approve', id, 'U0RANDOM')).toContain('Only members of leads can approve');
    await reject(id, 'U0LEAD', 'not now');
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('rejected');
    const rowsOf = async () =>
      (await h.runtime.services.audit.list({ limit: 100 })).filter((row) => row.approvalId === id);
    // The click's own row is written once its reply is out, after the request has changed.
    const clicks = async () =>
      (await rowsOf())
        .filter((row) => ['clicked', 'submitted', 'refused'].includes(row.outcome))
        .map((row) => [row.userId, row.operation, row.target, row.outcome])
        .sort();
    // A click the approver may not make is audited as refused, not as a click that was done.
    await expect.poll(clicks, { timeout: 5_000 }).toEqual([
      ['U0LEAD', 'pullzone.reset-key', String(zone), 'clicked'],
      ['U0LEAD', 'pullzone.reset-key', String(zone), 'submitted'],
      ['U0RANDOM', 'pullzone.reset-key', String(zone), 'refused'],
    ]);
    const refusal = (await rowsOf()).find((row) => row.outcome === 'refused');
    expect(refusal?.detail).toContain('Only members of leads can approve');
    expect((await rowsOf()).some((row) => row.operation === 'approvals.list')).toBe(false);
    const listed = await ephemeralReply(`audit --op pullzone.reset-key --target ${zone}`, 'U0LEAD');
    expect(listed).toContain('<@U0RANDOM>');
    expect(listed).toContain('*clicked*');
    expect(listed).toContain('*refused*');
    expect(listed).toContain('*submitted*');
    expect(listed).toContain('*rejected*');
  });

  it('Reject by someone who may not reject is refused without a form, and a forged submit is refused too', async () => {
    const id = await requestReset(freshZone());
    const forms = h.fake.callsTo('views.open').length;
    expect(await clickAndRead('reject', id, 'U0RANDOM')).toContain('Only members of leads can reject');
    expect(await clickAndRead('reject', id, 'U0YOU')).toContain('You requested this');
    expect(h.fake.callsTo('views.open').length).toBe(forms);
    const since = h.fake.calls.length;
    await h.submitView(
      'approvals:reject',
      JSON.stringify({ c: 'C0APPROVALS', m: id }),
      { reason: textInput('because I can') },
      { userId: 'U0RANDOM' },
    );
    await h.fake.waitFor(
      'chat.postEphemeral',
      (call) =>
        h.fake.calls.indexOf(call) >= since &&
        call.args.user === 'U0RANDOM' &&
        JSON.stringify(call.args).includes('Only members of leads can reject'),
      5_000,
    );
    expect(await stateOf(id)).toBe('pending');
    // A reason longer than 500 characters is refused on its field; the form stays open.
    const long = await h.submitView(
      'approvals:reject',
      JSON.stringify({ c: 'C0APPROVALS', m: id }),
      { reason: textInput('x'.repeat(501)) },
      { userId: 'U0LEAD' },
    );
    expect(JSON.stringify(long.body)).toContain('Keep the reason to 500 characters (it has 501)');
    expect(await stateOf(id)).toBe('pending');
    await reject(id, 'U0LEAD');
    await expect
      .poll(async () => JSON.stringify((await latestCard(id)).args.blocks), { timeout: 5_000 })
      .toContain('Rejected by <@U0LEAD>, no reason given.');
  });

  it('an approved and done request heads its card with the outcome and tells the requester, without the key', async () => {
    const zone = 308006;
    const id = await requestReset(zone);
    const since = h.fake.calls.length;
    await click('approve', id, 'U0LEAD');
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('succeeded');
    await expect
      .poll(async () => headerOf(await latestCard(id)), { timeout: 5_000 })
      .toBe(`✓ Key reset for pull zone ${zone}`);
    await expect
      .poll(() => dmsTo('U0YOU', since).filter((dm) => dm.includes('it ran')), { timeout: 5_000 })
      .toHaveLength(1);
    const told = dmsTo('U0YOU', since).find((dm) => dm.includes('it ran'))!;
    expect(told).toContain(`Key reset for pull zone ${zone}: your request was approved by <@U0LEAD>`);
    expect(told).not.toContain(h.sandbox.pullZoneSecurityKey(zone)!);
  });

  it('a failed request heads its card “✗ Failed” and tells the requester the error', async () => {
    const id = await requestReset(freshZone());
    h.sandbox.faults.set('pullzone.resetSecurityKey', { status: 500 });
    const since = h.fake.calls.length;
    await click('approve', id, 'U0LEAD');
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('failed');
    await expect.poll(async () => headerOf(await latestCard(id)), { timeout: 5_000 }).toBe('✗ Failed');
    const detail = (await h.runtime.services.approvals.peek(id))!.result!.detail;
    await expect
      .poll(() => dmsTo('U0YOU', since).join('\n'), { timeout: 5_000 })
      .toContain('It was not retried.');
    expect(dmsTo('U0YOU', since).join('\n')).toContain(detail.slice(0, 30));
  });

  it('an expired request heads its card “⏰ Expired unanswered” and tells the requester once', async () => {
    const id = await requestReset(freshZone());
    const since = h.fake.calls.length;
    h.clock.advance(31 * 60_000);
    await Promise.all([
      h.runtime.approvals.sweep(h.systemSurface),
      h.runtime.approvals.sweep(h.systemSurface),
    ]);
    await h.runtime.approvals.sweep(h.systemSurface);
    expect(await stateOf(id)).toBe('expired');
    expect(headerOf(await latestCard(id))).toBe('⏰ Expired unanswered');
    const told = dmsTo('U0YOU', since).filter((dm) => dm.includes(id) && dm.includes('expired unanswered'));
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('Nobody approved it within 30 min');
  });

  it('a cancelled request heads its card “✖ Cancelled”', async () => {
    const id = await requestReset(freshZone());
    await clickAndRead('cancel', id, 'U0YOU');
    await expect.poll(async () => headerOf(await latestCard(id)), { timeout: 5_000 }).toBe('✖ Cancelled');
    expect(JSON.stringify((await latestCard(id)).args.blocks)).toContain('Cancelled by <@U0YOU>');
  });
});
