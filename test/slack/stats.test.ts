/**
 * `/edge stats` through the real Bolt app and the fake Slack: the headline in the channel with
 * its next-step button, and in its thread the series as a table, the charts as pictures and the CSV
 * of every series.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';
import { DEFAULT_CHANNEL_ID } from '../support/payloads.js';

const AT = '2026-11-21T14:20:00.000Z';
const CSV = 'stats-308006-20261121T0820Z-20261121T1420Z.csv';

describe('/edge stats in Slack', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.clock.set(AT);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('posts the headline in the channel, and the charts and the CSV in its thread', async () => {
    const channelId = `${DEFAULT_CHANNEL_ID}STATS`;
    const csv = h.fake.waitForUpload((file) => file.filename === CSV, 30_000);
    await h.command('stats 308006', { channelId });
    const thread = await h.fake.waitFor(
      'chat.postMessage',
      (call) =>
        call.args.channel === channelId &&
        JSON.stringify(call.args.blocks).includes('Edge numbers · pull zone'),
      30_000,
    );
    const file = await csv;

    // The headline: the numbers at a glance, and the button to the origin errors of the window.
    const headline = h.fake.message(channelId, String(thread.args.thread_ts));
    expect(headline?.threadTs).toBeUndefined();
    const shown = JSON.stringify(headline?.blocks);
    for (const words of [
      'requests* at the edge',
      'Cache hit rate',
      '5xx share',
      'Worst point',
      'Origin errors for this window',
    ])
      expect(shown).toContain(words);

    // The thread: the series as one table, headers first, the numbers right-aligned raw numbers.
    const tables = (thread.args.blocks as { type: string }[]).filter((block) => block.type === 'table');
    expect(tables).toHaveLength(1);
    const table = tables[0] as unknown as {
      rows: { type: string; text: string }[][];
      column_settings: { align: string }[];
    };
    expect(table.rows).toHaveLength(8);
    expect(table.rows[0]!.map((cell) => cell.text)).toEqual([
      'Hour (UTC)',
      'Requests',
      'Bandwidth (MB)',
      'Cache hit rate %',
      '4xx share %',
      '5xx share %',
      'Origin response ms',
    ]);
    expect(table.rows[2]!.map((cell) => cell.type)).toEqual(['raw_text', ...Array(6).fill('raw_number')]);
    expect(table.column_settings.map((setting) => setting.align)).toEqual([
      'left',
      ...Array(6).fill('right'),
    ]);
    // Three pictures with alt text, then the CSV, all under the headline.
    const pictures = h.fake.uploads.filter(
      (upload) => upload.filename.startsWith('stats-') && upload.filename.endsWith('.png'),
    );
    expect(pictures.map((picture) => picture.filename)).toEqual([
      'stats-requests-308006-20261121T0820Z-20261121T1420Z.png',
      'stats-cache-308006-20261121T0820Z-20261121T1420Z.png',
      'stats-origin-time-308006-20261121T0820Z-20261121T1420Z.png',
    ]);
    for (const picture of pictures) {
      expect(picture.threadTs).toBe(thread.args.thread_ts);
      expect(picture.altText).toMatch(/^Chart: .* 7 points, one per hour/);
    }
    expect(file.channelId).toBe(channelId);
    expect(file.threadTs).toBe(thread.args.thread_ts);
    const rows = parseCsv(file.bytes, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(7);
    expect(Object.keys(rows[0]!)).toContain('cache_hit_rate_percent');
    expect(rows[0]!.timestamp).toBe('2026-11-21T08:00:00.000Z');
  });
});
