/**
 * The approval gate where only Slack shows it: a card Slack refuses, a DM Slack cannot open, user
 * groups read from Slack, and a message Slack says is gone. The gate itself (clicks, states, the
 * card's words, reminders, the key's DM) is tested through the engine in test/operations/approvals/.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
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

async function stateOf(id: string) {
  return (await h.runtime.services.approvals.peek(id))?.state;
}

async function requestReset(zone: number, userId = 'U0YOU') {
  const reply = await ephemeralReply(`pullzone reset-key ${zone} rotated after an incident`, userId);
  expect(reply).toContain('Approval requested');
  expect(reply).toContain('approvals:cancel');
  return requestIdOf(await cardFor(String(zone)));
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
