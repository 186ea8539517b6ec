/**
 * The incident room's reports where Slack shows them: the summary and the CSV of a day in the
 * thread of the headline, everything Slack renders escaped, the progress message with its
 * Cancel button, and an upload Slack asks to retry. What the reports say, at each pinned instant,
 * is tested through the engine in test/operations/incident.test.ts.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PINNED_INSTANTS } from '../support/clock.js';
import { renderedText, type UploadedFile } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';

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
  if (previousTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmp;
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  h.sandbox.faults.clear();
  h.sandbox.knobs.clear();
});

const tempCsvFiles = () =>
  readdirSync(scratch).filter((name) => /^edgeops-\d+-[0-9a-f]{16}\.csv$/.test(name));
const DAY_MS = 86_400_000;

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

/** How many entries the sandbox serves for that day, and whether one carries a mention. */
async function expectedDay(pullZoneId: number, dayMs: number) {
  const response = await h.runtime.services.platform.getOriginErrorLogs(pullZoneId, new Date(dayMs));
  let text = '';
  for await (const chunk of response.body) text += (chunk as Buffer).toString('utf8');
  const entries = (JSON.parse(text) as { logs: { log: string }[] }).logs;
  return { total: entries.length, hostile: entries.some((entry) => entry.log.includes('<!channel>')) };
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
    'puts the summary of %s and its CSV in the thread of the headline, escaped as Slack renders it',
    async (word, back) => {
      const dayMs = Math.floor(h.clock() / DAY_MS) * DAY_MS - back * DAY_MS;
      const expected = await expectedDay(308006, dayMs);
      if (expected.total === 0) {
        // Seconds into a day there may be nothing yet: no file goes up.
        const uploads = h.fake.uploads.length;
        await privateReply(`logs 308006 ${word}`);
        expect(h.fake.uploads.length).toBe(uploads);
        return;
      }
      const next = upload(/^origin-errors-308006-/);
      const summary = uniqueMessage((text) => text.includes('Origin errors · pull zone 308006'));
      await h.command(`logs 308006 ${word}`);
      const file = await next;
      // The summary and the file are in the thread of the headline in the channel.
      const threadTs = (await summary).args.thread_ts;
      const headline = h.fake.message(String((await summary).args.channel), String(threadTs));
      expect(JSON.stringify(headline?.blocks)).toContain('origin errors* · pull zone 308006');
      expect(headline?.threadTs).toBeUndefined();
      expect(file.threadTs).toBe(threadTs);
      // A CSV keeps the platform's bytes (only formulas are neutralised)...
      if (expected.hostile) expect(file.bytes.toString('utf8')).toContain('/search?q=<!channel>');
      // ...while everything Slack renders for people arrives escaped: nobody is pinged.
      expect(renderedText(h.fake)).not.toContain('<!channel>');
    },
  );
});

describe('/edge logs', () => {
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
