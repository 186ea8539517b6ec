import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PINNED_INSTANTS, utcDay } from '../support/clock.js';
import { renderedText, type UploadedFile } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { datetimePicker, staticSelect, textInput } from '../support/payloads.js';

let h: Harness;
let scratch: string;
const previousTmp = process.env.TMPDIR;
beforeAll(async () => {
  // Temporary CSV files of this file's runs only, so the no-leftover checks see nothing else.
  scratch = mkdtempSync(join(tmpdir(), 'edgeops-incident-'));
  process.env.TMPDIR = scratch;
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
  process.env.TMPDIR = previousTmp;
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  h.sandbox.faults.clear();
  h.sandbox.knobs.clear();
});

const tempCsvFiles = () =>
  readdirSync(scratch).filter((name) => /^edgeops-\d+-[0-9a-f]{16}\.csv$/.test(name));
const DAY_MS = 86_400_000;
let dateChannels = 0;

async function privateReply(text: string) {
  const { responseUrl } = await h.command(text);
  // The first answer of a file waits for the report workers to start: a bound, not a timing.
  return JSON.stringify((await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 20_000)).body);
}

/** The next upload whose name matches, ignoring files uploaded by earlier tests. */
async function upload(name: RegExp, timeoutMs = 20_000): Promise<UploadedFile> {
  const earlier = new Set(h.fake.uploads.filter((file) => name.test(file.filename)));
  return h.fake.waitForUpload((file) => name.test(file.filename) && !earlier.has(file), timeoutMs);
}

/** What the sandbox serves for that day, counted the plain way, to check the summary against. */
async function expectedDay(pullZoneId: number, dayMs: number) {
  const response = await h.runtime.services.platform.getOriginErrorLogs(pullZoneId, new Date(dayMs));
  let text = '';
  for await (const chunk of response.body) text += (chunk as Buffer).toString('utf8');
  const entries = (JSON.parse(text) as { logs: { labels: Record<string, string>; log: string }[] }).logs;
  let malformed = 0;
  const byStatus = new Map<string, number>();
  for (const entry of entries) {
    try {
      JSON.parse(entry.log);
    } catch {
      malformed++;
    }
    byStatus.set(entry.labels.StatusCode!, (byStatus.get(entry.labels.StatusCode!) ?? 0) + 1);
  }
  const hostile = entries.some((entry) => entry.log.includes('<!channel>'));
  return { total: entries.length, malformed, byStatus, hostile };
}

const uniqueMessage = (predicate: (text: string) => boolean) => {
  const seen = new Set(h.fake.callsTo('chat.postMessage'));
  return h.fake.waitFor(
    'chat.postMessage',
    (call) => !seen.has(call) && predicate(JSON.stringify(call.args)),
    10_000,
  );
};

// What "today" and "yesterday" mean moves with the clock: each instant is a day edge, a morning
// (the sandbox's day has gained its entry with a mention in its URL), or a month's first day.
describe.each(PINNED_INSTANTS)('/edge logs at $name', ({ at }) => {
  beforeAll(() => h.clock.set(at));

  it.each([
    ['today', 0],
    ['yesterday', 1],
  ])(
    'summarises %s in the channel with every entry as origin-errors-ID-yyyy-MM-dd.csv',
    async (word, back) => {
      const dayMs = Math.floor(h.clock() / DAY_MS) * DAY_MS - back * DAY_MS;
      const expected = await expectedDay(308006, dayMs);
      if (expected.total === 0) {
        // Seconds into a day there may be nothing yet: said plainly to the requester, and no file.
        const uploads = h.fake.uploads.length;
        const said = await privateReply(`logs 308006 ${word}`);
        expect(said).toContain('No origin errors recorded');
        expect(said).toContain(utcDay(dayMs));
        expect(h.fake.uploads.length).toBe(uploads);
        return;
      }
      const next = upload(/^origin-errors-308006-/);
      const summary = uniqueMessage((text) => text.includes('Origin errors · pull zone 308006'));
      await h.command(`logs 308006 ${word}`);
      const file = await next;
      expect(file.filename).toBe(`origin-errors-308006-${utcDay(dayMs)}.csv`);
      const rows = parseCsv(file.bytes, { columns: true }) as Record<string, string>[];
      expect(Object.keys(rows[0]!)).toEqual([
        'timestamp',
        'status',
        'error_code',
        'server_zone',
        'url',
        'message',
        'log_id',
      ]);
      expect(rows).toHaveLength(expected.total);
      expect(rows.filter((row) => row.status === '502')).toHaveLength(expected.byStatus.get('502') ?? 0);
      expect(rows.every((row) => row.timestamp!.startsWith(utcDay(dayMs)))).toBe(true);
      expect(rows.every((row) => Date.parse(row.timestamp!) <= h.clock())).toBe(true);
      // The summary and the file are in the thread of the headline in the channel.
      const threadTs = (await summary).args.thread_ts;
      const headline = h.fake.message(String((await summary).args.channel), String(threadTs));
      expect(JSON.stringify(headline?.blocks)).toContain('origin errors* · pull zone 308006');
      expect(headline?.threadTs).toBeUndefined();
      expect(file.threadTs).toBe(threadTs);
      const text = JSON.stringify((await summary).args.blocks);
      expect(text).toContain(utcDay(dayMs));
      expect(text).toContain(expected.total.toLocaleString('en-US'));
      expect(text).toContain('Errors per 15 min');
      if (expected.malformed > 0) expect(text).toContain(`${expected.malformed} entr`);
      // A CSV keeps the platform's bytes (only formulas are neutralised)...
      if (expected.hostile) expect(file.bytes.toString('utf8')).toContain('/search?q=<!channel>');
      // ...while everything Slack renders for people arrives escaped: nobody is pinged.
      expect(renderedText(h.fake)).not.toContain('<!channel>');
    },
  );

  it('tells the requester alone of a day without errors, and posts no file', async () => {
    const uploads = h.fake.uploads.length;
    const posts = h.fake.callsTo('chat.postMessage').length;
    const today = await privateReply('logs 410114 today');
    expect(today).toContain(`No origin errors recorded for pull zone 410114, ${utcDay(h.clock())}`);
    // A past day the platform sent nothing for may be one it no longer keeps: never called error-free.
    const yesterday = await privateReply('logs 410114 yesterday');
    expect(yesterday).toContain(
      `The platform returned no entries for ${utcDay(h.clock() - DAY_MS)}; it may keep fewer days.`,
    );
    expect(yesterday).not.toContain('No origin errors');
    expect(h.fake.uploads.length).toBe(uploads);
    expect(h.fake.callsTo('chat.postMessage').length).toBe(posts);
    await expect.poll(() => tempCsvFiles(), { timeout: 5_000 }).toEqual([]);
  });

  it('refuses tomorrow, and accepts today in both date forms', async () => {
    const tomorrow = utcDay(h.clock() + DAY_MS);
    expect(await privateReply(`logs 308006 ${tomorrow}`)).toContain('in the future');
    const [year, month, day] = utcDay(h.clock()).split('-');
    const [lastYear, lastMonth, lastDay] = utcDay(h.clock() - DAY_MS).split('-');
    const hasEntries = (await expectedDay(308006, Math.floor(h.clock() / DAY_MS) * DAY_MS)).total > 0;
    const before = h.sandbox.requests.count('logs.origin');
    const said = uniqueMessage((text) => text.includes('pull zone 308006'));
    const next = upload(/^origin-errors-308006-/);
    // A channel of its own: the same request in one channel within a minute shares the first answer.
    const { responseUrl } = await h.command(`logs 308006 ${month}-${day}-${year}`, {
      channelId: `C0DATES${++dateChannels}`,
    });
    // Seconds into a day there may be nothing yet, and then no file and no post in the channel.
    if (hasEntries) {
      await said;
      expect((await next).filename).toBe(`origin-errors-308006-${utcDay(h.clock())}.csv`);
    } else await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 20_000);
    // Today, then yesterday for the comparison with the hours before and the same hours a day earlier.
    expect(h.sandbox.requests.count('logs.origin')).toBe(before + 2);
    expect(
      h.sandbox.requests
        .byRoute('logs.origin')
        .slice(-2)
        .map((request) => request.path),
    ).toEqual([
      `/logging/308006/${month}-${day}-${year}`,
      `/logging/308006/${lastMonth}-${lastDay}-${lastYear}`,
    ]);
  });
});

describe('/edge logs', () => {
  it('applies --status 5xx and --zone filters to the summary and the file', async () => {
    const next = upload(/^origin-errors-410112-/);
    await h.command('logs 410112 today --status 5xx --zone DE');
    const file = await next;
    const rows = parseCsv(file.bytes, { columns: true }) as Record<string, string>[];
    expect(rows.every((row) => row.status?.startsWith('5') && row.server_zone === 'DE')).toBe(true);
  });

  it.each([
    ['logs 308006 13-45-2026', 'not a real date'],
    ['logs 308006 2099-01-01', 'in the future'],
    ['logs 308006 someday', 'not a day'],
    ['logs 308006 today --last 3hours', 'not a duration'],
    ['logs 308006 today --last 4d', 'at most 72h'],
    ['logs 308006 today --status 6xx', '--status'],
    ['logs abc', 'pull zone id must be a number'],
  ])('refuses %s before any platform call', async (command, error) => {
    const before = h.sandbox.requests.count('logs.origin');
    expect(await privateReply(command)).toContain(error);
    expect(h.sandbox.requests.count('logs.origin')).toBe(before);
  });

  it('summarises a 200,000-entry day', async () => {
    h.sandbox.knobs.setLogDay(410113, 200_000);
    const next = upload(/^origin-errors-410113-/, 60_000);
    await h.command('logs 410113 today');
    const file = await next;
    expect(file.length).toBeGreaterThan(10_000_000);
  }, 90_000);

  it('shows progress with a Cancel button that stops the work and leaves no temporary file', async () => {
    h.sandbox.knobs.setLogDay(900001, 1_000_000);
    const uploads = h.fake.uploads.length;
    const seen = new Set(h.fake.callsTo('chat.postMessage'));
    await h.command('logs 900001 today');
    const progress = await h.fake.waitFor(
      'chat.postMessage',
      (call) => !seen.has(call) && JSON.stringify(call.args.blocks).includes('"action_id":"logs:cancel"'),
      10_000,
    );
    const jobId = /job_[0-9a-f]{12}/.exec(JSON.stringify(progress.args.blocks))![0];
    const responseUrl = h.fake.responseUrl();
    await h.click('logs:cancel', jobId, { responseUrl });
    const answer = await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000);
    expect(JSON.stringify(answer.body)).toContain('Cancelling');
    await h.fake.waitFor('chat.update', (call) => JSON.stringify(call.args).includes('cancelled'), 10_000);
    expect(h.fake.uploads.length).toBe(uploads);
    await expect.poll(() => tempCsvFiles(), { timeout: 5_000 }).toEqual([]);
  }, 60_000);

  it('retries a Slack 429 on files.completeUploadExternal and still delivers the file', async () => {
    h.fake.fail('files.completeUploadExternal', { status: 429, retryAfter: 1, times: 1 });
    const next = upload(/^origin-errors-308006-/, 20_000);
    // A channel of its own: the same request in one channel within a minute shares the first answer.
    await h.command('logs 308006 yesterday', { channelId: 'C0RETRY429' });
    const file = await next;
    expect(file.length).toBeGreaterThan(0);
    expect(h.fake.callsTo('files.completeUploadExternal').some((call) => call.status === 429)).toBe(true);
  });
});

describe.each(PINNED_INSTANTS)('/edge shield export at $name', ({ at }) => {
  beforeAll(() => h.clock.set(at));

  it('streams the export into shield-events-ZONE-FROM-TO.csv with the row count and window, formulas neutralised', async () => {
    const next = upload(/^shield-events-5101-/);
    await h.command('shield export 5101 --last 2h');
    const file = await next;
    // Bounds in compact UTC, with seconds only where the bound has them.
    const stamp = (ms: number) =>
      new Date(ms)
        .toISOString()
        .replace(/[-:]/g, '')
        .slice(0, ms % 60_000 === 0 ? 13 : 15);
    expect(file.filename).toBe(
      `shield-events-5101-${stamp(h.clock() - 7_200_000)}Z-${stamp(h.clock())}Z.csv`,
    );
    expect(h.sandbox.requests.all().at(-1)?.body).toMatchObject({
      from: h.clock() - 7_200_000,
      to: h.clock(),
    });
    const rows = parseCsv(file.bytes, { columns: true }) as Record<string, string>[];
    expect(file.initialComment).toContain(
      `${rows.length.toLocaleString('en-US')} Shield events of zone 5101`,
    );
    expect(file.initialComment).toContain('UTC');
    const cells = rows.flatMap((row) => Object.values(row));
    expect(cells.filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);
    expect(cells.some((cell) => cell.startsWith("'="))).toBe(true);
  });
});

describe('/edge shield export', () => {
  it.each([
    ['shield export 5101 --from -1h --to -2h', '--to must be after --from'],
    ['shield export 5101 --from -80h --to -75h', '72 hours'],
    ['shield export 5101 --last 1h --filter url:cidr:10.0.0.0/8', 'ip field only'],
    ['shield export 5101 --last 1h --filter colour:eq:red', 'not one of'],
    ['shield export 5101 --from yesterday', 'not a time'],
  ])('refuses %s before any platform call', async (command, error) => {
    const before = h.sandbox.requests.count('shield.export');
    expect(await privateReply(command)).toContain(error);
    expect(h.sandbox.requests.count('shield.export')).toBe(before);
  });

  it('shows the detail of a 400 problem document', async () => {
    h.sandbox.faults.set('shield.export', {
      status: 400,
      body: {
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: 'Query syntax is not supported',
        instance: '/x',
      },
      times: 1,
    });
    expect(await privateReply('shield export 5101 --last 1h --query "a(b"')).toContain(
      'Query syntax is not supported',
    );
  });

  it('opens a form without window flags and exports what it is given', async () => {
    await h.command('shield export 5101');
    const opened = await h.fake.waitFor(
      'views.open',
      (call) => JSON.stringify(call.args).includes('shield.export:window'),
      5_000,
    );
    const metadata = String((opened.args.view as { private_metadata: string }).private_metadata);
    const now = Math.floor(h.clock() / 1000);
    const bad = await h.submitView('shield.export:window', metadata, {
      from: datetimePicker(now - 3600),
      to: datetimePicker(now - 7200),
    });
    expect(JSON.stringify(bad.body)).toContain('The end must be after the start');
    const next = upload(/^shield-events-5101-/);
    await h.submitView('shield.export:window', metadata, {
      from: datetimePicker(now - 1800),
      to: datetimePicker(now),
      query: textInput(''),
      field0: staticSelect('country'),
      op0: staticSelect('in'),
      values0: textInput('DE,FR'),
    });
    const file = await next;
    const rows = parseCsv(file.bytes, { columns: true }) as Record<string, string>[];
    expect(rows.every((row) => ['DE', 'FR'].includes(row.country!))).toBe(true);
  });
});
