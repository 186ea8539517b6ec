import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_COMMAND_ACTION } from '../../src/reply/model.js';
import { commandAfterMention } from '../../src/slack/mention-text.js';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, SIGNING_SECRET, startHarness } from '../support/harness.js';
import { blockActions, DEFAULT_BOT_USER_ID, DEFAULT_TEAM_ID, newTs } from '../support/payloads.js';
import { postSigned } from '../support/signer.js';

/** Approvals rule without an approvals channel: the card goes where the change was asked for. */
const POLICY = `
roles:
  everyone: ["*"]
  leads: [U0LEAD]
grants:
  - ops: [dns.list, logs.origin, shield.export, pullzone.reset-key, approvals.list, library.create]
    roles: [everyone]
  - ops: [apikey.list]
    roles: [leads]
approvals:
  ttl: 30m
  rules:
    - ops: [pullzone.reset-key]
      approvers: [leads]
      required: 1
`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ policyYaml: POLICY, progress: { delayMs: 50, minGapMs: 200 } });
  // Pull zones of these tests' own, so no other request holds their lock.
  for (const zone of [410200, 410201, 410202]) h.sandbox.addPullZone(zone);
});
afterAll(async () => {
  await h?.close();
});

const inThread = (method: string, threadTs: string, also: (call: RecordedCall) => boolean = () => true) =>
  h.fake.waitFor(method, (call) => call.args.thread_ts === threadTs && also(call), 10_000);

const textOf = (call: RecordedCall) => `${String(call.args.text)} ${JSON.stringify(call.args.blocks ?? [])}`;

/** A thread in #ops to write in: the timestamp of its first message. */
const thread = () => newTs(h.clock());

describe('@edgeops mentions', () => {
  it('answers a mention in a thread inside that thread, privately for a listing', async () => {
    const threadTs = thread();
    const { ack } = await h.mention('dns', { threadTs });
    expect(ack.status).toBe(200);
    const answer = await inThread('chat.postEphemeral', threadTs);
    expect(answer.args).toMatchObject({ channel: 'C0OPS', user: 'U0YOU', thread_ts: threadTs });
    expect(textOf(answer)).toContain('DNS zones');
  });

  it('posts a channel answer in the thread it was asked in', async () => {
    const threadTs = thread();
    await h.mention('logs 308006 --last 1h', { threadTs });
    const answer = await inThread('chat.postMessage', threadTs, (call) => textOf(call).includes('308006'));
    expect(answer.args.channel).toBe('C0OPS');
    // Nothing of the answer lands at the top of the channel.
    const topLevel = h.fake.calls.filter(
      (call) =>
        call.method === 'chat.postMessage' &&
        call.args.channel === 'C0OPS' &&
        call.args.thread_ts === undefined &&
        textOf(call).includes('308006'),
    );
    expect(topLevel).toEqual([]);
    for (const upload of h.fake.uploads.filter((file) => file.filename.includes('308006')))
      expect(upload.threadTs).toBe(threadTs);
  });

  it('shows a long job’s progress, with its Cancel button, in the thread', async () => {
    const threadTs = thread();
    h.sandbox.faults.set('logs.origin', { delayMs: 1_500, times: 1 });
    await h.mention('logs 308006 yesterday', { threadTs });
    const progress = await inThread('chat.postMessage', threadTs, (call) =>
      textOf(call).includes('logs:cancel'),
    );
    expect(progress.args.channel).toBe('C0OPS');
  });

  it('starts a thread under a top-level mention', async () => {
    const { ts } = await h.mention('dns example');
    const answer = await inThread('chat.postEphemeral', ts);
    expect(answer.args.channel).toBe('C0OPS');
  });

  it('answers a mention with no command with the help list', async () => {
    const threadTs = thread();
    await h.mention(`<@${DEFAULT_BOT_USER_ID}>`, { raw: true, threadTs });
    const answer = await inThread('chat.postEphemeral', threadTs);
    expect(textOf(answer)).toContain('what you can run here');
  });

  it('reads the words after its own mention, whoever else is mentioned first', async () => {
    const threadTs = thread();
    await h.mention(`<@U0OTHER> can you check? <@${DEFAULT_BOT_USER_ID}> dnz`, { raw: true, threadTs });
    const answer = await inThread('chat.postEphemeral', threadTs);
    expect(textOf(answer)).toContain('did you mean "dns"');
  });

  it('tells a denied user why, privately, in the thread, and runs nothing', async () => {
    const threadTs = thread();
    const before = h.sandbox.requests.count('apikey.list');
    await h.mention('apikeys', { threadTs, userId: 'U0BOB' });
    const answer = await inThread('chat.postEphemeral', threadTs);
    expect(answer.args.user).toBe('U0BOB');
    expect(textOf(answer)).toMatch(/not allowed|may not|denied/i);
    expect(h.sandbox.requests.count('apikey.list')).toBe(before);
    const rows = await h.runtime.services.audit.list({ limit: 20 });
    expect(rows.find((row) => row.userId === 'U0BOB' && row.operation === 'apikey.list')).toMatchObject({
      outcome: 'denied',
      channelId: 'C0OPS',
    });
  });

  it('asks for the same approval as /edge for a gated change, with the card in the thread', async () => {
    const threadTs = thread();
    await h.mention('pullzone reset-key 410200 rotated after the incident', { threadTs });
    const note = await inThread('chat.postEphemeral', threadTs);
    expect(textOf(note)).toContain('Approval requested');
    const card = await inThread('chat.postMessage', threadTs, (call) =>
      textOf(call).includes('approvals:approve'),
    );
    expect(card.args.channel).toBe('C0OPS');
    const id = /ap_[0-9a-f]{16}/.exec(textOf(card))![0];
    const fromMention = await h.runtime.services.approvals.peek(id);
    expect(fromMention).toMatchObject({
      operation: 'pullzone.reset-key',
      target: '410200',
      requester: 'U0YOU',
      channelId: 'C0OPS',
      state: 'pending',
    });
    // The same words after /edge meet the same request: one open request per operation and target.
    const { responseUrl } = await h.command('pullzone reset-key 410200 rotated after the incident');
    const refused = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 5_000);
    expect(JSON.stringify(refused.body)).toContain(id);
  });

  it('posts the result of an approval clicked on a card in a thread in that thread', async () => {
    const threadTs = thread();
    await h.mention('pullzone reset-key 410202 rotated after the incident', { threadTs });
    const card = await inThread('chat.postMessage', threadTs, (call) =>
      textOf(call).includes('approvals:approve'),
    );
    const id = /ap_[0-9a-f]{16}/.exec(textOf(card))![0];
    const click = blockActions({
      actionId: 'approvals:approve',
      value: id,
      userId: 'U0LEAD',
      responseUrl: h.fake.responseUrl(),
      message: {
        type: 'message',
        user: DEFAULT_BOT_USER_ID,
        ts: String(card.response.ts),
        thread_ts: threadTs,
        text: '',
      },
    });
    await postSigned(h.eventsUrl, click, { signingSecret: SIGNING_SECRET });
    const done = await inThread('chat.postMessage', threadTs, (call) =>
      textOf(call).includes('Approved change'),
    );
    expect(done.args.channel).toBe('C0OPS');
    expect(textOf(done)).toContain(id);
  });

  it('runs a redelivered mention of a change once', async () => {
    const threadTs = thread();
    const text = 'pullzone reset-key 410201 retried delivery';
    const first = await h.mention(text, { threadTs });
    await inThread('chat.postMessage', threadTs, (call) => textOf(call).includes('approvals:approve'));
    const again = await h.mention(text, { threadTs, eventId: first.eventId, ts: first.ts, retryNum: 1 });
    expect(again.ack.status).toBe(200);
    await h.mention(text, { threadTs, eventId: first.eventId, ts: first.ts, retryNum: 2 });
    // A later mention in the same thread is answered, so the redeliveries have had their turn.
    await h.mention('approvals', { threadTs });
    await h.fake.waitFor(
      'chat.postEphemeral',
      (call) => call.args.thread_ts === threadTs && textOf(call).includes('Waiting for approval'),
      10_000,
    );
    const cards = h.fake.calls.filter(
      (call) =>
        call.method === 'chat.postMessage' &&
        call.args.thread_ts === threadTs &&
        textOf(call).includes('approvals:approve'),
    );
    expect(cards).toHaveLength(1);
    const notes = h.fake.calls.filter(
      (call) => call.method === 'chat.postEphemeral' && call.args.thread_ts === threadTs,
    );
    expect(notes.filter((call) => textOf(call).includes('already'))).toEqual([]);
  });

  it('ignores messages from bots, itself included, and edits', async () => {
    const threadTs = thread();
    await h.mention('dns', { threadTs, botId: 'B0ALERTS', userId: 'U0ALERTBOT' });
    await h.mention('dns', { threadTs, userId: DEFAULT_BOT_USER_ID });
    await h.mention('dns', { threadTs, edited: { user: 'U0YOU', ts: newTs(h.clock()) } });
    await h.mention('whoami', { threadTs });
    await inThread('chat.postEphemeral', threadTs);
    const answers = h.fake.calls.filter((call) => call.args.thread_ts === threadTs);
    expect(answers).toHaveLength(1);
    expect(textOf(answers[0]!)).not.toContain('DNS zones');
  });

  it('refuses, privately and running nothing, a mention from someone of another organisation in a shared channel', async () => {
    const threadTs = thread();
    const before = h.sandbox.requests.count('pullzone.resetSecurityKey');
    await h.mention('pullzone reset-key 308006 rotate', {
      threadTs,
      userId: 'U0OUTSIDER',
      userTeam: 'T0ELSEWHERE',
    });
    const refusal = await inThread('chat.postEphemeral', threadTs);
    expect(refusal.args.user).toBe('U0OUTSIDER');
    expect(textOf(refusal)).toContain('answers members of this workspace only');
    expect(h.fake.callsTo('chat.postMessage').filter((call) => call.args.thread_ts === threadTs)).toEqual([]);
    expect(h.sandbox.requests.count('pullzone.resetSecurityKey')).toBe(before);
    // A member of this workspace, whose user_team is this one, is answered as usual.
    const home = thread();
    await h.mention('whoami', { threadTs: home, userTeam: DEFAULT_TEAM_ID });
    expect(textOf(await inThread('chat.postEphemeral', home))).not.toContain(
      'members of this workspace only',
    );
  });

  it('answers a reply also sent to the channel, and a mention with a file, as people typed them', async () => {
    // Slack marks both with a subtype (thread_broadcast, file_share), unlike a plain message.
    const threadTs = thread();
    await h.mention('dns', { threadTs, subtype: 'thread_broadcast' });
    const broadcast = await inThread('chat.postEphemeral', threadTs);
    expect(textOf(broadcast)).toContain('DNS zones');
    const { ts } = await h.mention('whoami', { subtype: 'file_share' });
    const withFile = await inThread('chat.postEphemeral', ts);
    expect(withFile.args.user).toBe('U0YOU');
  });

  it('offers a form it cannot open behind a button, which opens it and keeps the thread', async () => {
    const threadTs = thread();
    await h.mention('shield export 5101', { threadTs });
    const offer = await inThread('chat.postEphemeral', threadTs);
    expect(textOf(offer)).toContain('Click *Open the form*');
    expect(textOf(offer)).toContain(`"action_id":"${RUN_COMMAND_ACTION}"`);
    expect(textOf(offer)).toContain('"value":"shield export 5101"');
    expect(h.fake.callsTo('views.open')).toHaveLength(0);
    // The click comes from the ephemeral message in the thread, with a trigger_id.
    const click = blockActions({
      actionId: RUN_COMMAND_ACTION,
      value: 'shield export 5101',
      responseUrl: h.fake.responseUrl(),
      isEphemeral: true,
      container: {
        type: 'message',
        message_ts: newTs(h.clock()),
        channel_id: 'C0OPS',
        is_ephemeral: true,
        thread_ts: threadTs,
      },
    });
    await postSigned(h.eventsUrl, click, { signingSecret: SIGNING_SECRET });
    const opened = await h.fake.waitFor('views.open', undefined, 10_000);
    const view = opened.args.view as { private_metadata: string; callback_id: string };
    expect(view.callback_id).toBe('shield.export:window-and-filters');
    expect(JSON.parse(view.private_metadata)).toMatchObject({ c: 'C0OPS', m: '5101', t: threadTs });
  });

  it('asks for /edge instead when the command is too long to ride on a button', async () => {
    const threadTs = thread();
    await h.mention(`shield export 5101 --query "${'q'.repeat(2_100)}"`, { threadTs });
    const offer = await inThread('chat.postEphemeral', threadTs);
    expect(textOf(offer)).toContain('Type the same command after');
    expect(textOf(offer)).not.toContain(RUN_COMMAND_ACTION);
  });

  it('answers by DM when the channel refuses the answer', async () => {
    h.fake.setChannelProblem('C0ARCHIVED', 'is_archived');
    try {
      await h.mention('dns', { channelId: 'C0ARCHIVED', threadTs: thread() });
      const dm = await h.fake.waitFor(
        'chat.postMessage',
        (call) => String(call.args.channel).startsWith('D') && textOf(call).includes('DNS zones'),
        10_000,
      );
      expect(textOf(dm)).toContain('that channel is archived');
    } finally {
      h.fake.setChannelProblem('C0ARCHIVED', undefined);
    }
  });
});

describe('the command line of a mention', () => {
  it('is what follows the bot’s own mention', () => {
    expect(commandAfterMention('<@U0EDGEBOT> logs 308006 --last 1h', 'U0EDGEBOT')).toBe(
      'logs 308006 --last 1h',
    );
    expect(commandAfterMention('hey <@U0EDGEBOT|edgeops>  dns', 'U0EDGEBOT')).toBe('dns');
    expect(commandAfterMention('<@U0A> and <@U0EDGEBOT> whoami', 'U0EDGEBOT')).toBe('whoami');
    expect(commandAfterMention('<@U0EDGEBOT>', 'U0EDGEBOT')).toBe('');
  });

  it('takes what follows the first mention when the bot’s id is not known', () => {
    expect(commandAfterMention('<@U0SOMEONE> dns', undefined)).toBe('dns');
  });

  it('undoes the links Slack made of typed host names and addresses', () => {
    expect(commandAfterMention('<@U0EDGEBOT> dns <http://example.com|example.com>', 'U0EDGEBOT')).toBe(
      'dns example.com',
    );
    expect(commandAfterMention('<@U0EDGEBOT> dns <https://example.com>', 'U0EDGEBOT')).toBe(
      'dns https://example.com',
    );
    // Escapes stay for the tokenizer, which undoes them as for /edge.
    expect(commandAfterMention('<@U0EDGEBOT> db query SELECT 1 &lt; 2', 'U0EDGEBOT')).toBe(
      'db query SELECT 1 &lt; 2',
    );
  });
});
