/**
 * Answers the vendor's published schemas allow and no example shows, through the engine: the
 * sandbox serves each one (its vendor-shape knobs), the bot reads it over HTTP, and the person
 * gets a plain answer instead of "could not be read". The bot-detection answers are checked in
 * shield-bot-detection.test.ts beside this file.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { utcDay } from '../support/clock.js';
import {
  answered,
  answers,
  type EngineTestbed,
  filesIn,
  fileText,
  menuOptionsOf,
  type Recorded,
  startEngineTestbed,
} from '../support/engine.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => {
  bed.sandbox.knobs.clear();
});

let channels = 0;

/** Runs `/edge TEXT` in a channel of its own and returns what it recorded and everything shown there. */
async function run(text: string) {
  const channelId = `C0SHAPE${++channels}`;
  const records = await bed.run(text, { channelId });
  return { channelId, records, shown: JSON.stringify(records) };
}

/** What was shown, once it matches. */
function shownMatching(shown: string, pattern: RegExp): string {
  expect(shown).toMatch(pattern);
  return shown;
}

const buttonsOf = (records: readonly Recorded[]) =>
  answers(records)
    .flatMap(menuOptionsOf)
    .filter((option) => option.actionId === 'dns:records');

describe('a DNS zone whose Domain is null', () => {
  it('is listed by its id, and its Records option still finds it and shows its null values', async () => {
    bed.sandbox.knobs.setVendorShapes({ dnsNulls: true });
    const { shown, records: listed } = await run('dns');
    const list = shownMatching(shown, /DNS zones|could not be read/);
    expect(list).not.toContain('could not be read');
    // A table row: the domain cell says there is none, the id is there to find it by.
    expect(list).toContain('["(no domain name)","710001",7,');
    const button = buttonsOf(listed).find((b) => b.text === 'zone 710002');
    expect(button?.value).toBe(JSON.stringify({ id: 710002 }));
    const records = answered(await bed.click({ actionId: 'dns:records', value: button!.value }));
    expect(records).toContain('Records of zone 710002');
    // Names that are null read as the apex, values that are null as nothing.
    expect(records).toMatch(/\["TXT","@","",/);
    // Without a domain to search for, the listing was read without a search term.
    expect(bed.sandbox.requests.last('dnszone.list')?.query).toEqual({
      page: '1',
      perPage: '1000',
      view: '0',
    });
  });

  it('keeps working in the Lite view, where Records is null', async () => {
    bed.sandbox.knobs.setVendorShapes({ dnsNulls: true });
    const { shown } = await run('dns --lite --per-page 5');
    const list = shownMatching(shown, /DNS zones \(11\)|could not be read/);
    expect(list).toContain('["(no domain name)","710005",');
    expect(list).not.toContain('could not be read');
  });
});

describe('a DNS listing whose envelope and zones leave out what the vendor does not require', () => {
  it('lists what there is: a zone by its id, a zone with neither id nor domain, no page count', async () => {
    bed.sandbox.faults.set('dnszone.list', {
      status: 200,
      body: { Items: [{}, { Id: 5, Records: null }] },
      times: 1,
    });
    const { shown, records } = await run('dns');
    const list = shownMatching(shown, /DNS zones|could not be read/);
    expect(list).not.toContain('could not be read');
    expect(list).toContain('["(no domain name)","not given",0,"?","?","?"]');
    expect(list).toContain('["(no domain name)","5",0,"?","?","?"]');
    expect(list).toContain('Page 1.');
    // A zone without an id has no Records option to miss: no note sends anyone looking for it.
    expect(list).not.toContain('The Records menu names');
    expect(buttonsOf(records).map((b) => b.value)).toEqual([JSON.stringify({ id: 5 })]);
  });
});

describe('an origin-log day without a list of entries', () => {
  it.each([
    ['{}', 'no-logs'],
    ['{"logs":null}', 'null-logs'],
  ] as const)('answered %s is reported as a day most likely without errors', async (_body, shape) => {
    bed.sandbox.knobs.setVendorShapes({ originLogBody: shape });
    const { shown, records } = await run('logs 308006');
    const said = shownMatching(shown, /No origin errors|could not be read/);
    expect(said).not.toContain('could not be read');
    expect(said).toContain(
      `No origin errors recorded for pull zone 308006, ${utcDay(bed.clock())}, today so far`,
    );
    expect(answers(records).map((reply) => reply.visibility)).toEqual(['ephemeral']);
    expect(said).toContain(
      'The platform sent no list of entries for that day, which most likely means there were no errors.',
    );
    expect(filesIn(records)).toEqual([]);
  });

  it('answered {"logs":[]} is a day without errors, said without the guess', async () => {
    bed.sandbox.knobs.setVendorShapes({ originLogBody: 'empty-logs' });
    const { shown } = await run('logs 308006');
    const said = shownMatching(shown, /No origin errors|could not be read/);
    expect(said).toContain(
      `No origin errors recorded for pull zone 308006, ${utcDay(bed.clock())}, today so far`,
    );
    expect(said).toContain('No file posted.');
    expect(said).not.toContain('sent no list');
  });
});

describe('origin-log entries that leave out fields the vendor does not require', () => {
  it('are counted and kept in the CSV, and the reply says which have no time', async () => {
    const log = JSON.stringify({ RequestUrl: '/a', ErrorCode: 'http_timeout', StatusCode: 504 });
    const at = bed.clock() - 60_000;
    bed.sandbox.faults.set('logs.origin', {
      status: 200,
      body: {
        logs: [
          { log, labels: { StatusCode: '504', ServerZone: 'DE' } },
          { logId: 'x1', timestamp: at },
        ],
      },
      times: 1,
    });
    const { shown, records } = await run('logs 308006');
    const said = shownMatching(shown, /Origin errors · pull zone 308006|No origin errors|could not be read/);
    expect(said).toContain('1 entry has no timestamp; it is in the counts and the CSV');
    expect(said).toContain('1 entry has a log that is missing or not valid JSON');
    const csv = fileText(
      filesIn(records).find((file) => file.filename.startsWith('origin-errors-308006-'))!,
    ).split('\r\n');
    expect(csv[1]).toBe(',504,http_timeout,DE,/a,,');
    expect(csv[2]).toBe(`${new Date(at).toISOString()},,,,,,x1`);
  });
});

describe('a validation problem with a title and errors but no detail', () => {
  it('shows the field errors', async () => {
    bed.sandbox.knobs.setVendorShapes({ problemWithoutDetail: true });
    const { shown } = await run('shield export 5101 --last 1h --filter ip:cidr:10.0.0.0/33');
    const said = shownMatching(shown, /validation errors/);
    expect(said).toContain('One or more validation errors occurred.');
    expect(said).toContain('filters[0].value[0]: \\"10.0.0.0/33\\" is not an IPv4 or IPv6 CIDR range');
  });
});
