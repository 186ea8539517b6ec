import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel, webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { allPayloadText, type FakeSlack, startFakeSlack } from './fake-slack.js';
import { blockActions, slashCommand, textInput, viewSubmission } from './payloads.js';
import { postSigned, slackRequestTimestamp } from './signer.js';

const BOT_TOKEN = 'xoxb-test-bot-token-000';
const APP_TOKEN = 'xapp-1-test-app-token-000';
const SIGNING_SECRET = 'test-signing-secret-0000';
const fastRetries = { retries: 2, minTimeout: 0, maxTimeout: 1 };

let fake: FakeSlack;

beforeEach(async () => {
  fake = await startFakeSlack();
});

afterEach(async () => {
  await fake.close();
});

// Slack's ok:false answers carry [ERROR] messages that web-api logs; the tests expect them.
const silent = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  setLevel: () => {},
  getLevel: () => LogLevel.ERROR,
  setName: () => {},
};

function client(token = BOT_TOKEN) {
  return new webApi.WebClient(token, { slackApiUrl: fake.apiUrl, retryConfig: fastRetries, logger: silent });
}

describe('the Web API', () => {
  it('records a posted message with its token, decoded blocks and a timestamp', async () => {
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'hello' } }];
    const result = await client().chat.postMessage({ channel: 'C0OPS', text: 'hello', blocks });
    expect(result.ok).toBe(true);
    expect(result.channel).toBe('C0OPS');
    expect(result.ts).toMatch(/^\d+\.\d{6}$/);
    const [call] = fake.callsTo('chat.postMessage');
    expect(call?.token).toBe(BOT_TOKEN);
    expect(call?.args.blocks).toEqual(blocks);
    expect(call?.args.channel).toBe('C0OPS');
    expect(fake.message('C0OPS', result.ts!)?.text).toBe('hello');
  });

  it('applies chat.update and chat.delete to the stored message', async () => {
    const web = client();
    const posted = await web.chat.postMessage({ channel: 'C0OPS', text: 'pending' });
    await web.chat.update({ channel: 'C0OPS', ts: posted.ts!, text: 'approved' });
    expect(fake.message('C0OPS', posted.ts!)).toMatchObject({ text: 'approved', updates: 1, deleted: false });
    await web.chat.delete({ channel: 'C0OPS', ts: posted.ts! });
    expect(fake.message('C0OPS', posted.ts!)?.deleted).toBe(true);
  });

  it('refuses blocks Slack would refuse', async () => {
    const tooMany = Array.from({ length: 51 }, (_, i) => ({ type: 'divider', block_id: `b${i}` }));
    await expect(
      client().chat.postMessage({ channel: 'C0OPS', text: 'x', blocks: tooMany }),
    ).rejects.toMatchObject({
      data: { error: 'invalid_blocks' },
    });
    const duplicate = [
      { type: 'divider', block_id: 'same' },
      { type: 'divider', block_id: 'same' },
    ];
    await expect(
      client().chat.postMessage({ channel: 'C0OPS', text: 'x', blocks: duplicate }),
    ).rejects.toMatchObject({
      data: { error: 'invalid_blocks' },
    });
  });

  describe('tables', () => {
    const text = (t: string) => ({ type: 'raw_text', text: t });
    const table = (rows: unknown[][], extra: Record<string, unknown> = {}) => ({
      type: 'table',
      rows,
      ...extra,
    });
    const post = (blocks: unknown[]) =>
      client().chat.postMessage({ channel: 'C0OPS', text: 'x', blocks: blocks as never });

    it('takes a table of raw_text, raw_number and rich_text cells, 100 rows of 20 cells', async () => {
      const row = Array.from({ length: 20 }, (_, i) => text(`c${i}`));
      const rows: unknown[][] = [row, ...Array.from({ length: 98 }, () => row)];
      rows.push([
        { type: 'raw_number', value: 42, text: '42' },
        {
          type: 'rich_text',
          elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'r' }] }],
        },
      ]);
      const settings = Array.from({ length: 20 }, () => ({ align: 'right' }));
      await expect(post([table(rows, { column_settings: settings })])).resolves.toMatchObject({ ok: true });
    });

    it.each([
      ['101 rows', table(Array.from({ length: 101 }, () => [text('a')]))],
      ['21 cells in a row', table([Array.from({ length: 21 }, () => text('a'))])],
      [
        '21 column settings',
        table([[text('a')]], { column_settings: Array.from({ length: 21 }, () => ({})) }),
      ],
      ['a cell of another type', table([[{ type: 'mrkdwn', text: '*a*' }]])],
      ['an empty raw_text cell', table([[text('')]])],
    ])('refuses a table with %s as invalid_blocks', async (_what, block) => {
      await expect(post([block])).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
    });

    it('refuses a second table (or data_table) in one message as only_one_table_allowed', async () => {
      const one = table([[text('a')]]);
      await expect(post([one, one])).rejects.toMatchObject({ data: { error: 'only_one_table_allowed' } });
      const data = { type: 'data_table', caption: 'c', rows: [[text('h')], [text('a')]] };
      await expect(post([one, data])).rejects.toMatchObject({ data: { error: 'only_one_table_allowed' } });
      expect(fake.refusals.at(-1)?.error).toBe('only_one_table_allowed');
    });

    it('refuses every table when told to, as a workspace that takes none, and takes them again', async () => {
      fake.refuseTables();
      await expect(post([table([[text('a')]])])).rejects.toMatchObject({ data: { error: 'invalid_blocks' } });
      await expect(post([{ type: 'divider' }])).resolves.toMatchObject({ ok: true });
      fake.refuseTables('invalid_attachments');
      await expect(post([table([[text('a')]])])).rejects.toMatchObject({
        data: { error: 'invalid_attachments' },
      });
      fake.refuseTables(false);
      await expect(post([table([[text('a')]])])).resolves.toMatchObject({ ok: true });
    });
  });

  it('answers an injected error as ok:false, once, then works again', async () => {
    fake.fail('views.open', { error: 'expired_trigger_id' });
    const view = {
      type: 'modal' as const,
      title: { type: 'plain_text' as const, text: 'New video library' },
      blocks: [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text: 'x' } }],
    };
    await expect(client().views.open({ trigger_id: '1.2.abc', view })).rejects.toMatchObject({
      data: { ok: false, error: 'expired_trigger_id' },
    });
    const opened = await client().views.open({ trigger_id: '1.2.abc', view });
    expect(opened.view?.id).toMatch(/^V/);
    expect(fake.callsTo('views.open').map((call) => call.response.ok)).toEqual([false, true]);
  });

  it('rate-limits with Retry-After, and web-api retries after it', async () => {
    fake.fail('chat.postMessage', { status: 429, retryAfter: 1 });
    const started = performance.now();
    const result = await client().chat.postMessage({ channel: 'C0OPS', text: 'after the limit' });
    expect(result.ok).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.callsTo('chat.postMessage').map((call) => call.status)).toEqual([429, 200]);
  });

  it('answers user groups from setUserGroup and no_such_subteam otherwise', async () => {
    fake.setUserGroup('S0ONCALL', ['U0ALICE', 'U0BOB']);
    const members = await client().usergroups.users.list({ usergroup: 'S0ONCALL' });
    expect(members.users).toEqual(['U0ALICE', 'U0BOB']);
    await expect(client().usergroups.users.list({ usergroup: 'S0NONE' })).rejects.toMatchObject({
      data: { error: 'no_such_subteam' },
    });
  });

  it('opens one DM channel per user and answers users.info', async () => {
    const web = client();
    const first = await web.conversations.open({ users: 'U0YOU' });
    const again = await web.conversations.open({ users: 'U0YOU' });
    const other = await web.conversations.open({ users: 'U0LEAD' });
    expect(first.channel?.id).toMatch(/^D/);
    expect(again.channel?.id).toBe(first.channel?.id);
    expect(other.channel?.id).not.toBe(first.channel?.id);
    expect(fake.dmChannelFor('U0YOU')).toBe(first.channel?.id);
    fake.setUser('U0LEAD', { realName: 'Lead Person' });
    expect((await web.users.info({ user: 'U0LEAD' })).user?.real_name).toBe('Lead Person');
  });

  it('rejects calls without a token and app tokens on bot methods', async () => {
    await expect(client('').auth.test()).rejects.toMatchObject({ data: { error: 'not_authed' } });
    await expect(client(APP_TOKEN).chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toMatchObject({
      data: { error: 'not_allowed_token_type' },
    });
  });

  it('receives a files.uploadV2 upload in three steps and links it to the channel', async () => {
    const csv = 'timestamp,status\n2026-11-21T14:00:00Z,502\n';
    await client().filesUploadV2({
      channel_id: 'C0OPS',
      filename: 'origin-errors-1-2026-11-21.csv',
      title: 'Origin errors',
      initial_comment: '1 row',
      file: Buffer.from(csv),
    });
    const upload = await fake.waitForUpload();
    expect(upload).toMatchObject({
      filename: 'origin-errors-1-2026-11-21.csv',
      title: 'Origin errors',
      initialComment: '1 row',
      channelId: 'C0OPS',
      channels: ['C0OPS'],
      length: Buffer.byteLength(csv),
    });
    expect(upload.bytes.toString('utf8')).toBe(csv);
    expect(fake.calls.map((call) => call.method)).toEqual([
      'files.getUploadURLExternal',
      'files.completeUploadExternal',
    ]);
  });

  it("records a picture's alt text from alt_txt, Slack's argument, and ignores alt_text as Slack does", async () => {
    const web = client();
    const send = async (filename: string, args: Record<string, string>) => {
      const target = z
        .object({ upload_url: z.string(), file_id: z.string() })
        .parse(await web.apiCall('files.getUploadURLExternal', { filename, length: 3, ...args }));
      await fetch(target.upload_url, { method: 'POST', body: 'png' });
      await web.files.completeUploadExternal({
        files: [{ id: target.file_id, title: filename }],
        channel_id: 'C0OPS',
      });
      return fake.waitForUpload((file) => file.filename === filename);
    };
    expect((await send('chart.png', { alt_txt: 'Bar chart: errors per hour' })).altText).toBe(
      'Bar chart: errors per hour',
    );
    expect((await send('other.png', { alt_text: 'a name Slack does not read' })).altText).toBeUndefined();
  });

  it('collects every payload, uploads included, for secret scans, but not the credentials', async () => {
    const web = client();
    await web.chat.postMessage({
      channel: 'C0OPS',
      text: 'fingerprint …wxyz',
      blocks: [{ type: 'divider' }],
    });
    await web.filesUploadV2({ channel_id: 'C0OPS', filename: 'k.txt', content: 'new key SECRET-KEY-123456' });
    const text = allPayloadText(fake);
    expect(text).toContain('fingerprint …wxyz');
    expect(text).toContain('SECRET-KEY-123456');
    expect(text).not.toContain(BOT_TOKEN);
  });

  it('waits for a call that has not happened yet, and times out with what it saw', async () => {
    const waiting = fake.waitFor('chat.postEphemeral', (call) => call.args.user === 'U0YOU');
    await client().chat.postEphemeral({ channel: 'C0OPS', user: 'U0YOU', text: 'only you' });
    expect((await waiting).args.text).toBe('only you');
    await expect(fake.waitFor('views.push', undefined, 50)).rejects.toThrow(
      /views\.push.*chat\.postEphemeral/,
    );
  });

  it('forgets recordings and failures on reset', async () => {
    fake.fail('auth.test', { error: 'invalid_auth', times: 5 });
    await expect(client().auth.test()).rejects.toThrow();
    fake.reset();
    expect(fake.calls).toHaveLength(0);
    expect((await client().auth.test()).user_id).toBeTruthy();
  });
});

describe('a Bolt app over HTTP', () => {
  let app: App;
  let events: string;

  beforeEach(async () => {
    app = new App({
      token: BOT_TOKEN,
      signingSecret: SIGNING_SECRET,
      clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: fastRetries },
      logLevel: LogLevel.ERROR,
    });
    app.command('/edge', async ({ ack, respond, command }) => {
      await ack();
      await respond({ response_type: 'ephemeral', text: `you said ${command.text}` });
    });
    app.action('approve', async ({ ack, respond, body }) => {
      await ack();
      await respond({ text: `approved by ${body.user.id}`, replace_original: true });
    });
    app.view('library_create', async ({ ack, view }) => {
      await ack({
        response_action: 'errors',
        errors: { name: `got ${view.state.values.name?.value?.value}` },
      });
    });
    const server = (await app.start(0)) as Server;
    events = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });

  afterEach(async () => {
    await app.stop();
  });

  it('accepts a signed slash command and answers on the fake response_url', async () => {
    const request = slashCommand({ text: 'dns "my zone"', responseUrl: fake.responseUrl('cmd-1') });
    const response = await postSigned(events, request, { signingSecret: SIGNING_SECRET });
    expect(response.status).toBe(200);
    expect(response.elapsedMs).toBeGreaterThan(0);
    const posted = await fake.waitForResponse((post) => post.id === 'cmd-1');
    expect(posted.body).toMatchObject({ response_type: 'ephemeral', text: 'you said dns "my zone"' });
  });

  it('is refused with a wrong secret or a stale timestamp', async () => {
    const request = slashCommand({ text: 'help' });
    expect((await postSigned(events, request, { signingSecret: 'wrong-secret-000000' })).status).toBe(401);
    const stale = slackRequestTimestamp() - 6 * 60;
    expect(
      (await postSigned(events, request, { signingSecret: SIGNING_SECRET, timestamp: stale })).status,
    ).toBe(401);
  });

  it('routes a button click and a modal submission built from the payload builders', async () => {
    const click = blockActions({
      actionId: 'approve',
      value: 'req-1',
      responseUrl: fake.responseUrl('click'),
    });
    expect((await postSigned(events, click, { signingSecret: SIGNING_SECRET })).status).toBe(200);
    expect((await fake.waitForResponse((post) => post.id === 'click')).body.text).toBe('approved by U0YOU');

    const submit = viewSubmission({
      callbackId: 'library_create',
      values: { name: { value: textInput('clips') } },
    });
    const answered = await postSigned(events, submit, { signingSecret: SIGNING_SECRET });
    expect(JSON.parse(answered.body)).toEqual({ response_action: 'errors', errors: { name: 'got clips' } });
  });
});

describe('a Bolt app over Socket Mode', () => {
  it('connects through apps.connections.open and acks an envelope with its response', async () => {
    const app = new App({
      token: BOT_TOKEN,
      appToken: APP_TOKEN,
      socketMode: true,
      clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: fastRetries },
      installerOptions: { clientOptions: { slackApiUrl: fake.apiUrl } },
      logLevel: LogLevel.ERROR,
    });
    app.command('/edge', async ({ ack, command }) => {
      await ack({ text: `socket says ${command.text}` });
    });
    await app.start();
    try {
      expect(fake.callsTo('apps.connections.open')[0]?.token).toBe(APP_TOKEN);
      const ack = await fake.socket.sendRequest(slashCommand({ text: 'whoami' }));
      expect(ack.payload).toEqual({ text: 'socket says whoami' });
      expect(allPayloadText(fake)).toContain('socket says whoami');
    } finally {
      await app.stop();
    }
  });
});
