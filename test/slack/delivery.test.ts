/**
 * Every answer lands (issue: every answer lands, nothing leaks). Slack refuses payloads its
 * schemas accept, and channels the bot cannot post in; the user still gets the answer, as
 * plain text or by another way, and is told where it went. Files are never claimed and then
 * lost, and whatever Slack renders passes the secret registry and is escaped.
 */

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TABLES_REFUSED_FOR_MS } from '../../src/slack/tables.js';
import { renderedText } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { menuOptionsIn } from '../support/menus.js';
import { DEFAULT_USER_ID, datetimePicker } from '../support/payloads.js';

let h: Harness;
let scratch: string;
const previousTmp = process.env.TMPDIR;

beforeAll(async () => {
  // Temporary files of this file's runs only, so the no-leftover checks see nothing else.
  scratch = mkdtempSync(join(tmpdir(), 'edgeops-delivery-'));
  process.env.TMPDIR = scratch;
  h = await startHarness({ serviceDatabase: true, allowRefusals: true });
});
afterAll(async () => {
  await h?.close();
  if (previousTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmp;
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  h.fake.reset();
  h.sandbox.faults.clear();
});

let channel = 0;
/** Each test answers in a channel of its own, so messages are attributed without doubt. */
const freshChannel = () => `C0DL${++channel}`;
const dm = () => h.fake.dmChannelFor(DEFAULT_USER_ID);
const text = (value: unknown) => JSON.stringify(value);
const tempFiles = () => readdirSync(scratch).filter((name) => name.endsWith('.csv'));
/** A query whose answer carries its CSV: more rows than a table shows. */
const QUERY_WITH_FILE = 'db query SELECT o.id, p.id FROM orders o, orders p';

async function privateAnswer(command: string, channelId = freshChannel()) {
  const { responseUrl } = await h.command(command, { channelId });
  return (await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000)).body;
}

const buttons = (body: Record<string, unknown>) =>
  ((body.blocks as { type: string; elements?: { action_id: string; value: string }[] }[]) ?? [])
    .filter((block) => block.type === 'actions')
    .map((block) => block.elements ?? []);

describe("Slack's rules on every path", () => {
  it.each([
    ['dns --per-page 5 --page 2', 'dns:page'],
    ['apikeys --per-page 5 --page 2', 'apikeys:page'],
  ])('%s shows Previous and Next, and Slack accepts the listing', async (command, handler) => {
    const body = await privateAnswer(command);
    const paging = buttons(body).find((row) => row.every((b) => b.action_id.startsWith(handler)))!;
    expect(paging.map((b) => JSON.parse(b.value).page)).toEqual([1, 3]);
    expect(new Set(paging.map((b) => b.action_id)).size).toBe(2);
    expect(h.fake.refusedResponses).toEqual([]);
    // Either button still reaches its handler.
    const responseUrl = h.fake.responseUrl();
    await h.click(paging[1]!.action_id, paging[1]!.value, { responseUrl });
    const next = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000);
    expect(text(next.body)).toContain('Page 3 of');
  });

  it('an error about a pasted wall of text reaches the user, without an empty section', async () => {
    const body = await privateAnswer(`shield export 5101 --last 1h --filter 😀${'a'.repeat(3_500)}:eq:x`);
    expect(text(body)).toContain('--filter field');
    expect(h.fake.refusedResponses).toEqual([]);
    expect(h.fake.refusals).toEqual([]);
  });
});

describe('a refused message still reaches the user', () => {
  it('a channel answer whose table Slack refuses is sent again with the table as aligned text', async () => {
    const channelId = freshChannel();
    h.fake.fail('chat.postMessage', { error: 'invalid_blocks', times: 1 });
    await h.command('db query SELECT 42 AS answer', { channelId });
    const coded = await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === channelId, 10_000);
    expect(text(coded.args.blocks)).not.toContain('"type":"table"');
    expect(text(coded.args.blocks)).toMatch(/answer\\n-+\\n *42/);
    expect(h.logs.filter((line) => line.includes('"slackError":"invalid_blocks"'))).toHaveLength(1);
    // The workspace is believed to refuse tables for an hour: the tests after this one start past it.
    h.clock.advance(TABLES_REFUSED_FOR_MS);
  });

  it.each(['invalid_arguments', 'msg_too_long', 'msg_blocks_too_long'])(
    'a channel answer Slack refuses with %s is sent again as plain text',
    async (error) => {
      const channelId = freshChannel();
      h.fake.fail('chat.postMessage', { error, times: 1 });
      await h.command('db query SELECT 42 AS answer', { channelId });
      const plain = await h.fake.waitFor(
        'chat.postMessage',
        (call) => call.args.channel === channelId,
        10_000,
      );
      expect(plain.args.blocks).toBeUndefined();
      expect(String(plain.args.text)).toMatch(/answer\n-+\n *42/);
      expect(h.logs.filter((line) => line.includes(`"slackError":"${error}"`))).toHaveLength(1);
    },
  );

  it('a private answer the response URL refuses is sent again as plain text through it', async () => {
    // Refused with its table, then with its table as code blocks: plain text is what is left.
    h.fake.fail('response_url', { status: 400, error: 'invalid_blocks', times: 2 });
    const body = await privateAnswer('dns shop-example');
    expect(body.blocks).toBeUndefined();
    expect(String(body.text)).toContain('shop-example.com');
    expect(h.fake.refusedResponses).toHaveLength(2);
  });

  it.each(['msg_too_long', 'no_text', 'invalid_blocks_format'])(
    'a private answer with a table refused for %s, not for its table, is sent again as plain text',
    async (error) => {
      // An earlier refusal of a table here is forgotten after the hour: a table is tried again.
      h.clock.advance(TABLES_REFUSED_FOR_MS);
      h.fake.fail('response_url', { status: 400, error, times: 1 });
      const body = await privateAnswer('dns');
      expect(body.blocks).toBeUndefined();
      expect(String(body.text)).toContain('shop-example.com');
      expect(h.fake.refusedResponses.map((post) => JSON.stringify(post.body))).toEqual([
        expect.stringContaining('"type":"table"'),
      ]);
    },
  );

  it('a private answer whose response URL expired comes by chat.postEphemeral', async () => {
    const channelId = freshChannel();
    h.fake.fail('response_url', { status: 404, error: 'expired_url', times: 1 });
    await h.command('dns shop-example', { channelId });
    const shown = await h.fake.waitFor(
      'chat.postEphemeral',
      (call) => call.args.channel === channelId,
      10_000,
    );
    expect(text(shown.args.blocks)).toContain('shop-example.com');
    expect(shown.args.user).toBe(DEFAULT_USER_ID);
  });

  it('a private answer in a channel the bot cannot see at all comes by DM, saying why', async () => {
    const channelId = freshChannel();
    h.fake.setChannelProblem(channelId, 'channel_not_found');
    h.fake.fail('response_url', { status: 404, error: 'expired_url', times: 1 });
    await h.command('dns shop-example', { channelId });
    const moved = await h.fake.waitFor('chat.postMessage', (call) => call.args.channel === dm(), 10_000);
    expect(text(moved.args.blocks)).toContain(`I could not answer in <#${channelId}>`);
    expect(text(moved.args.blocks)).toContain('shop-example.com');
  });
});

describe('when the channel is the problem', () => {
  it.each([
    'not_in_channel',
    'is_archived',
    'restricted_action',
    'restricted_action_read_only_channel',
  ] as const)(
    'a channel answer (%s) goes through the response URL, its file to the requester, and says so',
    async (problem) => {
      const channelId = freshChannel();
      h.fake.setChannelProblem(channelId, problem);
      const { responseUrl } = await h.command(QUERY_WITH_FILE, { channelId });
      const shown = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000);
      expect(shown.body.response_type).toBe('in_channel');
      const file = await h.fake.waitForUpload(() => true, 10_000);
      expect(file.channelId).toBe(dm());
      expect(text(shown.body.blocks)).toContain(`📎 ${file.filename}`);
      expect(text(shown.body.blocks)).toContain('sent to you in a direct message');
      expect(text(shown.body.blocks)).not.toContain('attached below');
    },
  );

  it('an origin-log summary where the bot is not in the channel names its CSV as sent to the requester', async () => {
    const channelId = freshChannel();
    h.fake.setChannelProblem(channelId, 'not_in_channel');
    const { responseUrl } = await h.command('logs 308006 yesterday', { channelId });
    const file = await h.fake.waitForUpload((f) => f.filename.startsWith('origin-errors-308006-'), 20_000);
    expect(file.channelId).toBe(dm());
    const summary = await h.fake.waitForResponse(
      (post) => responseUrl.endsWith(post.id) && text(post.body).includes('Origin errors'),
      10_000,
    );
    expect(text(summary.body.blocks)).toContain(`📎 ${file.filename}: all `);
    expect(text(summary.body.blocks)).toContain(
      'sent to you in a direct message (the bot is not in this channel)',
    );
    await expect.poll(tempFiles, { timeout: 5_000 }).toEqual([]);
  });

  it('an origin-log chart where the bot is not in the channel goes to the requester as a picture, with the CSV, and says so', async () => {
    const channelId = freshChannel();
    h.fake.setChannelProblem(channelId, 'not_in_channel');
    const { responseUrl } = await h.command('logs 308006 yesterday', { channelId });
    const csv = await h.fake.waitForUpload((f) => f.filename.startsWith('origin-errors-308006-'), 20_000);
    const picture = h.fake.uploads.find((f) => f.filename.startsWith('origin-errors-chart-308006-'));
    expect(picture?.channelId).toBe(dm());
    expect(picture?.altText).toContain('bars, one per');
    expect(h.fake.uploads.indexOf(picture!)).toBeLessThan(h.fake.uploads.indexOf(csv));
    const shown = h.fake.responses
      .filter((post) => responseUrl.endsWith(post.id))
      .map((post) => text(post.body.blocks))
      .join('\n');
    expect(shown).toContain(
      '📈 Errors per 15 min (UTC): the picture is sent to you in a direct message (the bot is not in this channel)',
    );
    // The picture stands in for the text bars; it is not drawn twice.
    expect(shown).not.toContain('█');
  });

  it.each([
    ['not_in_channel', 'the bot is not in that channel'],
    ['restricted_action_read_only_channel', 'that channel is read-only'],
  ] as const)(
    'a form result for a channel the bot cannot post in (%s) comes to the requester by DM, saying why',
    async (problem, why) => {
      const channelId = freshChannel();
      h.fake.setChannelProblem(channelId, problem);
      await h.command('shield export 5101', { channelId });
      const opened = await h.fake.waitFor('views.open', () => true, 10_000);
      const metadata = String((opened.args.view as { private_metadata: string }).private_metadata);
      const now = Math.floor(h.clock() / 1000);
      await h.submitView('shield.export:window-and-filters', metadata, {
        from: datetimePicker(now - 1800),
        to: datetimePicker(now),
      });
      const moved = await h.fake.waitFor(
        'chat.postMessage',
        (call) => call.args.channel === dm() && text(call.args.blocks).includes('Shield events'),
        20_000,
      );
      expect(text(moved.args.blocks)).toContain(`I could not answer in <#${channelId}>: ${why}`);
      const file = await h.fake.waitForUpload((f) => f.filename.startsWith('shield-events-5101-'), 10_000);
      expect(file.channelId).toBe(dm());
    },
  );
});

describe('files are never claimed and then lost', () => {
  it('a message whose file fails to upload is corrected to say so', async () => {
    const channelId = freshChannel();
    h.fake.fail('files.completeUploadExternal', { error: 'internal_error', times: 1 });
    const { responseUrl } = await h.command(QUERY_WITH_FILE, { channelId });
    const told = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000);
    expect(String(told.body.text)).toMatch(/could not be uploaded.*correlation id c-/);
    const posted = h.fake.messages.find((message) => message.channel === channelId)!;
    expect(posted.updates).toBe(1);
    expect(text(posted.blocks)).toMatch(/query-\d{8}-\d{6}\.csv could not be delivered \(internal_error\)/);
    expect(text(posted.blocks)).not.toContain('attached below');
  });

  it('a reply whose post is refused leaves no temporary file behind', async () => {
    const channelId = freshChannel();
    h.fake.setChannelProblem(channelId, 'not_in_channel');
    h.fake.fail('response_url', { status: 404, error: 'expired_url', times: 5 });
    h.fake.fail('conversations.open', { error: 'user_disabled', times: 5 });
    await h.command('logs 308006 yesterday', { channelId });
    await expect
      .poll(() => h.fake.callsTo('conversations.open').length, { timeout: 20_000 })
      .toBeGreaterThan(0);
    await expect.poll(tempFiles, { timeout: 10_000 }).toEqual([]);
  });
});

describe('nothing leaks, nothing pings', () => {
  it('a platform error that echoes the account key reaches the user scrubbed', async () => {
    h.sandbox.faults.set('apikey.list', {
      status: 400,
      times: 1,
      body: { Message: `Key ${h.sandbox.apiKey} is not allowed here` },
    });
    const body = await privateAnswer('apikeys');
    expect(text(body)).not.toContain(h.sandbox.apiKey);
    expect(text(body)).toContain(`[redacted …${h.sandbox.apiKey.slice(-4)}]`);
  });

  it('file titles and comments built from SQL and export queries arrive escaped', async () => {
    const channelId = freshChannel();
    await h.command(
      "db query SELECT o.id FROM orders o, orders p WHERE '<!channel>' IS NOT NULL -- <@U0BOSS>",
      { channelId },
    );
    const queryFile = await h.fake.waitForUpload((f) => f.filename.startsWith('query-'), 10_000);
    expect(queryFile.initialComment).toContain('&lt;!channel&gt;');
    expect(queryFile.initialComment).toContain('&lt;@U0BOSS&gt;');
    await h.command('shield export 5101 --last 1h --query "<!here> <https://evil.example|click>"', {
      channelId,
    });
    const exportFile = await h.fake.waitForUpload((f) => f.filename.startsWith('shield-events-'), 10_000);
    expect(exportFile.initialComment).toContain('&lt;!here&gt; &lt;https://evil.example|click&gt;');
    const rendered = renderedText(h.fake);
    for (const live of ['<!channel>', '<!here>', '<@U0BOSS>', '<https://evil'])
      expect(rendered).not.toContain(live);
  });
});

describe('nothing is cut silently', () => {
  it("a zone's 120 records: the message says how many it shows, and the file has all of them in full", async () => {
    const listing = await privateAnswer('dns large-example');
    const records = menuOptionsIn(listing).find((o) => o.value.startsWith('dns:records '))!;
    const responseUrl = h.fake.responseUrl();
    await h.pick(records.actionId, records, { responseUrl });
    const shown = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000);
    expect(text(shown.body)).toContain('Showing the first 99 of 120 rows; every row is in the attached CSV.');
    // Values are whole in the table: a DKIM key is not cut.
    expect(text(shown.body)).toMatch(/"text":"v=DKIM1; k=rsa; p=MIIB[^"]{300,}IDAQAB"/);
    const file = await h.fake.waitForUpload(
      (f) => f.filename === 'dns-records-large-example.com.csv',
      10_000,
    );
    expect(file.channelId).toBe(dm());
    expect(text(shown.body)).toContain('📎 dns-records-large-example.com.csv: all 120 rows');
    const lines = file.bytes.toString('utf8').trim().split('\r\n');
    expect(lines).toHaveLength(121);
    expect(lines.find((line) => line.includes('mail._domainkey'))).toMatch(/p=MIIB[^,]{300,}IDAQAB/);
  });
});
