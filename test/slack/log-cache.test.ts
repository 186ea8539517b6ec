/**
 * Asking `/edge logs` again through the Bolt app and the fake Slack: the second answer is posted
 * like the first, from the origin-log days kept on disk, without a platform call; today's copy is
 * fetched again once it is older than a minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UploadedFile } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';

describe('a repeated /edge logs ID --last 1h', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ progress: { delayMs: 600_000, minGapMs: 3_000 } });
    h.clock.set('2026-11-21T14:20:00.000Z');
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Asks in a channel of its own (so no answer is shared) and waits for the CSV in its thread. */
  async function ask(channelId: string): Promise<UploadedFile> {
    await h.command('logs 308006 --last 1h', { channelId, userId: 'U0ONCALL' });
    return (await h.fake.waitForUpload(
      (file) => file.channelId === channelId && file.filename.endsWith('.csv'),
      30_000,
    )) as UploadedFile;
  }

  it('is answered again in full, with no second call to the platform', async () => {
    const first = await ask('C0CACHE1');
    const calls = h.sandbox.requests.count('logs.origin');
    expect(calls).toBe(2);

    h.clock.advance(30_000);
    const second = await ask('C0CACHE2');
    expect(h.sandbox.requests.count('logs.origin')).toBe(calls);
    const headlines = h.fake
      .callsTo('chat.postMessage')
      .filter((call) => call.args.channel === 'C0CACHE2' && call.args.thread_ts === undefined);
    expect(headlines).toHaveLength(1);
    expect(JSON.stringify(headlines[0]!.args.blocks)).toContain('origin errors* · pull zone 308006');
    expect(second.filename).toBe(first.filename);
  });

  it('reads today again once its kept copy is older than a minute, and the day before not at all', async () => {
    await ask('C0CACHE3');
    const calls = h.sandbox.requests.count('logs.origin');
    h.clock.advance(61_000);
    await ask('C0CACHE4');
    // Today may have grown: fetched again. Yesterday is over: still the kept copy.
    expect(h.sandbox.requests.count('logs.origin')).toBe(calls + 1);
    expect(h.sandbox.requests.last('logs.origin')?.path).toContain('11-21-2026');
  });
});
