import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMessageLimits, schemasAvailable, validateBlocks } from '../support/block-kit.js';
import { type Harness, startHarness } from '../support/harness.js';
import { menuOptionsIn } from '../support/menus.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

interface ResponseBody {
  response_type: string;
  replace_original?: boolean;
  text: string;
  blocks: { type: string; elements?: { action_id?: string; value?: string }[] }[];
}

async function reply(text: string, options: { userId?: string; channelId?: string } = {}) {
  const { responseUrl } = await h.command(text, options);
  const post = await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000);
  return post.body as unknown as ResponseBody;
}

const buttons = (body: ResponseBody) =>
  body.blocks.flatMap((block) => (block.type === 'actions' ? (block.elements ?? []) : []));

/**
 * What only Slack shows of the read commands; what their replies say is checked through the
 * engine in test/operations/ (dns, apikeys, shield-enums, audit, help).
 */
describe('read operations through Slack', () => {
  it('replaces the ephemeral message a paging button was on', async () => {
    const first = await reply('apikeys --per-page 5');
    const next = buttons(first).find((b) => b.action_id === 'apikeys:page');
    const responseUrl = h.fake.responseUrl();
    await h.click('apikeys:page', next!.value!, { responseUrl });
    const second = (await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000))
      .body as unknown as ResponseBody;
    expect(second.response_type).toBe('ephemeral');
    expect(second.replace_original).toBe(true);
    expect(JSON.stringify(second.blocks)).toContain('Page 2 of');
  });

  it('escapes hostile values in a zone’s records so nobody is pinged', async () => {
    const list = await reply('dns');
    const recordOptions = menuOptionsIn(list).filter((o) => o.value.startsWith('dns:records '));
    expect(recordOptions.length).toBeGreaterThan(1);
    const texts: string[] = [];
    for (const option of recordOptions) {
      const responseUrl = h.fake.responseUrl();
      await h.pick(option.actionId, option, { responseUrl });
      texts.push(
        JSON.stringify((await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body),
      );
    }
    const all = texts.join('\n');
    // A record's value is a raw_text cell of the table: shown as written, it cannot ping.
    expect(all).toContain('{"type":"raw_text","text":"<!channel>"}');
    const markup = all.replaceAll(/\{"type":"raw_text","text":"(?:[^"\\]|\\.)*"\}/g, '');
    expect(markup).not.toContain('<!channel>');
    expect(markup).not.toMatch(/<@U/);
  });

  it.skipIf(!schemasAvailable)(
    'builds Block Kit that Slack’s schema accepts, inside message limits',
    async () => {
      for (const command of [
        'dns',
        'apikeys',
        'shield enums',
        'whoami',
        'help',
        'audit --verify',
        'nonsense',
      ]) {
        const body = await reply(command);
        expect(validateBlocks(body.blocks), command).toEqual([]);
        expect(checkMessageLimits(body.blocks as never, body.text), command).toEqual([]);
      }
    },
  );

  it('handles a Slack retry of a command only once', async () => {
    const triggerId = `${randomUUID()}.retry`;
    const before = h.sandbox.requests.count('dnszone.list');
    await h.command('dns', { triggerId });
    await h.command('dns', { triggerId, retryNum: 1 });
    await h.fake.waitForResponse(undefined, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.sandbox.requests.count('dnszone.list') - before).toBe(1);
  });
});
