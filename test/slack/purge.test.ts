/**
 * `/edge purge` through the Bolt app and the fake Slack: a purge of URLs answered in the channel
 * with one refused for its host, a zone purge that waits for the approver's click, and a URL with
 * `*` gated as purge.zone. What each answer says in full is checked in test/operations/purge.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMessageLimits, validateBlocks } from '../support/block-kit.js';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { everyoneMayRun } from '../support/policies.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ policyYaml: everyoneMayRun({ gated: ['purge.zone'] }) });
});
afterAll(async () => {
  await h?.close();
});

const YOU = { userId: 'U0YOU', channelId: 'C0OPS' };
const LEAD = { userId: 'U0LEAD', channelId: 'C0APPROVALS' };

const textOf = (call: RecordedCall) => JSON.stringify([call.args.text, call.args.blocks]);

/** What the command's response URL received, in order, once `count` posts have come. */
async function responsesTo(responseUrl: string) {
  await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 5_000);
  return h.fake.responses.filter((post) => responseUrl.endsWith(post.id)).map((post) => post.body);
}

async function cardAbout(words: string): Promise<{ id: string; text: string }> {
  const card = await h.fake.waitFor(
    'chat.postMessage',
    (call) => call.args.channel === 'C0APPROVALS' && textOf(call).includes(words),
    5_000,
  );
  return { id: /ap_[0-9a-f]{16}/.exec(textOf(card))![0], text: textOf(card) };
}

describe('/edge purge in Slack', () => {
  it('purges the URLs served here in the channel, and refuses one for its host with close hostnames', async () => {
    const calls = h.sandbox.requests.count('purge.url');
    await h.command('purge https://www.example.com/index.html https://www.exmaple.com/index.html', YOU);
    const answer = await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === 'C0OPS' && textOf(call).includes('1 URL purged'),
      5_000,
    );
    const words = textOf(answer);
    expect(words).toContain('<@U0YOU>');
    expect(words).toContain('https://www.exmaple.com/index.html');
    expect(words).toContain('Close: www.example.com');
    expect(validateBlocks(answer.args.blocks)).toEqual([]);
    expect(checkMessageLimits(answer.args.blocks as never, String(answer.args.text))).toEqual([]);
    expect(
      h.sandbox.requests
        .byRoute('purge.url')
        .slice(calls)
        .map((r) => r.query.url),
    ).toEqual(['https://www.example.com/index.html']);
  });

  it('purges a zone only once an approver clicks Approve on a card naming it', async () => {
    const calls = h.sandbox.requests.count('pullzone.purgeCache');
    await h.command('purge zone 308006', YOU);
    const card = await cardAbout('pull zone 308006');
    expect(card.text).toContain('www-example');
    expect(card.text).toContain('expect a burst of origin traffic');
    expect(h.sandbox.requests.count('pullzone.purgeCache')).toBe(calls);
    await h.click('approvals:approve', card.id, LEAD);
    const done = await h.fake.waitFor(
      'chat.postMessage',
      (call) =>
        call.args.channel === 'C0OPS' && textOf(call).includes('Purge the whole cache of pull zone 308006'),
      5_000,
    );
    expect(textOf(done)).toContain(card.id);
    expect(h.sandbox.requests.count('pullzone.purgeCache')).toBe(calls + 1);
  });

  it('holds a URL with * for purge.zone’s approval, purging nothing until then', async () => {
    const calls = h.sandbox.requests.count('purge.url');
    const { responseUrl } = await h.command('purge https://www.example.com/assets/*', YOU);
    const card = await cardAbout('https://www.example.com/assets/*');
    const [note] = await responsesTo(responseUrl);
    expect(JSON.stringify(note)).toContain('counts as purge.zone');
    expect(h.sandbox.requests.count('purge.url')).toBe(calls);
    await h.click('approvals:approve', card.id, LEAD);
    await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === 'C0OPS' && textOf(call).includes('https://www.example.com/assets/*'),
      5_000,
    );
    expect(
      h.sandbox.requests
        .byRoute('purge.url')
        .slice(calls)
        .map((r) => r.query.url),
    ).toEqual(['https://www.example.com/assets/*']);
  });
});
