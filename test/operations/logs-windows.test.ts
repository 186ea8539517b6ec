/**
 * `/edge logs` over windows, through the engine: the clock pinned where a window crosses midnight,
 * the sandbox serving each UTC day on its own, and what the answer says checked against what the
 * sandbox served. Empty answers go to the requester alone and never read as an all-clear.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Reply, ReplyTable } from '../../src/reply/model.js';
import { percentChange } from '../../src/reports/origin/window.js';
import {
  answers,
  type EngineTestbed,
  fieldsOf,
  fileText,
  headlineIn,
  postsIn,
  type Recorded,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';

let bed: EngineTestbed;
beforeAll(async () => {
  // No font, so no picture: these tests read the chart as its text bars
  // (test/slack/charts.test.ts covers the picture).
  bed = await startEngineTestbed({ charts: { fontFile: '/nonexistent/fonts/inter.ttf' } });
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => {
  bed.sandbox.faults.clear();
  bed.sandbox.knobs.clear();
});

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const at = (iso: string) => Date.parse(iso);
/** The path segment of a day, MM-dd-yyyy. */
const pathDate = (ms: number) => {
  const [year, month, day] = new Date(ms).toISOString().slice(0, 10).split('-');
  return `${month}-${day}-${year}`;
};

interface ServedEntry {
  timestamp: number;
  log: string;
  labels: { ErrorCode: string; StatusCode: string; ServerZone: string };
}

/** What the sandbox serves for the UTC days of [startMs, endMs), read the plain way and cut to it. */
async function served(pullZoneId: number, startMs: number, endMs: number): Promise<ServedEntry[]> {
  const entries: ServedEntry[] = [];
  for (let day = Math.floor(startMs / DAY_MS) * DAY_MS; day < endMs; day += DAY_MS) {
    const response = await bed.runtime.services.platform.getOriginErrorLogs(pullZoneId, new Date(day));
    let text = '';
    for await (const chunk of response.body) text += (chunk as Buffer).toString('utf8');
    const logs = (JSON.parse(text) as { logs: ServedEntry[] }).logs;
    entries.push(...logs.filter((entry) => entry.timestamp >= startMs && entry.timestamp < endMs));
  }
  return entries;
}

let channels = 0;

/** Messages the channel sees: posts, and answers that are not the requester's alone. */
const channelMessages = (records: readonly Recorded[]) => [
  ...postsIn(records),
  ...answers(records).filter((reply) => reply.visibility !== 'ephemeral'),
];

/** Runs `/edge TEXT` in a channel of its own; returns readers of its answer. */
async function run(text: string) {
  const channelId = `C0WINDOW${++channels}`;
  const records = await bed.run(text, { channelId });
  const privately = answers(records).filter((reply) => reply.visibility === 'ephemeral');
  /** The summary: a reply in the thread of the headline, the one top-level message. */
  const summary = (): Reply => {
    const found = headlineIn(records).thread?.find((reply) => wordsOf(reply).includes('Origin errors · '));
    if (!found) throw new Error('no summary in the thread of the headline');
    return found;
  };
  const answer = (pattern: RegExp) => {
    const said = privately.map(wordsOf).join('\n');
    expect(said).toMatch(pattern);
    return said;
  };
  /** The one table of the thread's message that is titled `*title*`. */
  const table = (title: string): ReplyTable => {
    const message = (headlineIn(records).thread ?? []).find((reply) =>
      reply.blocks.some((block) => block.type === 'text' && block.text.startsWith(title)),
    );
    const tables = (message?.blocks ?? []).flatMap((block) => (block.type === 'table' ? [block.table] : []));
    if (tables.length !== 1) throw new Error(`no message with one table under ${title} in the thread`);
    return tables[0]!;
  };
  /** The CSV, in the thread of the headline. */
  const file = () => {
    const csv = (headlineIn(records).thread ?? [])
      .flatMap((reply) => reply.files ?? [])
      .find((candidate) => candidate.filename.endsWith('.csv'));
    if (!csv) throw new Error('no CSV in the thread of the headline');
    return csv;
  };
  return {
    channelId,
    records,
    privately,
    posts: () => channelMessages(records),
    summary,
    table,
    answer,
    file,
  };
}

/** The lines of the chart: they start with a UTC time. */
const chartLines = (reply: Reply) =>
  reply.blocks
    .flatMap((block) =>
      block.type === 'code' ? [block.text] : block.type === 'image' ? [block.image.text] : [],
    )
    .flatMap((text) => text.split('\n'))
    .filter((line) => /^(\d\d-\d\d )?\d\d:\d\d [ █▏▎▍▌▋▊▉]/.test(line));

describe('a window that crosses midnight', () => {
  it('at 00:20 UTC, --last 2h asks the platform for both dates and counts both', async () => {
    bed.clock.set('2026-11-21T00:20:00.000Z');
    const now = bed.clock();
    const expected = await served(308006, now - 2 * HOUR_MS, now);
    const before = bed.sandbox.requests.count('logs.origin');
    const r = await run('logs 308006 --last 2h');
    const file = r.file();
    const summary = r.summary();
    const blocks = wordsOf(summary);
    const paths = bed.sandbox.requests
      .byRoute('logs.origin')
      .slice(before)
      .map((request) => request.path);
    expect(paths).toContain(`/logging/308006/${pathDate(now - DAY_MS)}`);
    expect(paths).toContain(`/logging/308006/${pathDate(now)}`);
    expect(file.filename).toBe('origin-errors-308006-20261120T2220Z-20261121T0020Z.csv');
    const rows = parseCsv(fileText(file), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(expected.length);
    expect(rows.some((row) => row.timestamp!.startsWith('2026-11-20T2'))).toBe(true);
    expect(rows.some((row) => row.timestamp!.startsWith('2026-11-21T00'))).toBe(true);
    expect(rows.every((row) => Date.parse(row.timestamp!) >= now - 2 * HOUR_MS)).toBe(true);
    expect(blocks).toContain('last 2h, 2026-11-20 22:20 – 2026-11-21 00:20 UTC');
    expect(fieldsOf(summary).get('Errors')).toBe(String(expected.length));
    // 2 hours: 5-minute bars, from 22:20 across midnight up to now, none after.
    expect(blocks).toContain('Errors per 5 min (UTC)');
    const lines = chartLines(summary);
    expect(lines[0]).toMatch(/^11-20 22:20 /);
    expect(lines.at(-1)).toMatch(/^11-21 00:15 /);
    expect(lines).toHaveLength(24);
    expect(fieldsOf(summary).get('First / last seen')).toMatch(
      /^2026-11-20 22:\d\d:\d\d UTC \/ 2026-11-21 00:/,
    );
  });

  it('answers yesterday --last 2h about the last two hours of yesterday, as it would of today', async () => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    const expected = await served(308006, at('2026-11-20T22:00:00Z'), at('2026-11-21T00:00:00Z'));
    const r = await run('logs 308006 yesterday --last 2h');
    const file = r.file();
    expect(file.filename).toBe('origin-errors-308006-2026-11-20.csv');
    expect((parseCsv(fileText(file), { columns: true }) as unknown[]).length).toBe(expected.length);
    const summary = r.summary();
    expect(wordsOf(summary)).toContain('last 2h of 2026-11-20, 22:00–24:00 UTC');
    // A day that is over is charted whole: no bucket is still running.
    const lines = chartLines(summary);
    expect(lines[0]).toMatch(/^22:00 /);
    expect(lines.at(-1)).toMatch(/^23:55 /);
    expect(lines.join('\n')).not.toContain('(partial)');
  });

  it('reads --from and --to across midnight into origin-errors-ID-FROM-TO.csv', async () => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    const expected = await served(410112, at('2026-11-20T23:00:00Z'), at('2026-11-21T01:30:00Z'));
    const r = await run('logs 410112 --from 2026-11-20T23:00 --to 2026-11-21T01:30');
    const file = r.file();
    expect(file.filename).toBe('origin-errors-410112-20261120T2300Z-20261121T0130Z.csv');
    expect((parseCsv(fileText(file), { columns: true }) as unknown[]).length).toBe(expected.length);
    expect(wordsOf(r.summary())).toContain('2026-11-20 23:00 – 2026-11-21 01:30 UTC');
  });
});

describe('the chart of a window', () => {
  it.each([
    ['--last 30m', 'minute'],
    ['--last 2h', '5 min'],
    ['--last 12h', '15 min'],
    ['--last 30h', 'hour'],
  ])('with %s has one bar per %s', async (flag, width) => {
    bed.clock.set('2026-11-21T18:10:00.000Z');
    const r = await run(`logs 308006 ${flag}`);
    expect(wordsOf(r.summary())).toContain(`Errors per ${width} (UTC)`);
  });

  it('of today stops at now and marks the bucket still running', async () => {
    bed.clock.set('2026-11-21T14:05:00.000Z');
    const r = await run('logs 308006 today');
    const summary = r.summary();
    expect(wordsOf(summary)).toContain('2026-11-21, today so far, 00:00–14:05 UTC');
    const lines = chartLines(summary);
    expect(lines[0]).toMatch(/^00:00 /);
    expect(lines.at(-1)).toMatch(/^14:00 .*\(partial\)$/);
    expect(lines).toHaveLength(57);
    expect(lines.join('\n')).not.toMatch(/^(14:15|23:45) /m);
  });
});

describe('the comparison with earlier windows', () => {
  it('shows the previous window and the same window a day earlier with the change as a percentage', async () => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    const now = bed.clock();
    const current = (await served(308006, now - 2 * HOUR_MS, now)).length;
    const previous = (await served(308006, now - 4 * HOUR_MS, now - 2 * HOUR_MS)).length;
    const dayBefore = (await served(308006, now - DAY_MS - 2 * HOUR_MS, now - DAY_MS)).length;
    const r = await run('logs 308006 --last 2h');
    const blocks = wordsOf(r.summary());
    const signed = (n: number | undefined) => (n === undefined ? 'none before' : `${n > 0 ? '+' : ''}${n}%`);
    expect(blocks).toContain(`${signed(percentChange(current, previous))} on previous 2h (${previous})`);
    expect(blocks).toContain(`${signed(percentChange(current, dayBefore))} on a day earlier (${dayBefore})`);
    // The figures side by side: a table in a message of its own, the counts as numbers.
    const comparison = r.table(
      '*Compared with* the previous 2h (2026-11-21 10:00–12:00 UTC) and the same window a day earlier (2026-11-20 12:00–14:00 UTC)',
    );
    expect(comparison.columns).toEqual([
      { header: 'Errors', kind: 'text' },
      { header: 'This window', kind: 'number' },
      { header: 'Previous 2h', kind: 'number' },
      { header: 'vs previous 2h', kind: 'text' },
      { header: 'A day earlier', kind: 'number' },
      { header: 'vs a day earlier', kind: 'text' },
    ]);
    const change = (n: number | undefined) => (n === undefined ? 'new' : `${n > 0 ? '+' : ''}${n}%`);
    expect(comparison.rows[0]).toEqual([
      'all',
      current,
      previous,
      change(percentChange(current, previous)),
      dayBefore,
      change(percentChange(current, dayBefore)),
    ]);
    // The total, then the top statuses and codes of the window, three of each at most.
    const summary = r.summary();
    const statuses = fieldsOf(summary).get('By status')!.split(' · ').length;
    const codes = r.table('*By error code*').rows.length;
    expect(comparison.rows).toHaveLength(1 + Math.min(3, statuses) + Math.min(3, codes));
    expect(comparison.rows[1]![0]).toMatch(/^status \d{3}$/);
    expect(wordsOf(summary)).not.toContain('Compared with');
  });

  it('marks the error codes and URLs that no earlier window had', async () => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    const now = bed.clock();
    const entry = (id: string, minutesAgo: number, url: string, code: string) => ({
      logId: id,
      timestamp: now - minutesAgo * 60_000,
      log: JSON.stringify({
        RequestUrl: url,
        PullZoneId: 308006,
        Message: 'm',
        ErrorCode: code,
        StatusCode: 502,
      }),
      labels: { ErrorCode: code, StatusCode: '502', ServerZone: 'DE' },
    });
    // Today's body (fetched first, for the window) is ours; yesterday's is the sandbox's own.
    bed.sandbox.faults.set('logs.origin', {
      status: 200,
      body: {
        logs: [
          entry('p1', 150, '/index.html', 'http_timeout'),
          entry('w1', 30, '/brand-new', 'brand_new_code'),
          entry('w2', 20, '/brand-new', 'brand_new_code'),
          entry('w3', 10, '/index.html', 'http_timeout'),
        ],
      },
      times: 1,
    });
    const r = await run('logs 308006 --last 2h');
    const codes = r.table('*By error code*');
    expect(codes.columns).toEqual([
      { header: 'Error code', kind: 'text' },
      { header: 'Meaning', kind: 'text' },
      { header: 'Errors', kind: 'number' },
      { header: 'New', kind: 'text' },
    ]);
    expect(codes.rows).toEqual([
      ['brand_new_code', '', 2, 'new'],
      ['http_timeout', 'origin timed out', 1, ''],
    ]);
    const urls = r.table('*Top URLs*');
    expect(urls.columns).toEqual([
      { header: 'URL', kind: 'text' },
      { header: 'Errors', kind: 'number' },
      { header: 'New', kind: 'text' },
    ]);
    expect(urls.rows).toEqual([
      ['/brand-new', 2, 'new'],
      ['/index.html', 1, ''],
    ]);
    expect(wordsOf(r.summary())).toContain('+200% on previous 2h (1)');
  });

  it('says which comparison the platform had no days for, instead of comparing with nothing', async () => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    bed.sandbox.knobs.setLogDaysKept(0);
    const r = await run('logs 308006 --last 2h');
    const blocks = wordsOf(r.summary());
    expect(blocks).toContain(
      'Not compared with the same window a day earlier (2026-11-20 12:00–14:00 UTC): the platform returned no entries for 2026-11-20; it may keep fewer days.',
    );
    expect(blocks).toContain('on previous 2h');
  });

  it('leaves out a comparison whose day the platform fails to serve, and still answers', async () => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    // Today (the window's day) is served; yesterday, needed only to compare, fails every try.
    bed.sandbox.faults.set('logs.origin', { status: 503, after: 1, times: 3 });
    const r = await run('logs 308006 --last 2h');
    const blocks = wordsOf(r.summary());
    expect(blocks).toContain(
      'Not compared with the same window a day earlier (2026-11-20 12:00–14:00 UTC): the platform did not serve 2026-11-20',
    );
    expect(blocks).toContain('HTTP 503');
    // The platform's words ask for a correlation id: the one of the warning that logged the failure.
    const id = /; correlation id (c-[0-9a-f]{10})\)/.exec(blocks)?.[1];
    expect(id).toBeDefined();
    expect(bed.logs.some((line) => line.includes('could not be fetched') && line.includes(id!))).toBe(true);
    // It is the request's own: its audit row has it too.
    const rows = await bed.runtime.services.audit.list({ limit: 50 });
    expect(rows.find((row) => row.operation === 'logs.origin')?.correlationId).toBe(id);
    expect(blocks).toContain('on previous 2h');
  });

  it('quotes a failed comparison day’s words on one line and short, so its correlation id stays in the message', async () => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    // The platform's words for yesterday: long, each character escaped five times over, and a line of their own.
    const detail = `busy\n:white_check_mark: *Compared: -95%* ${'<&>'.repeat(400)}`;
    bed.sandbox.faults.set('logs.origin', { status: 503, body: { status: 503, detail }, after: 1, times: 3 });
    const r = await run('logs 308006 --last 2h');
    const words = wordsOf(r.summary());
    const note = /Not compared with the same window a day earlier[^"]*/.exec(words)?.[0] ?? '';
    expect(note).toMatch(
      /the platform did not serve 2026-11-20 \(busy :white_check_mark: \*Compared: -95%\* (&lt;|&amp;|&gt;)+…; correlation id c-[0-9a-f]{10}\)\.$/,
    );
    expect(note.length).toBeLessThan(1_500);
  });

  it.each([
    ['cut off mid-body', { truncate: true as const }],
    ['not JSON', { malformedJson: true as const }],
  ])('leaves out a comparison whose day’s body is %s, and still answers', async (_, fault) => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    // Today (the window's day) is served whole; yesterday's body, needed only to compare, breaks.
    bed.sandbox.faults.set('logs.origin', { ...fault, after: 1, times: 3 });
    const r = await run('logs 308006 --last 2h');
    const blocks = wordsOf(r.summary());
    expect(blocks).toContain(
      'Not compared with the same window a day earlier (2026-11-20 12:00–14:00 UTC): the platform did not serve 2026-11-20',
    );
    expect(blocks).toContain('on previous 2h');
  });

  it('fetches at most two more days than the window’s own, and says what it left out', async () => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    const before = bed.sandbox.requests.count('logs.origin');
    const r = await run('logs 308006 --last 72h');
    const blocks = wordsOf(r.summary());
    // 72 hours from 14:00 touch four days; the day before adds one; the previous 72h would add three.
    expect(bed.sandbox.requests.count('logs.origin') - before).toBe(5);
    expect(blocks).toContain(
      'Not compared with the previous 72h: it would take 3 more days of logs, and a comparison fetches at most 2.',
    );
    expect(blocks).toContain('on a day earlier');
    expect(blocks).toContain('Errors per hour (UTC)');
  });
});

describe('no false all-clear', () => {
  it('answers a typo in --code with a suggestion, and posts nothing in the channel', async () => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    const before = bed.sandbox.requests.count('logs.origin');
    const r = await run('logs 308006 --last 2h --code http_timout');
    const said = r.answer(/did you mean/);
    expect(said).toContain(
      '--code http_timout is not a documented error code (did you mean --code http_timeout?)',
    );
    expect(answers(r.records).find((reply) => wordsOf(reply).includes('did you mean'))?.visibility).toBe(
      'ephemeral',
    );
    expect(bed.sandbox.requests.count('logs.origin')).toBe(before);
    expect(r.posts()).toEqual([]);
  });

  it('answers a --zone no entry has with the zones seen, privately and without a check mark', async () => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    const r = await run('logs 308006 --last 2h --zone DEE');
    const said = r.answer(/matched/);
    expect(said).toMatch(
      /None of the \d+ origin errors of pull zone 308006, last 2h, 12:00–14:00 UTC matched zone DEE\./,
    );
    expect(said).toContain('has server zone `DEE` (did you mean --zone DE?). Seen: ');
    expect(said).not.toContain('white_check_mark');
    expect(said).not.toContain('✓');
    expect(r.posts()).toEqual([]);
  });

  it('tells "none matched your filter" apart from "no entries at all"', async () => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    const filtered = await run('logs 308006 --last 2h --code brand_new_code');
    const none = filtered.answer(/matched|recorded/);
    expect(none).toMatch(/None of the \d+ origin errors .* matched code brand_new_code/);
    expect(none).toContain('has error code `brand_new_code`. Seen: ');
    const quiet = await run('logs 410114 --last 2h');
    const empty = quiet.answer(/matched|recorded/);
    expect(empty).toContain('No origin errors recorded for pull zone 410114, last 2h, 12:00–14:00 UTC.');
    expect(empty).not.toContain('matched');
    expect([...filtered.posts(), ...quiet.posts()]).toEqual([]);
  });

  it('says when none matched in a window part of which the platform may no longer keep', async () => {
    bed.clock.set('2026-11-21T00:30:00.000Z');
    bed.sandbox.knobs.setLogDaysKept(0);
    const r = await run('logs 308006 --last 2h --zone DEE');
    const said = r.answer(/matched/);
    expect(said).toMatch(/None of the \d+ origin errors .* matched/);
    expect(said).toContain('The platform returned no entries for 2026-11-20; it may keep fewer days');
    expect(r.posts()).toEqual([]);
  });

  it('says a day older than the platform keeps may be kept no longer, never that it had no errors', async () => {
    bed.clock.set('2026-11-21T14:00:00.000Z');
    bed.sandbox.knobs.setLogDaysKept(2);
    const r = await run('logs 308006 2026-11-17');
    const said = r.answer(/returned no entries/);
    expect(said).toContain('The platform returned no entries for 2026-11-17; it may keep fewer days.');
    expect(said).not.toContain('No origin errors');
    expect(r.posts()).toEqual([]);
    expect(JSON.stringify(r.records)).not.toContain(
      'No origin errors recorded for pull zone 308006, 2026-11-17',
    );
  });
});
