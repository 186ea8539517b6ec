/**
 * Only members of the workspace edgeops is installed in act: a user of another organisation in a
 * channel shared with it (Slack Connect) is refused at every entry, runs nothing, is told so
 * where Slack allows it, and the refusal is audited. Through the real Bolt app with signed payloads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Placement, placeRequester, readRequester } from '../../src/slack/members-only.js';
import { validateModal } from '../support/block-kit.js';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import {
  appHomeOpened,
  appMention,
  blockActions,
  blockSuggestion,
  DEFAULT_CHANNEL_ID,
  DEFAULT_TEAM_ID,
  datetimePicker,
  messageShortcut,
  slashCommand,
  viewSubmission,
} from '../support/payloads.js';

/** Everyone may run everything; a key reset waits for one approval from anyone at all ("*"). */
const POLICY = `
roles:
  everyone: ["*"]
grants:
  - ops: "*"
    roles: [everyone]
approvals:
  channel: C0APPROVALS
  rules:
    - ops: [pullzone.reset-key]
      approvers: [everyone]
      required: 1
`;

const OUTSIDER = 'U0OUTSIDER';
const ELSEWHERE = 'T0ELSEWHERE';
const REFUSAL = 'answers members of this workspace only';

const text = (call: RecordedCall) => JSON.stringify(call.args.blocks ?? call.args.text ?? '');

/** The denied row a refusal of `userId` leaves, once it is written. */
async function deniedRow(h: Harness, userId: string, operation: string) {
  let row: Awaited<ReturnType<typeof h.runtime.services.audit.list>>[number] | undefined;
  await expect
    .poll(async () => {
      const rows = await h.runtime.services.audit.list({ limit: 50, filter: { userId } });
      row = rows.find((candidate) => candidate.operation === operation && candidate.outcome === 'denied');
      return row !== undefined;
    })
    .toBe(true);
  expect(row!.detail).toContain('another organisation');
  return row!;
}

/** What the refused user was told through the response_url the request carried. */
async function answerAt(h: Harness, responseUrl: string): Promise<string> {
  const post = await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000);
  expect(post.body).toMatchObject({ response_type: 'ephemeral' });
  return JSON.stringify(post.body);
}

describe('on a workspace of its own', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ policyYaml: POLICY });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('an outsider’s Stop and Snooze on a watch change nothing, and they are told why', async () => {
    const zone = 780_001;
    h.sandbox.knobs.setLogDay(zone, 0);
    const channelId = 'C0SHAREDW';
    await h.command(`watch logs ${zone} --alert 2/1m`, { channelId });
    const posted = await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === channelId && text(call).includes('Watching origin errors'),
    );
    const id = /wa_[0-9a-f]{12}/.exec(text(posted))![0];
    const watch = async () =>
      (
        await h.runtime.services.state.client.execute({
          sql: 'SELECT state, snoozed_until, message_ts FROM watches WHERE id = ?',
          args: [id],
        })
      ).rows[0];
    await expect.poll(async () => (await watch())?.message_ts).toBe(String(posted.response.ts));
    const platformCalls = h.sandbox.requests.count();
    const updates = h.fake.message(channelId, String(posted.response.ts))?.updates;
    for (const action of ['watch.logs:stop', 'watch.logs:snooze']) {
      const responseUrl = h.fake.responseUrl();
      await h.click(action, id, {
        channelId,
        userId: OUTSIDER,
        teamId: ELSEWHERE,
        responseUrl,
        messageTs: String(posted.response.ts),
      });
      expect(await answerAt(h, responseUrl)).toContain(REFUSAL);
    }
    const row = await deniedRow(h, OUTSIDER, 'block_actions');
    expect(row).toMatchObject({ channelId, target: id });
    expect(await watch()).toMatchObject({ state: 'running', snoozed_until: null });
    expect(h.fake.message(channelId, String(posted.response.ts))?.updates).toBe(updates);
    expect(h.sandbox.requests.count()).toBe(platformCalls);
  });

  it('an outsider’s Approve, where anyone may approve, records nothing and runs nothing', async () => {
    const zone = 410_301;
    h.sandbox.addPullZone(zone);
    await h.command(`pullzone reset-key ${zone} rotated after the incident`);
    const card = await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === 'C0APPROVALS' && text(call).includes(String(zone)),
    );
    const id = /ap_[0-9a-f]{16}/.exec(text(card))![0];
    const platformCalls = h.sandbox.requests.count();
    const responseUrl = h.fake.responseUrl();
    await h.click('approvals:approve', id, {
      userId: OUTSIDER,
      teamId: ELSEWHERE,
      channelId: 'C0APPROVALS',
      responseUrl,
      messageTs: String(card.response.ts),
    });
    expect(await answerAt(h, responseUrl)).toContain(REFUSAL);
    expect(await deniedRow(h, OUTSIDER, 'block_actions')).toMatchObject({ target: id });
    expect(await h.runtime.services.approvals.peek(id)).toMatchObject({ state: 'pending', approvals: [] });
    expect(h.sandbox.requests.count()).toBe(platformCalls);
    // The same click from a member of this workspace is what the rule allows: it runs.
    await h.click('approvals:approve', id, {
      userId: 'U0MEMBER',
      channelId: 'C0APPROVALS',
      messageTs: String(card.response.ts),
    });
    await expect.poll(() => h.sandbox.requests.count('pullzone.resetSecurityKey')).toBe(1);
  });

  it('an outsider’s form submission runs nothing: the form is replaced by the refusal', async () => {
    const platformCalls = h.sandbox.requests.count();
    const uploads = h.fake.uploads.length;
    const now = Math.floor(h.clock() / 1000);
    const ack = await h.submitView(
      'shield.export:window-and-filters',
      JSON.stringify({ c: DEFAULT_CHANNEL_ID, m: '5101' }),
      { from: datetimePicker(now - 1800), to: datetimePicker(now) },
      { userId: OUTSIDER, teamId: ELSEWHERE },
    );
    expect(ack.status).toBe(200);
    expect(ack.body).toMatchObject({ response_action: 'update', view: { type: 'modal' } });
    const view = (ack.body as { view: { submit?: unknown } }).view;
    expect(JSON.stringify(view)).toContain(REFUSAL);
    expect(view.submit).toBeUndefined();
    expect(validateModal(view)).toEqual([]);
    await deniedRow(h, OUTSIDER, 'view_submission');
    expect(h.sandbox.requests.count()).toBe(platformCalls);
    expect(h.fake.uploads).toHaveLength(uploads);
  });

  it('an outsider’s zone picker offers nothing and asks the platform nothing', async () => {
    const platformCalls = h.sandbox.requests.count();
    const answer = await h.suggest('pick-zone:pullzone', '', { userId: OUTSIDER, teamId: ELSEWHERE });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ options: [] });
    await deniedRow(h, OUTSIDER, 'block_suggestion');
    expect(h.sandbox.requests.count()).toBe(platformCalls);
  });

  it('an outsider’s /edge runs nothing and tells them why, privately', async () => {
    const platformCalls = h.sandbox.requests.count();
    const { ack, responseUrl } = await h.command('dns', { userId: OUTSIDER, teamId: ELSEWHERE });
    expect(ack.status).toBe(200);
    const answer = await answerAt(h, responseUrl);
    expect(answer).toContain(REFUSAL);
    expect(answer).not.toContain('DNS zones');
    const row = await deniedRow(h, OUTSIDER, 'slash_command');
    expect(row.params).toMatchObject({ command: '/edge', text: 'dns', team: ELSEWHERE });
    expect(h.sandbox.requests.count()).toBe(platformCalls);
  });

  it('an outsider’s message shortcut opens no form', async () => {
    const opened = h.fake.callsTo('views.open').length;
    const responseUrl = h.fake.responseUrl();
    await h.shortcut({
      callbackId: 'investigate',
      text: 'pull zone 308006 is failing',
      userId: 'U0OUTSIDER2',
      teamId: ELSEWHERE,
      responseUrl,
    });
    expect(await answerAt(h, responseUrl)).toContain(REFUSAL);
    await deniedRow(h, 'U0OUTSIDER2', 'message_action');
    expect(h.fake.callsTo('views.open')).toHaveLength(opened);
  });
});

describe('on Enterprise Grid', () => {
  const ORG = 'E0EDGEORG';
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ policyYaml: POLICY, workspace: { enterpriseId: ORG } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('serves members of the org’s other workspaces, and refuses another org’s', async () => {
    const sibling = await h.command('dns', { userId: 'U0SIBLING', teamId: 'T0SIBLING', enterpriseId: ORG });
    expect(await answerAt(h, sibling.responseUrl)).toContain('DNS zones');
    // In a channel shared within the org only, a mention from another of its workspaces runs.
    const threadTs = '1767225600.000100';
    await h.mention('whoami', { userId: 'U0SIBLING', userTeam: 'T0SIBLING', enterpriseId: ORG, threadTs });
    const whoami = await h.fake.waitFor('chat.postEphemeral', (call) => call.args.thread_ts === threadTs);
    expect(text(whoami)).not.toContain(REFUSAL);

    const outsider = await h.command('dns', {
      userId: OUTSIDER,
      teamId: ELSEWHERE,
      enterpriseId: 'E0OTHERORG',
    });
    expect(await answerAt(h, outsider.responseUrl)).toContain(REFUSAL);
    await deniedRow(h, OUTSIDER, 'slash_command');
    // In a Slack Connect channel, the envelope names the home org whoever wrote: the author's team decides.
    const shared = '1767225600.000200';
    await h.mention('dns', {
      userId: OUTSIDER,
      userTeam: ELSEWHERE,
      enterpriseId: ORG,
      extShared: true,
      threadTs: shared,
    });
    const refusal = await h.fake.waitFor('chat.postEphemeral', (call) => call.args.thread_ts === shared);
    expect(refusal.args.user).toBe(OUTSIDER);
    expect(text(refusal)).toContain(REFUSAL);
    await deniedRow(h, OUTSIDER, 'app_mention');
  });
});

describe('placing a request', () => {
  const home = { teamId: DEFAULT_TEAM_ID };
  const grid = { teamId: DEFAULT_TEAM_ID, enterpriseId: 'E0EDGEORG' };
  const place = (body: unknown, where: { teamId?: string; enterpriseId?: string } | undefined) =>
    placeRequester(readRequester(body)!, where);
  const member: Placement = { member: true };
  const outsider: Placement = { member: false, why: 'another organisation' };
  const notNamed: Placement = { member: false, why: 'not named' };

  it('reads a slash command’s team_id and enterprise_id', () => {
    expect(place(slashCommand().payload, home)).toEqual(member);
    expect(place(slashCommand({ teamId: ELSEWHERE }).payload, home)).toEqual(outsider);
    expect(place(slashCommand({ teamId: 'T0SIB', enterpriseId: 'E0EDGEORG' }).payload, grid)).toEqual(member);
    expect(place(slashCommand({ teamId: 'T0SIB', enterpriseId: 'E0OTHER' }).payload, grid)).toEqual(outsider);
  });

  it('reads an interaction’s user.team_id, which on Grid is the org’s id', () => {
    expect(place(blockActions({ actionId: 'a:b' }).payload, home)).toEqual(member);
    expect(place(blockActions({ actionId: 'a:b', teamId: ELSEWHERE }).payload, home)).toEqual(outsider);
    expect(place(blockActions({ actionId: 'a:b', teamId: 'E0EDGEORG' }).payload, grid)).toEqual(member);
    expect(place(blockActions({ actionId: 'a:b', teamId: 'E0EDGEORG' }).payload, home)).toEqual(outsider);
    const suggestion = blockSuggestion({ blockId: 'zone', actionId: 'pick', value: '', teamId: ELSEWHERE });
    expect(place(suggestion.payload, home)).toEqual(outsider);
    expect(place(viewSubmission({ callbackId: 'x:y', teamId: ELSEWHERE }).payload, home)).toEqual(outsider);
    expect(place(messageShortcut({ callbackId: 'x', text: '', teamId: ELSEWHERE }).payload, home)).toEqual(
      outsider,
    );
    // Without user.team_id (Slack's message_action), the team it was used in stands in;
    // a payload that names neither cannot be placed.
    const unnamed = blockActions({ actionId: 'a:b' }).payload;
    expect(place({ ...unnamed, user: { id: 'U0X' } }, home)).toEqual(member);
    expect(place({ ...unnamed, user: { id: 'U0X' }, team: { id: ELSEWHERE } }, home)).toEqual(outsider);
    expect(place({ ...unnamed, user: { id: 'U0X' }, team: null }, home)).toEqual(notNamed);
  });

  it('records for a menu pick the action and target of the option picked, not the menu’s', () => {
    const body = blockActions({
      actionId: 'edge:menu',
      teamId: ELSEWHERE,
      actions: [
        {
          type: 'static_select',
          block_id: 'menu',
          action_id: 'edge:menu',
          selected_option: {
            text: { type: 'plain_text', text: 'Logs today' },
            value: 'edge:run logs 308006 today',
          },
          action_ts: '1700000000.000001',
        },
      ],
    }).payload;
    expect(readRequester(body)).toMatchObject({
      asked: { action: 'edge:run' },
      target: 'logs 308006 today',
    });
  });

  it('reads an event’s user_team, and the channel being shared outside when it names none', () => {
    expect(place(appMention({ text: 'hi' }).payload, home)).toEqual(member);
    expect(place(appMention({ text: 'hi', userTeam: ELSEWHERE, extShared: true }).payload, home)).toEqual(
      outsider,
    );
    expect(place(appMention({ text: 'hi', userTeam: 'T0SIB', extShared: false }).payload, grid)).toEqual(
      member,
    );
    expect(place(appMention({ text: 'hi', userTeam: 'T0SIB', extShared: true }).payload, grid)).toEqual(
      outsider,
    );
    expect(place(appHomeOpened().payload, home)).toEqual(member);
    const shared = appHomeOpened().payload;
    expect(place({ ...shared, is_ext_shared_channel: true }, home)).toEqual(notNamed);
    // An event no person caused is none of this check's business.
    expect(readRequester({ ...shared, event: { type: 'app_home_opened' } })).toBeUndefined();
  });

  it('refuses everyone until Slack has said which workspace is home', () => {
    expect(place(slashCommand().payload, undefined)).toEqual({ member: false, why: 'home not known' });
    expect(place(slashCommand().payload, {})).toEqual({ member: false, why: 'home not known' });
  });

  it('refuses a body it cannot read', () => {
    expect(place({ type: 'block_actions' }, home)).toEqual(notNamed);
  });
});
