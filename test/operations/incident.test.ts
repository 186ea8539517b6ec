/**
 * The incident room's reports through the engine: `/edge logs` of a day and `/edge shield export`,
 * at each pinned instant, checked against what the sandbox serves, with the CSV they carry and no
 * temporary file left behind. Threads, escaping as Slack renders it, progress and upload retries
 * are in test/slack/incident.test.ts.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReplyFile } from '../../src/reply/model.js';
import { PINNED_INSTANTS, utcDay } from '../support/clock.js';
import {
  answered,
  answers,
  type EngineTestbed,
  filesIn,
  fileText,
  formIn,
  headlineIn,
  postsIn,
  type Recorded,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';

let bed: EngineTestbed;
let scratch: string;
const previousTmp = process.env.TMPDIR;
beforeAll(async () => {
  // Temporary CSV files of this file's runs only, so the no-leftover checks see nothing else.
  scratch = mkdtempSync(join(tmpdir(), 'edgeops-incident-'));
  process.env.TMPDIR = scratch;
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
  if (previousTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmp;
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  bed.sandbox.faults.clear();
  bed.sandbox.knobs.clear();
});

const tempCsvFiles = () =>
  readdirSync(scratch).filter((name) => /^edgeops-\d+-[0-9a-f]{16}\.csv$/.test(name));
const DAY_MS = 86_400_000;
let dateChannels = 0;

/** The one file the records delivered whose name matches. */
function fileNamed(records: readonly Recorded[], name: RegExp): ReplyFile {
  const found = filesIn(records).filter((file) => name.test(file.filename));
  if (found.length !== 1) throw new Error(`expected one file named ${name}, got ${found.length}`);
  return found[0]!;
}

const privateReply = async (text: string) => answered(await bed.run(text));

/** What the sandbox serves for that day, counted the plain way, to check the summary against. */
async function expectedDay(pullZoneId: number, dayMs: number) {
  const response = await bed.runtime.services.platform.getOriginErrorLogs(pullZoneId, new Date(dayMs));
  let text = '';
  for await (const chunk of response.body) text += (chunk as Buffer).toString('utf8');
  const entries = (JSON.parse(text) as { logs: { labels: Record<string, string>; log: string }[] }).logs;
  let malformed = 0;
  const byStatus = new Map<string, number>();
  for (const entry of entries) {
    try {
      JSON.parse(entry.log);
    } catch {
      malformed++;
    }
    byStatus.set(entry.labels.StatusCode!, (byStatus.get(entry.labels.StatusCode!) ?? 0) + 1);
  }
  const hostile = entries.some((entry) => entry.log.includes('<!channel>'));
  return { total: entries.length, malformed, byStatus, hostile };
}

// What "today" and "yesterday" mean moves with the clock: each instant is a day edge, a morning
// (the sandbox's day has gained its entry with a mention in its URL), or a month's first day.
describe.each(PINNED_INSTANTS)('/edge logs at $name', ({ at }) => {
  beforeAll(() => bed.clock.set(at));

  it.each([
    ['today', 0],
    ['yesterday', 1],
  ])(
    'summarises %s in the channel with every entry as origin-errors-ID-yyyy-MM-dd.csv',
    async (word, back) => {
      const dayMs = Math.floor(bed.clock() / DAY_MS) * DAY_MS - back * DAY_MS;
      const expected = await expectedDay(308006, dayMs);
      const records = await bed.run(`logs 308006 ${word}`);
      if (expected.total === 0) {
        // Seconds into a day there may be nothing yet: said plainly to the requester, and no file.
        const said = answered(records);
        expect(said).toContain('No origin errors recorded');
        expect(said).toContain(utcDay(dayMs));
        expect(filesIn(records)).toEqual([]);
        return;
      }
      const headline = headlineIn(records);
      const file = fileNamed(records, /^origin-errors-308006-/);
      expect(file.filename).toBe(`origin-errors-308006-${utcDay(dayMs)}.csv`);
      const rows = parseCsv(fileText(file), { columns: true }) as Record<string, string>[];
      expect(Object.keys(rows[0]!)).toEqual([
        'timestamp',
        'status',
        'error_code',
        'server_zone',
        'url',
        'message',
        'log_id',
      ]);
      expect(rows).toHaveLength(expected.total);
      expect(rows.filter((row) => row.status === '502')).toHaveLength(expected.byStatus.get('502') ?? 0);
      expect(rows.every((row) => row.timestamp!.startsWith(utcDay(dayMs)))).toBe(true);
      expect(rows.every((row) => Date.parse(row.timestamp!) <= bed.clock())).toBe(true);
      // The summary and the file are in the thread of the headline in the channel.
      const summary = headline.thread?.find((reply) =>
        wordsOf(reply).includes('Origin errors · pull zone 308006'),
      );
      expect(wordsOf(headline)).toContain('origin errors* · pull zone 308006');
      expect(summary?.files).toContain(file);
      const text = wordsOf(summary!);
      expect(text).toContain(utcDay(dayMs));
      expect(text).toContain(expected.total.toLocaleString('en-US'));
      expect(text).toContain('Errors per 15 min');
      if (expected.malformed > 0) expect(text).toContain(`${expected.malformed} entr`);
      // A CSV keeps the platform's bytes (only formulas are neutralised).
      if (expected.hostile) expect(fileText(file)).toContain('/search?q=<!channel>');
    },
  );

  it('tells the requester alone of a day without errors, and posts no file', async () => {
    const todayRecords = await bed.run('logs 410114 today');
    const today = answered(todayRecords);
    expect(today).toContain(`No origin errors recorded for pull zone 410114, ${utcDay(bed.clock())}`);
    // A past day the platform sent nothing for may be one it no longer keeps: never called error-free.
    const yesterdayRecords = await bed.run('logs 410114 yesterday');
    const yesterday = answered(yesterdayRecords);
    expect(yesterday).toContain(
      `The platform returned no entries for ${utcDay(bed.clock() - DAY_MS)}; it may keep fewer days.`,
    );
    expect(yesterday).not.toContain('No origin errors');
    expect(filesIn([...todayRecords, ...yesterdayRecords])).toEqual([]);
    expect(postsIn([...todayRecords, ...yesterdayRecords])).toEqual([]);
    expect(answers([...todayRecords, ...yesterdayRecords]).map((reply) => reply.visibility)).toEqual([
      'ephemeral',
      'ephemeral',
    ]);
    expect(tempCsvFiles()).toEqual([]);
  });

  it('refuses tomorrow, and accepts today in both date forms', async () => {
    const tomorrow = utcDay(bed.clock() + DAY_MS);
    expect(await privateReply(`logs 308006 ${tomorrow}`)).toContain('in the future');
    const [year, month, day] = utcDay(bed.clock()).split('-');
    const [lastYear, lastMonth, lastDay] = utcDay(bed.clock() - DAY_MS).split('-');
    const hasEntries = (await expectedDay(308006, Math.floor(bed.clock() / DAY_MS) * DAY_MS)).total > 0;
    const before = bed.sandbox.requests.count('logs.origin');
    // A channel of its own: the same request in one channel within a minute shares the first answer.
    const records = await bed.run(`logs 308006 ${month}-${day}-${year}`, {
      channelId: `C0DATES${++dateChannels}`,
    });
    // Seconds into a day there may be nothing yet, and then no file and no post in the channel.
    if (hasEntries) {
      expect(wordsOf(headlineIn(records))).toContain('pull zone 308006');
      expect(fileNamed(records, /^origin-errors-308006-/).filename).toBe(
        `origin-errors-308006-${utcDay(bed.clock())}.csv`,
      );
    } else expect(answered(records)).not.toBe('');
    // Today, then yesterday for the comparison with the hours before and the same hours a day earlier.
    expect(bed.sandbox.requests.count('logs.origin')).toBe(before + 2);
    expect(
      bed.sandbox.requests
        .byRoute('logs.origin')
        .slice(-2)
        .map((request) => request.path),
    ).toEqual([
      `/logging/308006/${month}-${day}-${year}`,
      `/logging/308006/${lastMonth}-${lastDay}-${lastYear}`,
    ]);
  });
});

describe('/edge logs', () => {
  it('applies --status 5xx and --zone filters to the summary and the file', async () => {
    const records = await bed.run('logs 410112 today --status 5xx --zone DE');
    const rows = parseCsv(fileText(fileNamed(records, /^origin-errors-410112-/)), {
      columns: true,
    }) as Record<string, string>[];
    expect(rows.every((row) => row.status?.startsWith('5') && row.server_zone === 'DE')).toBe(true);
  });

  it.each([
    ['logs 308006 13-45-2026', 'not a real date'],
    ['logs 308006 2099-01-01', 'in the future'],
    ['logs 308006 someday', 'not a day'],
    ['logs 308006 today --last 3hours', 'not a duration'],
    ['logs 308006 today --last 4d', 'at most 72h'],
    ['logs 308006 today --status 6xx', '--status'],
    ['logs abc', 'pull zone id must be a number'],
  ])('refuses %s before any platform call', async (command, error) => {
    const before = bed.sandbox.requests.count('logs.origin');
    expect(await privateReply(command)).toContain(error);
    expect(bed.sandbox.requests.count('logs.origin')).toBe(before);
  });

  it('summarises a 200,000-entry day', async () => {
    bed.sandbox.knobs.setLogDay(410113, 200_000);
    const records = await bed.run('logs 410113 today');
    const file = fileNamed(records, /^origin-errors-410113-/);
    expect(file.content?.length).toBeGreaterThan(10_000_000);
  }, 90_000);
});

describe.each(PINNED_INSTANTS)('/edge shield export at $name', ({ at }) => {
  beforeAll(() => bed.clock.set(at));

  it('streams the export into shield-events-ZONE-FROM-TO.csv with the row count and window, formulas neutralised', async () => {
    const records = await bed.run('shield export 5101 --last 2h');
    const file = fileNamed(records, /^shield-events-5101-/);
    // Bounds in compact UTC, with seconds only where the bound has them.
    const stamp = (ms: number) =>
      new Date(ms)
        .toISOString()
        .replace(/[-:]/g, '')
        .slice(0, ms % 60_000 === 0 ? 13 : 15);
    expect(file.filename).toBe(
      `shield-events-5101-${stamp(bed.clock() - 7_200_000)}Z-${stamp(bed.clock())}Z.csv`,
    );
    expect(bed.sandbox.requests.all().at(-1)?.body).toMatchObject({
      from: bed.clock() - 7_200_000,
      to: bed.clock(),
    });
    const rows = parseCsv(fileText(file), { columns: true }) as Record<string, string>[];
    expect(file.comment).toContain(`${rows.length.toLocaleString('en-US')} Shield events of zone 5101`);
    expect(file.comment).toContain('UTC');
    const cells = rows.flatMap((row) => Object.values(row));
    expect(cells.filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);
    expect(cells.some((cell) => cell.startsWith("'="))).toBe(true);
  });
});

describe('/edge shield export', () => {
  it.each([
    ['shield export 5101 --from -1h --to -2h', '--to must be after --from'],
    ['shield export 5101 --from -80h --to -75h', '72 hours'],
    ['shield export 5101 --last 1h --filter url:cidr:10.0.0.0/8', 'ip field only'],
    ['shield export 5101 --last 1h --filter colour:eq:red', 'not one of'],
    ['shield export 5101 --from yesterday', 'not a time'],
  ])('refuses %s before any platform call', async (command, error) => {
    const before = bed.sandbox.requests.count('shield.export');
    expect(await privateReply(command)).toContain(error);
    expect(bed.sandbox.requests.count('shield.export')).toBe(before);
  });

  it('shows the detail of a 400 problem document', async () => {
    bed.sandbox.faults.set('shield.export', {
      status: 400,
      body: {
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: 'Query syntax is not supported',
        instance: '/x',
      },
      times: 1,
    });
    expect(await privateReply('shield export 5101 --last 1h --query "a(b"')).toContain(
      'Query syntax is not supported',
    );
  });

  it('opens a form without window flags and exports what it is given', async () => {
    const form = formIn(await bed.run('shield export 5101'));
    expect(form.callbackId).toBe('shield.export:window-and-filters');
    const now = Math.floor(bed.clock() / 1000) * 1000;
    const bad = await bed.submit(form, { from: String(now - 3_600_000), to: String(now - 7_200_000) });
    expect(JSON.stringify(bad)).toContain('The end must be after the start');
    const done = await bed.submit(form, {
      from: String(now - 1_800_000),
      to: String(now),
      query: '',
      filters: 'country:in:DE,FR',
    });
    if ('errors' in done) throw new Error(`the form was refused: ${JSON.stringify(done.errors)}`);
    const rows = parseCsv(fileText(fileNamed(done.records, /^shield-events-5101-/)), {
      columns: true,
    }) as Record<string, string>[];
    expect(rows.every((row) => ['DE', 'FR'].includes(row.country!))).toBe(true);
  });
});
