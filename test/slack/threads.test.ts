/**
 * Answers in the incident room's threads, end to end: `/edge logs` and `/edge shield export`
 * post a compact headline in the channel, and the breakdown, the chart and the files go in its
 * thread (`thread_ts` on the replies and on the files). A long job's progress message becomes
 * the headline; a request asked in a thread is answered there, follow-ups included.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { percentChange } from '../../src/reports/origin/window.js';
import { createSlackSurface } from '../../src/slack/surface.js';
import { type RecordedCall, renderedText, type UploadedFile } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';

const HOUR_MS = 3_600_000;
const AT = '2026-11-21T14:20:00.000Z';

let channels = 0;
const freshChannel = () => `C0THREAD${++channels}`;

const text = (value: unknown) => JSON.stringify(value);

/** Every entry the sandbox serves for pull zone `id` in [startMs, endMs), read the plain way. */
async function served(h: Harness, id: number, startMs: number, endMs: number) {
  const entries: { timestamp: number; labels: { StatusCode: string; ErrorCode: string } }[] = [];
  for (let day = Math.floor(startMs / 86_400_000) * 86_400_000; day < endMs; day += 86_400_000) {
    const response = await h.runtime.services.platform.getOriginErrorLogs(id, new Date(day));
    let body = '';
    for await (const chunk of response.body) body += (chunk as Buffer).toString('utf8');
    entries.push(
      ...(JSON.parse(body) as { logs: typeof entries }).logs.filter(
        (entry) => entry.timestamp >= startMs && entry.timestamp < endMs,
      ),
    );
  }
  return entries;
}

/** The messages and files of one channel, as Slack recorded them. */
function channel(h: Harness, channelId: string) {
  const posts = () =>
    h.fake.callsTo('chat.postMessage').filter((call) => call.args.channel === channelId && call.response.ok);
  return {
    posts,
    /** Top-level messages: no thread_ts. */
    topLevel: () => posts().filter((call) => call.args.thread_ts === undefined),
    /** Replies in the thread of `ts`. */
    replies: (ts: string) => posts().filter((call) => call.args.thread_ts === ts),
    /** The replies in the thread of `ts`, once there are `count` of them. */
    async thread(ts: string, count: number) {
      await expect.poll(() => this.replies(ts).length, { timeout: 10_000 }).toBe(count);
      return this.replies(ts);
    },
    uploads: () => h.fake.uploads.filter((file) => file.channelId === channelId),
    csv: () =>
      h.fake.waitForUpload(
        (file) => file.channelId === channelId && file.filename.endsWith('.csv'),
        30_000,
      ) as Promise<UploadedFile>,
  };
}

interface TableCell {
  type: string;
  text: string;
}
/** The table blocks of a message. */
const tablesIn = (call: RecordedCall) =>
  ((call.args.blocks as { type: string; rows?: TableCell[][]; column_settings?: unknown[] }[]) ?? []).filter(
    (block) => block.type === 'table',
  );

/** `*Label*\nvalue` fields of a message, by label. */
function fieldsOf(call: RecordedCall): Map<string, string> {
  const out = new Map<string, string>();
  for (const block of (call.args.blocks as { fields?: { text: string }[] }[]) ?? [])
    for (const field of block.fields ?? []) {
      const [, label = '', value = ''] = /^\*([^*]+)\*\n([\s\S]*)$/.exec(field.text) ?? [];
      out.set(label, value);
    }
  return out;
}

describe('a channel answer of /edge logs', () => {
  let h: Harness;
  beforeAll(async () => {
    // No progress message: the answer comes before one would appear.
    h = await startHarness({ progress: { delayMs: 600_000, minGapMs: 3_000 } });
    h.clock.set(AT);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is a compact headline, with the breakdowns, the chart and the CSV in its thread', async () => {
    const channelId = freshChannel();
    const c = channel(h, channelId);
    const now = h.clock();
    await h.command('logs 308006 --last 2h', { channelId, userId: 'U0ONCALL' });
    const csv = await c.csv();

    const [headline, ...others] = c.topLevel();
    expect(others).toEqual([]);
    const ts = String(headline!.response.ts);
    // The summary, the comparison and the top URLs are replies in the thread; the picture and
    // the CSV are in the thread too.
    const [breakdown, comparison, urls] = await c.thread(ts, 3);
    expect(text(comparison!.args.blocks)).toContain('*Compared with* the previous 2h');
    expect(text(urls!.args.blocks)).toContain('*Top URLs*');
    expect(text(urls!.args.blocks)).toContain('"action_id":"purge:form"');
    expect(text(breakdown!.args.blocks)).toContain('Origin errors · pull zone 308006 · last 2h');
    expect(text(breakdown!.args.blocks)).toContain('*By error code*');
    expect(text(breakdown!.args.blocks)).toContain(`📎 ${csv.filename}`);
    expect(text(breakdown!.args.blocks)).toContain(
      '📈 Errors per 5 min (UTC): the picture is attached below.',
    );
    const picture = c.uploads().find((file) => file.filename.endsWith('.png'));
    expect(picture?.threadTs).toBe(ts);
    expect(csv.threadTs).toBe(ts);

    // The headline, checked against what the sandbox served.
    const window = await served(h, 308006, now - 2 * HOUR_MS, now);
    const previous = await served(h, 308006, now - 4 * HOUR_MS, now - 2 * HOUR_MS);
    const rows = parseCsv(csv.bytes, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(window.length);
    const shown = text(headline!.args.blocks);
    expect(shown).toContain(`*${window.length.toLocaleString('en-US')} origin errors* · pull zone 308006`);
    expect(shown).not.toContain('By error code');
    expect(shown).not.toContain('📎');
    const fields = fieldsOf(headline!);
    const change = percentChange(window.length, previous.length);
    expect(fields.get('Rate now')).toBe(
      change === undefined
        ? 'new: none in the previous 2h'
        : `${change > 0 ? '+' : ''}${change}% on the previous 2h (${previous.length})`,
    );
    const top = (key: (row: Record<string, string>) => string) => {
      const counts = new Map<string, number>();
      for (const row of rows) counts.set(key(row), (counts.get(key(row)) ?? 0) + 1);
      return Math.max(...counts.values());
    };
    expect(fields.get('Top status')).toMatch(new RegExp(`^\\d{3} ×${top((row) => row.status!)}$`));
    expect(fields.get('Top error code')).toMatch(
      new RegExp(`^\`[a-z_]+\` ×${top((row) => row.error_code!)}$`),
    );
    const last = Math.max(...rows.map((row) => Date.parse(row.timestamp!)));
    const seconds = Math.floor((now - last) / 1000);
    const ago = seconds < 60 ? `${seconds} s ago` : `${Math.floor(seconds / 60)} min ago`;
    expect(fields.get('Last seen')).toBe(`${ago} (${new Date(last).toISOString().slice(11, 19)} UTC)`);
    expect(fields.get('Asked by')).toBe('<@U0ONCALL>');
  });

  it('puts each breakdown in a message of its own: no message carries two tables', async () => {
    const channelId = freshChannel();
    const c = channel(h, channelId);
    await h.command('logs 308006 --last 2h', { channelId });
    await c.csv();
    const [headline] = c.topLevel();
    const replies = await c.thread(String(headline!.response.ts), 3);
    // The fake refuses a message with two tables: every message was taken, one table at most each.
    expect(h.fake.refusals).toEqual([]);
    const sent = h.fake.callsTo('chat.postMessage').filter((call) => call.args.channel === channelId);
    expect(sent).toHaveLength(4);
    for (const call of sent) expect(tablesIn(call).length).toBeLessThanOrEqual(1);
    expect(tablesIn(headline!)).toEqual([]);
    // The summary's error codes, the comparison, the top URLs: headers first, counts as numbers.
    const tables = replies.map((reply) => tablesIn(reply)[0]!);
    const first = (table: (typeof tables)[number], i: number) => ({
      headers: table.rows![0]!.slice(0, 3 - i).map((cell) => cell.text),
      cells: table.rows![1]!.slice(0, 3 - i).map((cell) => cell.type),
      settings: table.column_settings!.slice(0, 3 - i),
    });
    const left = { align: 'left', is_wrapped: true };
    const right = { align: 'right' };
    expect(tables.map((table, i) => first(table, i === 2 ? 1 : 0))).toEqual([
      {
        headers: ['Error code', 'Meaning', 'Errors'],
        cells: ['raw_text', 'raw_text', 'raw_number'],
        settings: [left, left, right],
      },
      {
        headers: ['Errors', 'This window', 'Previous 2h'],
        cells: ['raw_text', 'raw_number', 'raw_number'],
        settings: [left, right, right],
      },
      { headers: ['URL', 'Errors'], cells: ['raw_text', 'raw_number'], settings: [left, right] },
    ]);
  });

  it('asked in a thread, goes in that thread, its follow-ups and files too', async () => {
    const channelId = freshChannel();
    const c = channel(h, channelId);
    const parent = '1795272000.000100';
    const caller = { userId: 'U0ONCALL', channelId, threadTs: parent };
    const surface = createSlackSurface({
      client: h.slack.client,
      ...caller,
      logger: h.runtime.services.logger,
      secrets: h.runtime.services.secrets,
    });
    await h.runtime.engine.plan({ ...caller, text: 'logs 308006 --last 2h', surface }).run();
    await c.csv();
    // Slack has no nested threads: the headline and the breakdowns are all replies to the parent.
    await expect.poll(() => c.posts().length, { timeout: 10_000 }).toBe(4);
    expect(c.topLevel()).toEqual([]);
    const posted = c.posts();
    expect(posted.map((call) => call.args.thread_ts)).toEqual([parent, parent, parent, parent]);
    expect(text(posted[0]!.args.blocks)).toContain('origin errors* · pull zone 308006');
    expect(text(posted[1]!.args.blocks)).toContain('*By error code*');
    expect(text(posted[2]!.args.blocks)).toContain('*Compared with*');
    expect(text(posted[3]!.args.blocks)).toContain('*Top URLs*');
    expect(c.uploads().map((file) => file.threadTs)).toEqual([parent, parent]);
  });
});

describe('the same /edge logs request in one channel within a minute', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ progress: { delayMs: 600_000, minGapMs: 3_000 } });
    h.clock.set(AT);
  });
  afterAll(async () => {
    await h?.close();
  });

  const auditRows = async (channelId: string) =>
    (
      await h.runtime.services.state.client.execute({
        sql: "SELECT user_id, outcome FROM audit_log WHERE operation = 'logs.origin' AND channel_id = ?",
        args: [channelId],
      })
    ).rows.map((row) => `${String(row.user_id)} ${String(row.outcome)}`);

  it('from five responders at once costs one download, and each of them gets an answer', async () => {
    const channelId = freshChannel();
    const c = channel(h, channelId);
    const users = ['U0R1', 'U0R2', 'U0R3', 'U0R4', 'U0R5'];
    // The platform takes its time, so that every request arrives while the download runs.
    h.sandbox.faults.set('logs.origin', { delayMs: 1_500, times: 1 });
    const before = h.sandbox.requests.count('logs.origin');
    const asked = await Promise.all(
      users.map((userId) => h.command('logs 308006 --last 1h', { channelId, userId })),
    );
    await c.csv();
    const downloads = h.sandbox.requests.count('logs.origin') - before;

    // One headline in the channel, asked by whoever came first.
    const [headline, ...others] = c.topLevel();
    expect(others).toEqual([]);
    const ts = String(headline!.response.ts);
    const starter = /^<@(U0R\d)>$/.exec(fieldsOf(headline!).get('Asked by') ?? '')?.[1];
    expect(users).toContain(starter);
    // Each of the four others is pointed, privately, to that headline and its thread.
    const link = `https://edgeops-test.slack.com/archives/${channelId}/p${ts.replace('.', '')}`;
    const answersOf = (responseUrl: string) =>
      h.fake.responses.filter((post) => responseUrl.endsWith(`/${post.id}`)).map((post) => post.body);
    await expect
      .poll(
        () =>
          asked.filter(({ responseUrl }) =>
            text(answersOf(responseUrl)).includes(`<${link}|its headline and thread>`),
          ).length,
        { timeout: 20_000 },
      )
      .toBe(4);
    users.forEach((userId, i) => {
      const said = answersOf(asked[i]!.responseUrl);
      if (userId === starter) {
        expect(said).toEqual([]);
        return;
      }
      expect(said.every((body) => body.response_type === 'ephemeral')).toBe(true);
      expect(text(said)).toContain(
        `<@${starter}> asked for the same origin errors of pull zone 308006, last 1h`,
      );
    });
    // Those who joined while it ran were told at once who can cancel it.
    expect(
      asked.filter(({ responseUrl }) =>
        text(answersOf(responseUrl)).includes(`Only <@${starter}> can cancel it.`),
      ).length,
    ).toBeGreaterThan(0);
    // Each request is audited under its own user. The last outcome row is written just after
    // its pointer is delivered, so wait for it rather than race it.
    await expect
      .poll(async () => (await auditRows(channelId)).sort(), { timeout: 10_000 })
      .toEqual(users.flatMap((userId) => [`${userId} started`, `${userId} succeeded`]).sort());

    // One download: what the same request costs alone, in another channel (not from kept days).
    await h.runtime.services.keptDays.clear();
    const alone = freshChannel();
    const single = h.sandbox.requests.count('logs.origin');
    await h.command('logs 308006 --last 1h', { channelId: alone });
    await channel(h, alone).csv();
    expect(downloads).toBe(h.sandbox.requests.count('logs.origin') - single);
  });

  it('is fetched again after the minute, and another window or filter is never shared', async () => {
    const channelId = freshChannel();
    const c = channel(h, channelId);
    await h.command('logs 308006 --last 1h', { channelId, userId: 'U0R1' });
    await c.csv();
    // Answers not shared are fetched: not from the days the first one kept.
    await h.runtime.services.keptDays.clear();
    const before = h.sandbox.requests.count('logs.origin');
    await h.command('logs 308006 --last 2h', { channelId, userId: 'U0R2' });
    await h.command('logs 308006 --last 1h --status 5xx', { channelId, userId: 'U0R3' });
    await expect.poll(() => c.topLevel().length, { timeout: 20_000 }).toBe(3);
    expect(h.sandbox.requests.count('logs.origin')).toBeGreaterThan(before);
    // The first request again, within its minute: pointed to, not fetched.
    const within = h.sandbox.requests.count('logs.origin');
    const repeat = await h.command('logs 308006 --last 1h', { channelId, userId: 'U0R5' });
    const pointer = await h.fake.waitForResponse(
      (post) => repeat.responseUrl.endsWith(`/${post.id}`),
      20_000,
    );
    expect(text(pointer.body)).toContain('its headline and thread');
    expect(h.sandbox.requests.count('logs.origin')).toBe(within);
    h.clock.advance(61_000);
    try {
      const again = h.sandbox.requests.count('logs.origin');
      await h.command('logs 308006 --last 1h', { channelId, userId: 'U0R4' });
      await expect.poll(() => c.topLevel().length, { timeout: 20_000 }).toBe(4);
      expect(h.sandbox.requests.count('logs.origin')).toBeGreaterThan(again);
      // The table holds only what is still within its minute.
      expect(h.runtime.services.shared.size()).toBe(1);
    } finally {
      h.clock.set(AT);
    }
  });

  it('cancelled by the one who asked first, tells the others and posts nothing', async () => {
    const channelId = freshChannel();
    h.sandbox.knobs.setLogDay(900001, 1_000_000);
    try {
      const first = await h.command('logs 900001 today', { channelId, userId: 'U0R1' });
      await expect.poll(() => h.runtime.services.jobs.running().length, { timeout: 10_000 }).toBe(1);
      const second = await h.command('logs 900001 today', { channelId, userId: 'U0R2' });
      const job = h.runtime.services.jobs.running()[0]!;
      const said = (responseUrl: string) =>
        text(h.fake.responses.filter((post) => responseUrl.endsWith(`/${post.id}`)).map((post) => post.body));
      await expect
        .poll(() => said(second.responseUrl), { timeout: 10_000 })
        .toContain('Only <@U0R1> can cancel it.');
      // Someone else's click cancels nothing.
      const refused = h.fake.responseUrl();
      await h.click('logs:cancel', job.id, { userId: 'U0R2', responseUrl: refused });
      await expect.poll(() => said(refused), { timeout: 10_000 }).toContain('Only <@U0R1> can cancel');
      await h.click('logs:cancel', job.id, { userId: 'U0R1' });
      await expect
        .poll(() => said(second.responseUrl), { timeout: 20_000 })
        .toContain('<@U0R1> cancelled the download of origin errors of pull zone 900001');
      await expect.poll(() => said(first.responseUrl), { timeout: 10_000 }).toContain('was cancelled');
      expect(channel(h, channelId).topLevel()).toEqual([]);
    } finally {
      h.sandbox.knobs.clear();
    }
  }, 60_000);
});

describe('a channel answer of /edge shield export', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ progress: { delayMs: 600_000, minGapMs: 3_000 } });
    h.clock.set(AT);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is a headline with the top action and rule, last seen and who asked; the summary and CSV are in its thread', async () => {
    const channelId = freshChannel();
    const c = channel(h, channelId);
    await h.command('shield export 5101 --last 2h', { channelId, userId: 'U0ONCALL' });
    const csv = await c.csv();
    const [headline, ...others] = c.topLevel();
    expect(others).toEqual([]);
    const ts = String(headline!.response.ts);
    expect(csv.threadTs).toBe(ts);
    // The summary with the CSV, then the top IPs: a table each.
    const [summary, ips] = await c.thread(ts, 2);
    expect(text(summary!.args.blocks)).toContain('*By rule*');
    expect(text(summary!.args.blocks)).toContain(`📎 ${csv.filename}`);
    expect(text(ips!.args.blocks)).toContain('*Top IPs*');
    expect([headline, summary, ips].map((call) => tablesIn(call!).length)).toEqual([0, 1, 1]);

    const rows = parseCsv(csv.bytes, { columns: true }) as Record<string, string>[];
    const busiest = (key: (row: Record<string, string>) => string) => {
      const counts = new Map<string, number>();
      for (const row of rows) counts.set(key(row), (counts.get(key(row)) ?? 0) + 1);
      return Math.max(...counts.values());
    };
    const shown = text(headline!.args.blocks);
    expect(shown).toContain(`*${rows.length.toLocaleString('en-US')} Shield events* · zone 5101`);
    expect(shown).not.toContain('By rule');
    const fields = fieldsOf(headline!);
    expect(fields.get('Top action')).toMatch(new RegExp(`^\`[^\`]+\` ×${busiest((row) => row.action!)}$`));
    expect(fields.get('Top rule')).toMatch(
      new RegExp(` ×${busiest((row) => `${row.ruleId} ${row.ruleName}`)}$`),
    );
    expect(fields.get('Rate now')).toBe('not compared: an export reads only its own window');
    const last = Math.max(...rows.map((row) => Date.parse(row.timestamp!)));
    expect(fields.get('Last seen')).toContain(
      `(${new Date(last).toISOString().slice(0, 19).replace('T', ' ')} UTC)`,
    );
    expect(fields.get('Asked by')).toBe('<@U0ONCALL>');
  });
});

describe('a long job’s answer', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      progress: { delayMs: 50, minGapMs: 300 },
      charts: { fontFile: '/nonexistent/fonts/inter.ttf' },
    });
    h.clock.set(AT);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('takes the place of its progress message, whose thread then holds the breakdown and the CSV', async () => {
    const channelId = freshChannel();
    const c = channel(h, channelId);
    h.sandbox.faults.set('logs.origin', { delayMs: 1_000, times: 1 });
    await h.command('logs 308006 --last 2h', { channelId, userId: 'U0ONCALL' });
    const csv = await c.csv();
    // One top-level message: the progress message, with its Cancel button, now the headline.
    const [progress, ...others] = c.topLevel();
    expect(others).toEqual([]);
    expect(text(progress!.args.blocks)).toContain('logs:cancel');
    const ts = String(progress!.response.ts);
    const headline = h.fake.message(channelId, ts)!;
    expect(text(headline.blocks)).toContain('origin errors* · pull zone 308006');
    expect(text(headline.blocks)).toContain('<@U0ONCALL>');
    expect(text(headline.blocks)).not.toContain('logs:cancel');
    expect(text(headline.blocks)).not.toContain('done');
    const [summary] = await c.thread(ts, 3);
    expect(text(summary!.args.blocks)).toContain('*By error code*');
    expect(csv.threadTs).toBe(ts);
  });

  it('is posted anew when Slack will not update the progress message', async () => {
    const channelId = freshChannel();
    const c = channel(h, channelId);
    // A slow download, not the days the test before kept: the progress message has time to appear.
    await h.runtime.services.keptDays.clear();
    h.sandbox.faults.set('logs.origin', { delayMs: 1_000, times: 1 });
    h.fake.fail('chat.update', { error: 'cant_update_message', times: Number.POSITIVE_INFINITY });
    try {
      await h.command('logs 308006 --last 2h', { channelId });
      const csv = await c.csv();
      const [progress, headline, ...others] = c.topLevel();
      expect(others).toEqual([]);
      expect(text(progress!.args.blocks)).toContain('logs:cancel');
      expect(text(headline!.args.blocks)).toContain('origin errors* · pull zone 308006');
      expect(csv.threadTs).toBe(headline!.response.ts);
      await c.thread(String(headline!.response.ts), 3);
    } finally {
      h.fake.reset();
    }
  });
});

describe('a headline or its thread that Slack refuses', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ progress: { delayMs: 600_000, minGapMs: 3_000 }, allowRefusals: true });
    h.clock.set(AT);
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => {
    h.fake.reset();
  });
  const dm = (userId: string) => h.fake.dmChannelFor(userId);

  it('refused as invalid_blocks, goes again as plain text, its breakdown and CSV still in its thread', async () => {
    const channelId = freshChannel();
    const c = channel(h, channelId);
    h.fake.fail('chat.postMessage', { error: 'invalid_blocks', times: 1 });
    await h.command('logs 308006 --last 2h', { channelId, userId: 'U0ONCALL' });
    const csv = await c.csv();
    const [headline, ...others] = c.topLevel();
    expect(others).toEqual([]);
    expect(headline!.args.blocks).toBeUndefined();
    expect(String(headline!.args.text)).toContain('origin errors');
    const ts = String(headline!.response.ts);
    expect(csv.threadTs).toBe(ts);
    expect(text(c.replies(ts)[0]!.args.blocks)).toContain(`📎 ${csv.filename}`);
  });

  it('whose summary is refused as invalid_blocks gets it as plain text in the thread, naming the CSV there', async () => {
    const channelId = freshChannel();
    const c = channel(h, channelId);
    // Refused with its table, then with the table as a code block: plain text is what is left.
    h.fake.fail('chat.postMessage', {
      error: 'invalid_blocks',
      times: 2,
      when: (args) => args.channel === channelId && args.thread_ts !== undefined,
    });
    await h.command('shield export 5101 --last 2h', { channelId, userId: 'U0ONCALL' });
    const csv = await c.csv();
    const [headline, ...others] = c.topLevel();
    expect(others).toEqual([]);
    expect(text(headline!.args.blocks)).toContain('Shield events* · zone 5101');
    const ts = String(headline!.response.ts);
    expect(csv.threadTs).toBe(ts);
    const [summary, ips] = await c.thread(ts, 2);
    expect(text(ips!.args.blocks)).toContain('*Top IPs*');
    expect(summary!.args.blocks).toBeUndefined();
    expect(String(summary!.args.text)).toContain('By rule');
    expect(String(summary!.args.text)).toContain(csv.filename);
  });

  it('whose summary Slack will not take in the thread (internal_error) brings the summary and the CSV to the requester by DM', async () => {
    const channelId = freshChannel();
    const c = channel(h, channelId);
    h.fake.fail('chat.postMessage', {
      error: 'internal_error',
      when: (args) => args.channel === channelId && args.thread_ts !== undefined,
    });
    await h.command('shield export 5101 --last 2h', { channelId, userId: 'U0ONCALL' });
    const csv = await h.fake.waitForUpload(
      (file) => file.filename.startsWith('shield-events-') && file.filename.endsWith('.csv'),
      20_000,
    );
    const [headline, ...others] = c.topLevel();
    expect(others).toEqual([]);
    // The top IPs, which Slack took after it, are in the thread; the summary is not.
    const [ips, ...more] = await c.thread(String(headline!.response.ts), 1);
    expect(more).toEqual([]);
    expect(text(ips!.args.blocks)).toContain('*Top IPs*');
    // Not a correlation id alone: the summary itself, saying why it is here, with its CSV.
    expect(csv.channelId).toBe(dm('U0ONCALL'));
    const moved = h.fake
      .callsTo('chat.postMessage')
      .find((call) => call.args.channel === dm('U0ONCALL') && call.response.ok)!;
    expect(text(moved.args.blocks)).toContain(`I could not answer in <#${channelId}>`);
    expect(text(moved.args.blocks)).toContain('internal_error');
    expect(text(moved.args.blocks)).toContain('*By rule*');
    expect(text(moved.args.blocks)).toContain(`📎 ${csv.filename}`);
    expect(csv.threadTs).toBeUndefined();
  });

  it('shared with a second asker while the first one’s answer could only go to their DM, reaches the second asker too', async () => {
    const channelId = freshChannel();
    h.fake.setChannelProblem(channelId, 'not_in_channel');
    // No answer can be shown in the channel: each one goes to its asker's DM.
    h.fake.fail('response_url', {
      status: 404,
      error: 'expired_url',
      times: Number.POSITIVE_INFINITY,
      when: (body) => body.response_type === 'in_channel',
    });
    h.sandbox.faults.set('logs.origin', { delayMs: 1_500, times: 1 });
    try {
      await h.command('logs 308006 --last 1h', { channelId, userId: 'U0FIRST' });
      await h.command('logs 308006 --last 1h', { channelId, userId: 'U0SECOND' });
      const first = await h.fake.waitForUpload(
        (file) => file.channelId === dm('U0FIRST') && file.filename.endsWith('.csv'),
        20_000,
      );
      expect(first.filename).toContain('308006');
      // Not a pointer to an answer in someone else's DM: the answer itself, CSV included.
      const second = await h.fake.waitForUpload(
        (file) => file.channelId === dm('U0SECOND') && file.filename.endsWith('.csv'),
        20_000,
      );
      expect(second.filename).toBe(first.filename);
      expect(renderedText(h.fake)).not.toContain('which I cannot link to');
    } finally {
      h.sandbox.faults.clear();
    }
  });

  it('scrubs a pasted key and escapes mentions in the title and comment of a file in the thread', async () => {
    const channelId = freshChannel();
    const c = channel(h, channelId);
    const key = h.sandbox.apiKey;
    await h.command(`shield export 5101 --last 2h --query "<!channel> ${key}"`, { channelId });
    const csv = await c.csv();
    expect(csv.threadTs).toBe(String(c.topLevel()[0]!.response.ts));
    expect(csv.initialComment).toContain('&lt;!channel&gt;');
    expect(csv.initialComment).not.toContain(key);
    expect(csv.initialComment).toContain(`[redacted …${key.slice(-4)}]`);
    expect(renderedText(h.fake)).not.toContain(key);
  });

  it('where the bot is not in the channel and the response URL has expired, comes whole to the requester by DM, thread and CSV included', async () => {
    const channelId = freshChannel();
    h.fake.setChannelProblem(channelId, 'not_in_channel');
    h.fake.fail('response_url', { status: 404, error: 'expired_url', times: 10 });
    await h.command('logs 308006 --last 2h', { channelId, userId: 'U0DMME' });
    const csv = await h.fake.waitForUpload((file) => file.filename.endsWith('.csv'), 20_000);
    expect(csv.channelId).toBe(dm('U0DMME'));
    const inDm = h.fake
      .callsTo('chat.postMessage')
      .filter((call) => call.args.channel === dm('U0DMME') && call.response.ok);
    const headline = inDm.find((call) => call.args.thread_ts === undefined)!;
    expect(text(headline.args.blocks)).toContain(`I could not answer in <#${channelId}>`);
    expect(text(headline.args.blocks)).toContain('origin errors* · pull zone 308006');
    const ts = String(headline.response.ts);
    expect(csv.threadTs).toBe(ts);
    expect(text(inDm.find((call) => call.args.thread_ts === ts)!.args.blocks)).toContain(
      `📎 ${csv.filename}`,
    );
  });
});
