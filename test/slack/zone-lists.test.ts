/**
 * Where a zone list's buttons put their answers in Slack. What the lists say, and what their
 * buttons run, is checked through the engine in test/operations/zone-lists.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';
import { ZONE_LISTS_POLICY } from '../support/policies.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ policyYaml: ZONE_LISTS_POLICY });
});
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  await expect.poll(() => h.runtime.services.jobs.running().length, { timeout: 20_000 }).toBe(0);
});

async function privateAnswer(text: string, userId = 'U0YOU') {
  const { responseUrl } = await h.command(text, { userId, channelId: 'C0OPS' });
  return (await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000)).body;
}

interface Button {
  action_id: string;
  value: string;
  text: { text: string };
}
const buttonsOf = (body: Record<string, unknown>): Button[] =>
  ((body.blocks as { type: string; elements?: Button[] }[]) ?? []).flatMap((block) =>
    block.type === 'actions' ? (block.elements ?? []) : [],
  );

describe('/edge pullzones', () => {
  it('gives the buttons of a block action ids that are unique within it, as Slack requires', async () => {
    const buttons = buttonsOf(await privateAnswer('pullzones www'));
    expect(buttons.map((b) => b.value)).toContain('logs 308006 today');
    expect(new Set(buttons.map((b) => b.action_id)).size).toBe(buttons.length);
  });

  it('a Logs button runs /edge logs for that zone, in the channel it was clicked in', async () => {
    const logs = buttonsOf(await privateAnswer('pullzones www')).find((b) =>
      b.text.text.endsWith(': Logs today'),
    )!;
    const before = h.sandbox.requests.count('logs.origin');
    await h.click(logs.action_id, logs.value, { channelId: 'C0OPS' });
    const file = await h.fake.waitForUpload((f) => f.filename.startsWith('origin-errors-308006-'), 20_000);
    expect(file.channelId).toBe('C0OPS');
    // Today, and yesterday for the comparison with the hours before.
    expect(h.sandbox.requests.count('logs.origin')).toBe(before + 2);
  });
});
