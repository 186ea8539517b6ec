/**
 * Charts as pictures, end to end: `/edge logs` through the real app, the worker that draws the
 * PNG and the fake Slack's three-step upload, and the text chart wherever the picture is not.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_LAYOUT, CHART_SCALE } from '../../src/reports/chart/bucket.js';
import { utcDay } from '../support/clock.js';
import type { UploadedFile } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { DEFAULT_CHANNEL_ID } from '../support/payloads.js';
import { decodePng, inkIn, pngSize } from '../support/png.js';

const AT = '2026-11-21T14:20:00.000Z';
const DAY = utcDay(Date.parse(AT));

let channels = 0;

/**
 * Starts `/edge logs …` in a channel of its own (the same request in one channel within a minute
 * shares the first answer) and gives its summary message and the uploads that follow it.
 */
async function askForLogs(h: Harness, command: string) {
  const channelId = `${DEFAULT_CHANNEL_ID}${++channels}`;
  const seen = new Set(h.fake.callsTo('chat.postMessage'));
  const earlier = new Set(h.fake.uploads);
  const fresh = (file: UploadedFile) => !earlier.has(file);
  const csv = h.fake.waitForUpload((file) => fresh(file) && file.filename.endsWith('.csv'), 30_000);
  await h.command(command, { channelId });
  const summary = await h.fake.waitFor(
    'chat.postMessage',
    (call) => !seen.has(call) && JSON.stringify(call.args).includes('Origin errors · pull zone'),
    30_000,
  );
  const file = await csv;
  // The summary is a reply in the thread of the headline, and the files are in that thread too.
  // (A progress message, when the answer took long enough for one, became the headline.)
  const headline = h.fake.message(String(summary.args.channel), String(summary.args.thread_ts));
  expect(headline?.threadTs).toBeUndefined();
  expect(JSON.stringify(headline?.blocks)).toContain('origin errors* · pull zone');
  expect(file.threadTs).toBe(summary.args.thread_ts);
  return { summary, csv: file, channelId, uploads: () => h.fake.uploads.filter(fresh) };
}

describe('/edge logs in Slack', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.clock.set(AT);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('uploads the chart as a PNG with alt text that matches the entries, beside the summary', async () => {
    const { summary, csv, channelId, uploads } = await askForLogs(h, 'logs 308006 today');
    const picture = uploads().find((file) => file.filename.endsWith('.png'));
    expect(picture?.filename).toBe(`origin-errors-chart-308006-${DAY}.png`);
    // Before the CSV, in the summary's conversation.
    expect(uploads().indexOf(picture!)).toBeLessThan(uploads().indexOf(csv));
    expect(picture!.channelId).toBe(channelId);
    expect(picture!.threadTs).toBe(summary.args.thread_ts);
    expect(picture!.title).toBe('Errors per 15 min (UTC)');

    // A valid PNG, of the size it says, with its words drawn.
    expect(pngSize(picture!.bytes)).toEqual({
      width: CHART_LAYOUT.width * CHART_SCALE,
      height: CHART_LAYOUT.height * CHART_SCALE,
    });
    expect(picture!.length).toBe(picture!.bytes.length);
    const pixels = decodePng(picture!.bytes);
    expect(inkIn(pixels, CHART_LAYOUT.timeLabels)).toBeGreaterThan(100);
    expect(inkIn(pixels, CHART_LAYOUT.countLabels)).toBeGreaterThan(100);

    // The alt text says what the CSV holds: the window, the width, the peak quarter-hour and the total.
    const QUARTERS = 58; // 00:00 to 14:30: the day so far at 14:20, in 15-minute bars
    const perQuarter = new Array<number>(QUARTERS).fill(0);
    for (const row of parseCsv(csv.bytes, { columns: true }) as { timestamp: string }[]) {
      const at = new Date(row.timestamp);
      perQuarter[at.getUTCHours() * 4 + Math.floor(at.getUTCMinutes() / 15)]!++;
    }
    const total = perQuarter.reduce((sum, count) => sum + count, 0);
    const peak = perQuarter.indexOf(Math.max(...perQuarter));
    const hhmm = (quarter: number) =>
      `${String(Math.floor(quarter / 4)).padStart(2, '0')}:${String((quarter % 4) * 15).padStart(2, '0')}`;
    expect(picture!.altText).toContain(
      `${QUARTERS} bars, one per 15 min, from 00:00 to 14:30 UTC on ${DAY}.`,
    );
    expect(picture!.altText).toContain(
      `Peak ${hhmm(peak)}–${hhmm(peak + 1)} UTC with ${perQuarter[peak]!.toLocaleString('en-US')} errors; total ${total.toLocaleString('en-US')} errors.`,
    );
    expect(picture!.altText).toContain('The bar from 14:15 UTC is partial');

    // The message names the picture instead of drawing the text bars.
    const text = JSON.stringify(summary.args.blocks);
    expect(text).toContain('📈 Errors per 15 min (UTC): the picture is attached below.');
    expect(text).not.toContain('█');
  });

  it('shows the text bars in the summary when the picture cannot be uploaded, and still attaches the CSV', async () => {
    // The picture is the first upload of the answer.
    h.fake.fail('upload', { status: 500, error: 'upload failed', times: 1 });
    const errors = h.fake.callsTo('chat.postEphemeral').length;
    const corrected = h.fake.waitFor(
      'chat.update',
      (call) => JSON.stringify(call.args.blocks).includes('Origin errors · pull zone 308006'),
      30_000,
    );
    const { summary, csv, uploads } = await askForLogs(h, 'logs 308006 today');
    expect(JSON.stringify(summary.args.blocks)).toContain('the picture is attached below');
    expect(csv.filename).toBe(`origin-errors-308006-${DAY}.csv`);
    expect(uploads().some((file) => file.filename.endsWith('.png'))).toBe(false);
    const text = JSON.stringify((await corrected).args.blocks);
    expect(text).toContain('*Errors per 15 min (UTC)*');
    expect(text).toMatch(/14:00 [█▏▎▍▌▋▊▉]+ +\d/);
    expect(text).not.toContain('📈');
    expect(text).toContain(`📎 ${csv.filename}`);
    // The text chart is the answer: nobody is told of an error.
    expect(h.fake.callsTo('chat.postEphemeral').length).toBe(errors);
  });
});

describe('/edge logs when the picture cannot be drawn', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ charts: { fontFile: '/nonexistent/fonts/inter.ttf' } });
    h.clock.set(AT);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers with the text bars, the CSV and no picture, and says so only in the log', async () => {
    const { summary, csv, uploads } = await askForLogs(h, 'logs 308006 today');
    expect(csv.filename).toBe(`origin-errors-308006-${DAY}.csv`);
    expect(uploads().map((file) => file.filename)).toEqual([csv.filename]);
    const text = JSON.stringify(summary.args.blocks);
    expect(text).toContain('*Errors per 15 min (UTC)*');
    expect(text).toMatch(/14:00 [█▏▎▍▌▋▊▉]+ +\d/);
    expect(text).not.toMatch(/picture|chart could not|could not be drawn|drawing failed/i);
    expect(
      h.logs.some((line) => line.includes('"level":"warn"') && line.includes('/nonexistent/fonts/inter.ttf')),
    ).toBe(true);
  });
});
