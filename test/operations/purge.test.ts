/**
 * `/edge purge URL…` and `/edge purge zone ID [--tag TAG]` against the sandbox over HTTP: what
 * each URL's host must be, what counts as purge.zone, what an approver reads, and how a failure
 * on the platform is told without hiding the rest or being retried.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  answers,
  buttonsOf,
  type EngineTestbed,
  formIn,
  type Recorded,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: everyoneMayRun({ gated: ['purge.zone'] }) });
});
afterAll(async () => {
  await bed?.close();
});
afterEach(() => {
  bed.sandbox.faults.clear();
});

const YOU = { userId: 'U0YOU', channelId: 'C0OPS' };
const LEAD = { userId: 'U0LEAD', channelId: 'C0APPROVALS' };

/** The URLs the sandbox was asked to purge since `from` (a request count of the route). */
const purgedSince = (from: number) =>
  bed.sandbox.requests
    .byRoute('purge.url')
    .slice(from)
    .map((request) => request.query.url);

const channelAnswer = (records: readonly Recorded[]) => {
  const reply = answers(records).find((answer) => answer.visibility === 'channel');
  if (!reply) throw new Error(`no channel answer: ${records.map((r) => r.kind).join(', ')}`);
  return reply;
};

function cardIn(records: readonly Recorded[]) {
  const card = records.find((record) => record.kind === 'post' && record.channelId === 'C0APPROVALS');
  if (card?.kind !== 'post') throw new Error(`no card: ${records.map((r) => r.kind).join(', ')}`);
  return card.reply;
}

const approveButton = (records: readonly Recorded[]) =>
  buttonsOf(cardIn(records)).find((button) => button.actionId.startsWith('approvals:approve'))!;

describe('purging URLs', () => {
  it('purges each URL as it is, says by whom, and the sandbox records it for the zone serving its host', async () => {
    const calls = bed.sandbox.requests.count('purge.url');
    const recorded = bed.sandbox.purges().length;
    const records = await bed.run(
      'purge https://www.example.com/assets/app.3f9c1a.js https://media.example.com/images/hero.webp',
      YOU,
    );
    const answer = wordsOf(channelAnswer(records));
    expect(answer).toContain('2 URLs purged');
    expect(answer).toContain('<@U0YOU>');
    expect(answer).toContain(':white_check_mark: `https://www.example.com/assets/app.3f9c1a.js` purged');
    expect(answer).toContain(':white_check_mark: `https://media.example.com/images/hero.webp` purged');
    expect(
      bed.sandbox.requests
        .byRoute('purge.url')
        .slice(calls)
        .map((r) => r.query),
    ).toEqual([
      { url: 'https://www.example.com/assets/app.3f9c1a.js', exactPath: 'true' },
      { url: 'https://media.example.com/images/hero.webp', exactPath: 'true' },
    ]);
    expect(bed.sandbox.purges().slice(recorded)).toEqual([
      expect.objectContaining({
        pullZoneId: bed.sandbox.ids.pullZone,
        url: 'https://www.example.com/assets/app.3f9c1a.js',
      }),
      expect.objectContaining({
        pullZoneId: bed.sandbox.ids.mediaPullZone,
        url: 'https://media.example.com/images/hero.webp',
      }),
    ]);
  });

  it('refuses a URL whose host no pull zone serves, naming the close hostnames, and purges the others', async () => {
    const calls = bed.sandbox.requests.count('purge.url');
    const records = await bed.run(
      'purge https://www.exmaple.com/index.html https://www.example.com/index.html',
      YOU,
    );
    expect(purgedSince(calls)).toEqual(['https://www.example.com/index.html']);
    const answer = wordsOf(channelAnswer(records));
    expect(answer).toContain('1 URL purged');
    expect(answer).toContain('`https://www.exmaple.com/index.html` refused');
    expect(answer).toMatch(/Close: www\.example\.com[,.]/);
  });

  it('purges nothing when no URL is served here, and says so to the requester alone', async () => {
    const calls = bed.sandbox.requests.count('purge.url');
    const records = await bed.run('purge https://evil.example.org/a.js', YOU);
    expect(purgedSince(calls)).toEqual([]);
    const reply = answers(records)[0]!;
    expect(reply.visibility).toBe('ephemeral');
    expect(wordsOf(reply)).toContain('Nothing was purged');
    expect(wordsOf(reply)).toContain('no pull zone of this account has the hostname evil.example.org');
  });

  it('refuses more than 20 URLs, and any that is not a whole http(s) URL, before purging anything', async () => {
    const calls = bed.sandbox.requests.count('purge.url');
    const many = Array.from({ length: 21 }, (_, i) => `https://www.example.com/file-${i}.js`).join(' ');
    expect(wordsOf(answers(await bed.run(`purge ${many}`, YOU))[0]!)).toContain(
      'a purge takes at most 20 URLs and 21 were given',
    );
    expect(wordsOf(answers(await bed.run('purge ftp://www.example.com/a.js', YOU))[0]!)).toContain(
      'is not an http or https URL',
    );
    expect(wordsOf(answers(await bed.run('purge /index.html', YOU))[0]!)).toContain(
      'is a path, not a whole URL: give its hostname too, e.g. https://www.example.com/index.html',
    );
    expect(bed.sandbox.requests.count('purge.url')).toBe(calls);
  });

  it('a failure on one URL does not hide the others, and no purge is sent twice', async () => {
    bed.sandbox.faults.set('purge.url', { status: 500, after: 1, times: 1 });
    const calls = bed.sandbox.requests.count('purge.url');
    const records = await bed.run(
      'purge https://www.example.com/a.js https://www.example.com/b.js https://www.example.com/c.js',
      YOU,
    );
    expect(bed.sandbox.requests.count('purge.url')).toBe(calls + 3);
    const answer = channelAnswer(records);
    expect(wordsOf(answer)).toContain('2 of 3 URLs purged');
    expect(wordsOf(answer).match(/:white_check_mark:/g)).toHaveLength(2);
    expect(wordsOf(answer).match(/:x: `https:\/\/www\.example\.com\/[abc]\.js` not purged: /g)).toHaveLength(
      1,
    );
  });

  it('a write that fails everywhere is answered URL by URL, audited as failed, and not retried', async () => {
    bed.sandbox.faults.set('purge.url', { status: 503 });
    const calls = bed.sandbox.requests.count('purge.url');
    const records = await bed.run('purge https://www.example.com/x.js https://www.example.com/y.js', YOU);
    expect(bed.sandbox.requests.count('purge.url')).toBe(calls + 2);
    const answer = channelAnswer(records);
    expect(wordsOf(answer)).toContain('0 of 2 URLs purged');
    expect(wordsOf(answer).match(/not purged/g)).toHaveLength(2);
    const rows = await bed.runtime.services.state.client.execute(
      "SELECT outcome FROM audit_log WHERE operation = 'purge.url' ORDER BY id DESC LIMIT 1",
    );
    expect(rows.rows[0]!.outcome).toBe('failed');
  });
});

describe('what purges more than itself counts as purge.zone', () => {
  it.each([
    ['a *', 'https://www.example.com/assets/*'],
    ['a path ending in /', 'https://www.example.com/assets/'],
    ['an escaped *', 'https://www.example.com/assets/%2a.js'],
    ['a path ending in an escaped /', 'https://www.example.com/assets%2F'],
    ['a path ending in an escaped /..', 'https://www.example.com/assets/app.js%2F%2E%2E'],
  ])('a URL with %s waits for purge.zone’s approval, then is purged once', async (_what, url) => {
    const calls = bed.sandbox.requests.count('purge.url');
    const asked = await bed.run(`purge ${url} https://www.example.com/index.html`, YOU);
    expect(purgedSince(calls)).toEqual([]);
    const card = wordsOf(cardIn(asked));
    expect(card).toContain(url);
    expect(card).toContain('https://www.example.com/index.html');
    const note = answers(asked).at(-1)!;
    expect(wordsOf(note)).toContain('Approval requested');
    expect(wordsOf(note)).toContain('counts as purge.zone');
    const approved = await bed.click(approveButton(asked), LEAD);
    expect(purgedSince(calls).sort()).toEqual([url, 'https://www.example.com/index.html'].sort());
    const done = approved.find((record) => record.kind === 'post' && record.channelId === 'C0OPS');
    expect(done?.kind === 'post' && wordsOf(done.reply)).toContain('2 of 2 accepted by the platform');
  });
});

describe('purging a zone', () => {
  it('asks for approval on a card that names the zone, its hostnames, its origin and the tag', async () => {
    const calls = bed.sandbox.requests.count('pullzone.purgeCache');
    const asked = await bed.run('purge zone 308006 --tag product-42', YOU);
    expect(bed.sandbox.requests.count('pullzone.purgeCache')).toBe(calls);
    const card = wordsOf(cardIn(asked));
    expect(card).toContain('308006 · www-example');
    expect(card).toContain('www-example.b-cdn.net, www.example.com');
    expect(card).toContain('https://origin.www-example.example.com');
    expect(card).toContain('product-42');
    const approved = await bed.click(approveButton(asked), LEAD);
    expect(bed.sandbox.requests.count('pullzone.purgeCache')).toBe(calls + 1);
    expect(bed.sandbox.requests.last('pullzone.purgeCache')!.body).toEqual({ CacheTag: 'product-42' });
    expect(bed.sandbox.purges().at(-1)).toEqual(
      expect.objectContaining({ pullZoneId: 308006, cacheTag: 'product-42' }),
    );
    const done = approved.find((record) => record.kind === 'post' && record.channelId === 'C0OPS');
    expect(done?.kind === 'post' && wordsOf(done.reply)).toContain('asked by');
  });

  it('says on the card what a full purge does to the origin', async () => {
    const asked = await bed.run('purge zone 410113', YOU);
    const card = wordsOf(cardIn(asked));
    expect(card).toContain(
      'every cached object of this zone is fetched from the origin again; expect a burst of origin traffic',
    );
    expect(card).toContain('everything: the whole cache of the zone');
    await bed.run(`approvals cancel ${/ap_[0-9a-f]{16}/.exec(card)![0]}`, YOU);
  });

  it.each(['1e3', '0x10', '308006.0'])(
    'refuses the zone id %s, which a looser reading would take for another zone, before anyone is asked',
    async (id) => {
      const before = bed.sandbox.requests.count('pullzone.get');
      const asked = await bed.run(`purge zone ${id}`, YOU);
      expect(asked.some((record) => record.kind === 'post')).toBe(false);
      expect(wordsOf(answers(asked)[0]!)).toContain(
        'the pull zone id must be a number in digits, e.g. 308006',
      );
      expect(bed.sandbox.requests.count('pullzone.get')).toBe(before);
    },
  );

  it('refuses a zone the platform does not know before anyone is asked', async () => {
    const asked = await bed.run('purge zone 999999', YOU);
    expect(asked.some((record) => record.kind === 'post')).toBe(false);
    expect(wordsOf(answers(asked)[0]!)).toContain('No pull zone 999999 was found on the platform');
    expect(wordsOf(answers(asked)[0]!)).toContain('/edge pullzones');
  });
});

describe('the Purge… button of an origin-log summary', () => {
  it('opens the form with the top URLs made whole on the zone’s custom hostname, and purges on the one picked', async () => {
    const records = await bed.run('logs 308006', YOU);
    const headline = answers(records).find((reply) => reply.visibility === 'channel')!;
    // Below the top URLs, in their message of the thread.
    const topUrls = headline.thread!.find((reply) => wordsOf(reply).includes('*Top URLs*'))!;
    const purge = buttonsOf(topUrls).find((button) => button.text === 'Purge…');
    expect(purge).toBeDefined();
    const form = formIn(await bed.click(purge!, YOU));
    const urls = form.fields.find((field) => field.id === 'urls')!;
    const host = form.fields.find((field) => field.id === 'host')!;
    expect(host.kind === 'select' && host.initial).toBe('www.example.com');
    expect(host.kind === 'select' && host.options.map((option) => option.value)).toEqual([
      'www-example.b-cdn.net',
      'www.example.com',
    ]);
    const lines = String(urls.initial).split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line).toMatch(/^https:\/\/www\.example\.com\//);
    expect(lines).toContain('https://www.example.com/index.html');

    const calls = bed.sandbox.requests.count('purge.url');
    const outcome = await bed.submit(
      form,
      { host: 'www-example.b-cdn.net', urls: 'https://www.example.com/index.html\n/api/v1/cart' },
      YOU,
    );
    if ('errors' in outcome) throw new Error(JSON.stringify(outcome.errors));
    expect(purgedSince(calls)).toEqual([
      'https://www-example.b-cdn.net/index.html',
      'https://www-example.b-cdn.net/api/v1/cart',
    ]);
  });

  it('refuses in the form what the command would refuse, saying what to type', async () => {
    const form = formIn(await bed.run('purge', YOU));
    const refused = await bed.submit(form, { urls: 'ftp://www.example.com/a.js' }, YOU);
    expect('errors' in refused && refused.errors.urls).toContain('e.g. https://www.example.com/');
    const empty = await bed.submit(form, { urls: ' ' }, YOU);
    expect('errors' in empty && empty.errors.urls).toContain('Give at least one URL');
  });
});

describe('without a policy file', () => {
  it('purges URLs at once, and refuses a zone purge, or a URL with *, for want of approvers', async () => {
    const plain = await startEngineTestbed();
    try {
      const urls = plain.sandbox.requests.count('purge.url');
      await plain.run('purge https://www.example.com/index.html', YOU);
      expect(plain.sandbox.requests.count('purge.url')).toBe(urls + 1);
      for (const command of ['purge zone 308006', 'purge https://www.example.com/assets/*']) {
        const refused = wordsOf(answers(await plain.run(command, YOU)).at(-1)!);
        expect(refused).toContain('purge.zone');
        expect(refused).toMatch(/approv/i);
      }
      expect(plain.sandbox.requests.count('purge.url')).toBe(urls + 1);
      expect(plain.sandbox.requests.count('pullzone.purgeCache')).toBe(0);
    } finally {
      await plain.close();
    }
  });
});
