/**
 * A channel's defaults as Slack shows them: the answer that took one carries a footer saying so,
 * a context block under the headline everyone in the channel sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';
import { everyoneMayRun } from '../support/policies.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ policyYaml: everyoneMayRun(), progress: { delayMs: 600_000, minGapMs: 3_000 } });
});
afterAll(async () => {
  await h?.close();
});

interface Block {
  type: string;
  elements?: { text?: string }[];
}

describe('a channel’s default pull zone in Slack', () => {
  it('the log headline in the channel says in its footer that the default was used', async () => {
    const { responseUrl } = await h.command('context set pullzone=308006', { channelId: 'C0INCIDENT' });
    const set = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000);
    expect(JSON.stringify(set.body)).toContain('308006');

    await h.command('logs --last 1h', { channelId: 'C0INCIDENT' });
    // On a busy machine a progress message comes first and the headline takes its place: what
    // counts is the top-level message about the zone once the summary is done, whichever it was.
    const headline = () =>
      h.fake.messages.find(
        (message) =>
          message.channel === 'C0INCIDENT' &&
          message.threadTs === undefined &&
          !message.deleted &&
          JSON.stringify(message.blocks ?? []).includes('308006') &&
          (message.blocks as Block[]).at(-1)?.type === 'context',
      );
    await expect.poll(() => headline() !== undefined, { timeout: 20_000 }).toBe(true);
    const blocks = headline()!.blocks as Block[];
    expect(blocks.at(-1)?.elements?.[0]?.text).toBe(
      'Pull zone 308006 is this channel’s default (/edge context).',
    );
    await expect.poll(() => h.runtime.services.jobs.running().length, { timeout: 20_000 }).toBe(0);
  });
});
