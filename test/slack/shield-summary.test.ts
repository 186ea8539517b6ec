/**
 * `/edge shield export` in Slack: the summary and the CSV go in the thread of the headline, and
 * platform text in them arrives escaped. What the summary counts is tested through the engine in
 * test/operations/shield-export-summary.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { renderedText, type UploadedFile } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.faults.clear();
});

/** Runs the export; resolves with the CSV uploaded and the blocks of the message that carries it. */
async function exportWithSummary(command: string): Promise<{ file: UploadedFile; blocks: unknown[] }> {
  const seen = new Set(h.fake.callsTo('chat.postMessage'));
  const earlier = new Set(h.fake.uploads);
  const next = h.fake.waitForUpload(
    (file) => file.filename.startsWith('shield-events-5101-') && !earlier.has(file),
    20_000,
  );
  await h.command(command);
  const file = await next;
  const message = await h.fake.waitFor(
    'chat.postMessage',
    (call) => !seen.has(call) && JSON.stringify(call.args).includes(file.filename),
    10_000,
  );
  // The summary and the CSV are in the thread of the headline posted in the channel.
  expect(message.args.thread_ts).toBeDefined();
  expect(file.threadTs).toBe(message.args.thread_ts);
  const headline = h.fake.message(String(message.args.channel), String(message.args.thread_ts));
  expect(headline?.threadTs).toBeUndefined();
  expect(JSON.stringify(headline?.blocks)).toContain('Shield events* · zone 5101');
  return { file, blocks: message.args.blocks as unknown[] };
}

describe('/edge shield export: the summary beside the CSV', () => {
  it('is posted with its CSV in the thread of the headline, platform text escaped', async () => {
    const { file, blocks } = await exportWithSummary('shield export 5101 --last 2h');
    expect(JSON.stringify(blocks)).toContain(file.filename);
    // Platform text in the summary arrives escaped: nobody is pinged.
    expect(renderedText(h.fake)).not.toContain('<!channel>');
  });
});
