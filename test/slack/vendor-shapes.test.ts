/**
 * Answers the vendor's published schemas allow and no example shows, end to end: the sandbox
 * serves each one (its vendor-shape knobs), the bot reads it over HTTP, and the person in Slack
 * gets a plain answer instead of "could not be read". The bot-detection answers are checked
 * through the engine in test/operations/shield-bot-detection.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { utcDay } from '../support/clock.js';
import { type Harness, startHarness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.knobs.clear();
});

let channels = 0;

/** Runs `/edge TEXT` in a channel of its own and returns a reader of everything shown there. */
async function run(text: string) {
  const channelId = `C0SHAPE${++channels}`;
  const { responseUrl, triggerId } = await h.command(text, { channelId });
  const shown = () => {
    const payloads: unknown[] = [];
    for (const post of h.fake.responses) if (responseUrl.endsWith(`/${post.id}`)) payloads.push(post.body);
    for (const call of h.fake.calls) if (call.args.channel === channelId) payloads.push(call.args);
    return JSON.stringify(payloads);
  };
  return { channelId, triggerId, shown };
}

/** Polls what was shown until it matches, and returns it. */
async function shownMatching(shown: () => string, pattern: RegExp): Promise<string> {
  await expect.poll(shown, { timeout: 15_000 }).toMatch(pattern);
  return shown();
}

const buttonsOf = (text: string) =>
  [...text.matchAll(/"action_id":"(dns:records#\d+)","value":"((?:[^"\\]|\\.)*)"/g)].map((match) => ({
    actionId: match[1]!,
    value: JSON.parse(`"${match[2]}"`) as string,
  }));

describe('a DNS zone whose Domain is null', () => {
  it('is listed by its id, and its Records button still finds it and shows its null values', async () => {
    h.sandbox.knobs.setVendorShapes({ dnsNulls: true });
    const { shown } = await run('dns');
    const list = await shownMatching(shown, /DNS zones|could not be read/);
    expect(list).not.toContain('could not be read');
    expect(list).toContain('*zone 710001* (no domain name)');
    expect(list).toContain('Records · zone 710002');

    const button = buttonsOf(list).find((b) => b.actionId === 'dns:records#710002');
    expect(button?.value).toBe(JSON.stringify({ id: 710002 }));
    const responseUrl = h.fake.responseUrl();
    await h.click('dns:records', button!.value, { responseUrl });
    const records = JSON.stringify(
      (await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000)).body,
    );
    expect(records).toContain('Records of zone 710002');
    // Names that are null read as the apex, values that are null as nothing.
    expect(records).toMatch(/\\nTXT +@ /);
    // Without a domain to search for, the listing was read without a search term.
    expect(h.sandbox.requests.last('dnszone.list')?.query).toEqual({ page: '1', perPage: '1000', view: '0' });
  });

  it('keeps working in the Lite view, where Records is null', async () => {
    h.sandbox.knobs.setVendorShapes({ dnsNulls: true });
    const { shown } = await run('dns --lite --per-page 5');
    const list = await shownMatching(shown, /DNS zones \(11\)|could not be read/);
    expect(list).toContain('*zone 710005* (no domain name)');
    expect(list).not.toContain('could not be read');
  });
});

describe('a DNS listing whose envelope and zones leave out what the vendor does not require', () => {
  it('lists what there is: a zone by its id, a zone with neither id nor domain, no page count', async () => {
    h.sandbox.faults.set('dnszone.list', {
      status: 200,
      body: { Items: [{}, { Id: 5, Records: null }] },
      times: 1,
    });
    const { shown } = await run('dns');
    const list = await shownMatching(shown, /DNS zones|could not be read/);
    expect(list).not.toContain('could not be read');
    expect(list).toContain('*a zone without domain or id* · 0 records · nameservers detected: ?');
    expect(list).toContain('*zone 5* (no domain name) · 0 records');
    expect(list).toContain('Page 1.');
    expect(buttonsOf(list).map((b) => b.actionId)).toEqual(['dns:records#5']);
  });
});

describe('an origin-log day without a list of entries', () => {
  it.each([
    ['{}', 'no-logs'],
    ['{"logs":null}', 'null-logs'],
  ] as const)('answered %s is reported as a day most likely without errors', async (_body, shape) => {
    h.sandbox.knobs.setVendorShapes({ originLogBody: shape });
    const uploads = h.fake.uploads.length;
    const { shown } = await run('logs 308006');
    const said = await shownMatching(shown, /No origin errors|could not be read/);
    expect(said).not.toContain('could not be read');
    expect(said).toContain(
      `No origin errors recorded for pull zone 308006, ${utcDay(h.clock())}, today so far`,
    );
    expect(said).toContain('"response_type":"ephemeral"');
    expect(said).toContain(
      'The platform sent no list of entries for that day, which most likely means there were no errors.',
    );
    expect(h.fake.uploads.length).toBe(uploads);
  });

  it('answered {"logs":[]} is a day without errors, said without the guess', async () => {
    h.sandbox.knobs.setVendorShapes({ originLogBody: 'empty-logs' });
    const { shown } = await run('logs 308006');
    const said = await shownMatching(shown, /No origin errors|could not be read/);
    expect(said).toContain(
      `No origin errors recorded for pull zone 308006, ${utcDay(h.clock())}, today so far`,
    );
    expect(said).toContain('No file posted.');
    expect(said).not.toContain('sent no list');
  });
});

describe('origin-log entries that leave out fields the vendor does not require', () => {
  it('are counted and kept in the CSV, and the reply says which have no time', async () => {
    const log = JSON.stringify({ RequestUrl: '/a', ErrorCode: 'http_timeout', StatusCode: 504 });
    const at = h.clock() - 60_000;
    h.sandbox.faults.set('logs.origin', {
      status: 200,
      body: {
        logs: [
          { log, labels: { StatusCode: '504', ServerZone: 'DE' } },
          { logId: 'x1', timestamp: at },
        ],
      },
      times: 1,
    });
    const next = h.fake.waitForUpload((file) => file.filename.startsWith('origin-errors-308006-'), 20_000);
    const { shown } = await run('logs 308006');
    const said = await shownMatching(
      shown,
      /Origin errors · pull zone 308006|No origin errors|could not be read/,
    );
    expect(said).toContain('1 entry has no timestamp; it is in the counts and the CSV');
    expect(said).toContain('1 entry has a log that is missing or not valid JSON');
    const csv = (await next).bytes.toString('utf8').split('\r\n');
    expect(csv[1]).toBe(',504,http_timeout,DE,/a,,');
    expect(csv[2]).toBe(`${new Date(at).toISOString()},,,,,,x1`);
  });
});

describe('a validation problem with a title and errors but no detail', () => {
  it('shows the field errors', async () => {
    h.sandbox.knobs.setVendorShapes({ problemWithoutDetail: true });
    const { shown } = await run('shield export 5101 --last 1h --filter ip:cidr:10.0.0.0/33');
    const said = await shownMatching(shown, /validation errors/);
    expect(said).toContain('One or more validation errors occurred.');
    expect(said).toContain('filters[0].value[0]: \\"10.0.0.0/33\\" is not an IPv4 or IPv6 CIDR range');
  });
});
