import { describe, expect, it } from 'vitest';
import {
  type OriginWindowResult,
  renderNothingFound,
  renderOriginHeadline,
  renderOriginSummary,
  renderOriginThread,
} from '../../src/operations/logs/render.js';
import { parseLogsWindow } from '../../src/operations/logs/window.js';
import { replyToPlainText } from '../../src/reply/plain.js';
import type { ComparisonCounts, OriginSummary } from '../../src/reports/origin/summary.js';
import { bucketGrid, planOriginFetch } from '../../src/reports/origin/window.js';

const NOW = Date.parse('2026-11-21T00:20:00Z');

const comparison = (total: number, urls: string[] = []): ComparisonCounts => ({
  total,
  byStatus: [{ status: '502', count: total }],
  byErrorCode: [{ code: 'dns_lookup', words: 'origin DNS lookup failed', count: total }],
  byServerZone: [{ zone: 'DE', count: total }],
  topUrls: [],
  seenTopUrls: urls,
  urlsEvicted: false,
});

/** The last 2 hours at 00:20: the window reads 11-20 and 11-21, the comparisons add 11-19. */
function resultOf(changes: {
  days: OriginSummary['days'];
  total?: number;
  windowed?: number;
  comparisons?: ComparisonCounts[];
  failedDays?: Map<number, string>;
  filters?: string;
  zone?: string;
}): OriginWindowResult {
  const parsed = parseLogsWindow({ last: '2h' }, NOW);
  if (!parsed.ok) throw new Error(parsed.error);
  const window = parsed.window;
  const plan = planOriginFetch(window, NOW);
  const grid = bucketGrid(window);
  const total = changes.total ?? 4;
  const summary: OriginSummary = {
    scanned: 40,
    total,
    malformed: 0,
    untimed: 0,
    skipped: 0,
    firstSeenMs: total > 0 ? NOW - 90 * 60_000 : null,
    lastSeenMs: total > 0 ? NOW - 60_000 : null,
    windowed: changes.windowed ?? total,
    byStatus: total > 0 ? [{ status: '502', count: total }] : [],
    byErrorCode: total > 0 ? [{ code: 'dns_lookup', words: 'origin DNS lookup failed', count: total }] : [],
    byServerZone: total > 0 ? [{ zone: 'DE', count: total }] : [],
    topUrls: total > 0 ? [{ url: '/a', count: total, overcount: 0 }] : [],
    buckets: new Array<number>(grid.count).fill(0),
    comparisons: changes.comparisons ?? [comparison(2, ['/a']), comparison(8, ['/a'])],
    labelsSeen: { errorCodes: ['dns_lookup'], serverZones: ['DE', 'UK'] },
    listed: true,
    bodyBytes: 1000,
    days: changes.days,
    csv: { path: '/tmp/none.csv', rows: total, bytes: 100 },
  };
  return {
    pullZoneId: 308006,
    window,
    title: 'last 2h, 2026-11-20 22:20 – 2026-11-21 00:20 UTC',
    filters: changes.filters ?? '',
    zone: changes.zone,
    summary,
    plan,
    grid,
    nowMs: NOW,
    failedDays: changes.failedDays ?? new Map(),
    filename: 'origin-errors-308006-20261120T2220Z-20261121T0020Z.csv',
    requester: 'U0ONCALL',
  };
}

const entries = (n: number) => ({ entries: n, listed: true });

describe('the summary of a window', () => {
  it('compares with both earlier windows when the platform had every day they touch', () => {
    const text = replyToPlainText(
      renderOriginSummary(resultOf({ days: [entries(20), entries(5), entries(15)] })),
    );
    expect(text).toContain('+100% on previous 2h (2) · -50% on a day earlier (8)');
    expect(text).not.toContain('Not compared');
  });

  it('leaves out a comparison whose day the platform would not serve, and says why', () => {
    const failedDays = new Map([[Date.parse('2026-11-19T00:00:00Z'), 'The platform answered 503']]);
    const text = replyToPlainText(
      renderOriginSummary(resultOf({ days: [entries(20), entries(5), entries(0)], failedDays })),
    );
    expect(text).toContain('+100% on previous 2h (2)');
    expect(text).not.toContain('on a day earlier');
    expect(text).toContain(
      'Not compared with the same window a day earlier (2026-11-19 22:20 – 2026-11-20 00:20 UTC): the platform did not serve 2026-11-19 (The platform answered 503).',
    );
  });

  it('warns that a past day of the window with no entries may be one the platform let go', () => {
    const text = replyToPlainText(
      renderOriginSummary(resultOf({ days: [entries(0), entries(5), entries(15)] })),
    );
    expect(text).toContain(
      'The platform returned no entries for 2026-11-20; it may keep fewer days, so errors of that part of the window are unknown, not absent.',
    );
    expect(text).toContain('Not compared with the previous 2h');
  });
});

describe('the headline of a window', () => {
  it('says the total, the rate against the previous window, the top status and code, last seen and who asked', () => {
    const headline = renderOriginHeadline(resultOf({ days: [entries(20), entries(5), entries(15)] }));
    expect(headline.visibility).toBe('channel');
    const text = JSON.stringify(headline.blocks);
    expect(text).toContain('*4 origin errors* · pull zone 308006 · last 2h');
    expect(text).toContain('"label":"Rate now","value":"+100% on the previous 2h (2)"');
    expect(text).toContain('"label":"Top status","value":"502 ×4"');
    expect(text).toContain('"label":"Top error code","value":"`dns_lookup` ×4"');
    expect(text).toContain('"label":"Last seen","value":"1 min ago (2026-11-21 00:19:00 UTC)"');
    expect(text).toContain('"label":"Asked by","value":"<@U0ONCALL>"');
    // The breakdowns are its thread, not part of it: one message a table.
    expect(text).not.toContain('By error code');
    expect(headline.thread?.map((reply) => replyToPlainText(reply))).toEqual([
      expect.stringContaining('By error code'),
      expect.stringContaining('Compared with'),
      expect.stringContaining('Top URLs'),
    ]);
    for (const reply of headline.thread ?? [])
      expect(reply.blocks.filter((block) => block.type === 'table')).toHaveLength(1);
    // The CSV goes with the summary, the purge form with the URLs.
    expect(headline.thread?.map((reply) => (reply.files ?? []).map((file) => file.filename))).toEqual([
      ['origin-errors-308006-20261120T2220Z-20261121T0020Z.csv'],
      [],
      [],
    ]);
  });

  it('says "no earlier data" when the platform has none for the previous window', () => {
    const headline = renderOriginHeadline(resultOf({ days: [entries(0), entries(5), entries(15)] }));
    expect(JSON.stringify(headline.blocks)).toContain(
      '"label":"Rate now","value":"no earlier data for the previous 2h"',
    );
  });

  it('says "new" when the previous window had none', () => {
    const headline = renderOriginHeadline(
      resultOf({ days: [entries(20), entries(5), entries(15)], comparisons: [comparison(0), comparison(8)] }),
    );
    expect(JSON.stringify(headline.blocks)).toContain('"value":"new: none in the previous 2h"');
  });
});

describe('platform text in the summary', () => {
  it('keeps an error code and a URL as the plain text of one cell each, on their own rows', () => {
    const result = resultOf({ days: [entries(20), entries(5), entries(15)] });
    result.summary.byErrorCode = [{ code: 'x`*forged*\n• `ok` ×0', words: null, count: 4 }];
    result.summary.topUrls = [{ url: '/a\n      9 /forged', count: 4, overcount: 0 }];
    const thread = renderOriginThread(result);
    const tables = thread.flatMap((reply) =>
      reply.blocks.flatMap((block) => (block.type === 'table' ? [block.table] : [])),
    );
    const rowsOf = (header: string) => tables.find((table) => table.columns[0]?.header === header)?.rows;
    expect(rowsOf('Error code')).toEqual([['x`*forged*\n• `ok` ×0', '', 4, 'new']]);
    expect(rowsOf('URL')).toEqual([['/a\n      9 /forged', 4, 'new']]);
    // No text shown as mrkdwn carries them: they are cells, never formatting (a button's value is not shown).
    const mrkdwn = JSON.stringify(
      thread.map((reply) => reply.blocks.filter((b) => b.type !== 'table' && b.type !== 'actions')),
    );
    expect(mrkdwn).not.toContain('forged');
    // Drawn as text (the console, a refused table), each stays on its row.
    const text = thread.map((reply) => replyToPlainText(reply)).join('\n');
    const lines = text.split('\n');
    expect(lines.some((line) => /^\s*(9 \/forged|• `ok`)/.test(line))).toBe(false);
    expect(lines.filter((line) => line.includes('9 /forged'))).toEqual([
      expect.stringMatching(/^\/a +9 \/forged/),
    ]);
  });
});

describe('an answer with nothing to summarise', () => {
  it('is private and names the zones seen when the filter matched nothing', () => {
    const reply = renderNothingFound(
      resultOf({
        days: [entries(20), entries(5), entries(15)],
        total: 0,
        windowed: 12,
        filters: 'zone XX',
        zone: 'XX',
      }),
    );
    expect(reply.visibility).toBe('ephemeral');
    const text = replyToPlainText(reply);
    expect(text).toContain('None of the 12 origin errors of pull zone 308006');
    expect(text).toContain('has server zone XX. Seen: DE, UK.');
  });

  it('is private and says "no entries", not "no errors", for a past day the platform sent nothing for', () => {
    const reply = renderNothingFound(
      resultOf({ days: [entries(0), entries(0), entries(0)], total: 0, comparisons: [] }),
    );
    expect(reply.visibility).toBe('ephemeral');
    const text = replyToPlainText(reply);
    expect(text).toContain('The platform returned no entries for 2026-11-20; it may keep fewer days.');
    expect(text).not.toContain('No origin errors');
  });
});
