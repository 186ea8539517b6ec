/**
 * A read an approval rule names, through Slack: the slash command files a card and runs
 * nothing; the approver's click runs it as the requester, and Slack receives the answer where
 * it would have gone (the channel, with its thread and file) or, for a private one, the
 * requester's DM.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { everyoneMayRun } from '../support/policies.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    policyYaml: everyoneMayRun({ gated: ['logs.origin', 'apikey.list'] }),
    // No progress message, however slow the machine: the answer is the first message posted.
    progress: { delayMs: 600_000, minGapMs: 3_000 },
  });
});
afterAll(async () => {
  await h?.close();
});

const textOf = (call: RecordedCall) => JSON.stringify([call.args.text, call.args.blocks]);

/** The card a request posted in the approvals channel, and its id. */
async function cardAbout(words: string): Promise<string> {
  const card = await h.fake.waitFor(
    'chat.postMessage',
    (call) => call.args.channel === 'C0APPROVALS' && textOf(call).includes(words),
  );
  return /ap_[0-9a-f]{16}/.exec(textOf(card))![0];
}

describe('a read an approval rule names, asked in Slack', () => {
  it('posts its answer and file in the channel it was asked in, once approved', async () => {
    const calls = h.sandbox.requests.count('logs.origin');
    await h.command('logs 308006 --last 1h', { userId: 'U0YOU', channelId: 'C0OPS' });
    const id = await cardAbout('/edge logs 308006 --last 1h');
    expect(h.sandbox.requests.count('logs.origin')).toBe(calls);
    expect(h.fake.callsTo('chat.postMessage').some((call) => call.args.channel === 'C0OPS')).toBe(false);

    await h.click('approvals:approve', id, { userId: 'U0LEAD', channelId: 'C0APPROVALS' });
    const headline = await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === 'C0OPS' && textOf(call).includes('308006'),
    );
    expect(textOf(headline)).toContain('<@U0YOU>');
    const file = await h.fake.waitForUpload((upload) => upload.filename.startsWith('origin-errors-308006'));
    expect(file.channels).toContain('C0OPS');
    expect(h.sandbox.requests.count('logs.origin')).toBeGreaterThan(calls);
  });

  it('sends a private answer to the requester’s DM, since the moment of asking has passed', async () => {
    const calls = h.sandbox.requests.count('apikey.list');
    await h.command('apikeys', { userId: 'U0YOU', channelId: 'C0OPS' });
    const id = await cardAbout('/edge apikeys');
    expect(h.sandbox.requests.count('apikey.list')).toBe(calls);
    await h.click('approvals:approve', id, { userId: 'U0LEAD', channelId: 'C0APPROVALS' });
    const dm = await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === h.fake.dmChannelFor('U0YOU') && textOf(call).includes('API key'),
    );
    expect(textOf(dm)).toContain(id);
    expect(h.sandbox.requests.count('apikey.list')).toBe(calls + 1);
  });
});
