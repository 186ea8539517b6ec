import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMessageLimits, schemasAvailable, validateBlocks } from '../support/block-kit.js';
import { type Harness, startHarness } from '../support/harness.js';

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

describe('read operations through Slack', () => {
  it('lists API keys masked, never in full', async () => {
    const body = await reply('apikeys --per-page 5');
    const text = JSON.stringify(body);
    expect(text).toContain(`${h.sandbox.apiKey.slice(0, 4)}…${h.sandbox.apiKey.slice(-4)}`);
    expect(text).not.toContain(h.sandbox.apiKey);
    expect(body.response_type).toBe('ephemeral');
  });

  it('pages API keys with Next and Previous buttons that replace the ephemeral message', async () => {
    const first = await reply('apikeys --per-page 5');
    const next = buttons(first).find((b) => b.action_id === 'apikeys:page');
    expect(next?.value).toBe(JSON.stringify({ page: 2, perPage: 5 }));
    const responseUrl = h.fake.responseUrl();
    await h.click('apikeys:page', next!.value!, { responseUrl });
    const second = (await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000))
      .body as unknown as ResponseBody;
    expect(second.replace_original).toBe(true);
    expect(JSON.stringify(second.blocks)).toContain('Page 2 of');
    expect(buttons(second).map((b) => b.value)).toContain(JSON.stringify({ page: 1, perPage: 5 }));
  });

  it('shows a zone’s records with type names, escaping hostile values so nobody is pinged', async () => {
    const list = await reply('dns');
    const recordButtons = buttons(list).filter((b) => b.action_id?.startsWith('dns:records#'));
    expect(recordButtons.length).toBeGreaterThan(1);
    const texts: string[] = [];
    for (const button of recordButtons) {
      const responseUrl = h.fake.responseUrl();
      await h.click('dns:records', button.value!, { responseUrl });
      texts.push(
        JSON.stringify((await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body),
      );
    }
    const all = texts.join('\n');
    for (const name of ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'CAA'])
      expect(all).toMatch(new RegExp(`\\\\n${name} `));
    expect(all).toContain('&lt;!channel&gt;');
    expect(all).not.toContain('<!channel>');
    expect(all).not.toMatch(/<@U/);
  });

  it('searches DNS zones and uses the Lite view with --lite', async () => {
    const body = await reply('dns example --lite --per-page 5');
    expect(JSON.stringify(body.blocks)).toContain('matching \\"example\\"');
    const request = h.sandbox.requests.last('dnszone.list');
    expect(request?.query).toMatchObject({ search: 'example', view: '1', perPage: '5', page: '1' });
  });

  it('caches the WAF enums for 10 minutes', async () => {
    const before = h.sandbox.requests.count('shield.wafEnums');
    await reply('shield enums');
    await reply('shield enums Operator');
    expect(h.sandbox.requests.count('shield.wafEnums') - before).toBeLessThanOrEqual(1);
  });

  it('gives the usage line and a specific error for a bad argument, without calling the platform', async () => {
    const before = h.sandbox.requests.count('dnszone.list');
    const body = await reply('dns --per-page 2');
    expect(body.text).toContain('--per-page must be between 5 and 1000');
    expect(JSON.stringify(body.blocks)).toContain('/edge dns [SEARCH]');
    const unknown = await reply('dns --colour red');
    expect(unknown.text).toContain('unknown flag --colour');
    const typo = await reply('dnz');
    expect(typo.text).toContain('did you mean \\"dns\\"'.replace(/\\/g, ''));
    expect(h.sandbox.requests.count('dnszone.list')).toBe(before);
  });

  it('points at PLATFORM_API_KEY when the platform refuses the key', async () => {
    h.sandbox.faults.set('apikey.list', { status: 401, times: 1 });
    const body = await reply('apikeys');
    expect(body.text).toContain('PLATFORM_API_KEY');
  });

  it('retries a failing read and then reports it with a correlation id that is in the log', async () => {
    h.sandbox.faults.set('dnszone.list', { status: 503, times: 3 });
    const before = h.sandbox.requests.count('dnszone.list');
    const body = await reply('dns');
    expect(h.sandbox.requests.count('dnszone.list') - before).toBe(3);
    const id = /correlation id (c-[0-9a-f]+)/.exec(body.text)?.[1];
    expect(id).toBeDefined();
    expect(h.logs.some((line) => line.includes(id!))).toBe(true);
  });

  it('recovers when a read fails twice and then succeeds', async () => {
    h.sandbox.faults.set('dnszone.list', { status: 500, times: 2 });
    const body = await reply('dns');
    expect(body.text).toMatch(/DNS zones/);
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

  it('writes an audit row for each command and the chain verifies', async () => {
    const body = await reply('audit --limit 5 --verify');
    expect(JSON.stringify(body.blocks)).toContain('The hash chain verifies');
    const rows = await h.runtime.services.audit.list({ limit: 100 });
    expect(rows.some((row) => row.operation === 'dns.list' && row.outcome === 'succeeded')).toBe(true);
    expect(rows.some((row) => row.operation === 'dns.list' && row.outcome === 'failed')).toBe(true);
  });
});
