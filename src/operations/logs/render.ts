/**
 * What `/edge logs` answers: in the channel, a compact headline (the total, the rate against the
 * previous window, the top status and code, last seen, who asked) with the summary of the window
 * and its comparison with earlier windows in its thread; or, when nothing is left to summarise, a
 * private answer that says which of three things happened: the platform had no entries for a day
 * (it may keep fewer days), the window had none, or none matched the filters. None of these is an
 * all-clear in the channel.
 */
import { closestName } from '../../policy/suggest.js';
import { inlineCode } from '../../reply/escape.js';
import { type Markup, md, mention, nest, trusted } from '../../reply/markup.js';
import {
  commandButton,
  ephemeral,
  inChannel,
  type Reply,
  type ReplyBlock,
  type ReplyCell,
  type ReplyColumn,
  type ReplyTable,
} from '../../reply/model.js';
import { byteSize, counted } from '../../reply/words.js';
import type { ChartPicture } from '../../reports/chart/render.js';
import { bucketBars, bucketWidthWords } from '../../reports/chart/text.js';
import type { ComparisonCounts, OriginSummary } from '../../reports/origin/summary.js';
import {
  type BucketGrid,
  COMPARISON_EXTRA_DAYS,
  type ComparisonWindow,
  chartBuckets,
  DAY_MS,
  type OriginFetchPlan,
  percentChange,
  utcDaysTouched,
} from '../../reports/origin/window.js';
import { purgeFormButton } from '../purge/form.js';
import { formatAgo } from '../shared/time-args.js';
import { formatLength, formatSpan, type LogsWindow } from './window.js';

/** Everything known once the days are read: the answer is drawn from this alone. */
export interface OriginWindowResult {
  pullZoneId: number;
  window: LogsWindow;
  /** The window in words (describeLogsWindow). */
  title: string;
  /** The filters in words, empty without any. */
  filters: string;
  code?: string;
  zone?: string;
  summary: OriginSummary;
  plan: OriginFetchPlan;
  grid: BucketGrid;
  /** Now, as the answer sees it: the chart stops here. */
  nowMs: number;
  /** Days only a comparison needed that the platform did not serve, with what it said. */
  failedDays: ReadonlyMap<number, string>;
  filename: string;
  /** The chart as a picture; without it, the text bars are the chart. */
  chart?: ChartPicture;
  /** Who asked, named on the headline. */
  requester: string;
}

/** The chart's file beside the CSV: origin-errors-chart-ID-….png for origin-errors-ID-….csv. */
const chartFilename = (csvFilename: string) =>
  csvFilename.replace(/^origin-errors-/, 'origin-errors-chart-').replace(/\.csv$/, '.png');

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const number = (n: number) => n.toLocaleString('en-US');
const listDates = (days: readonly number[]) => days.map(isoDate).join(', ');

/** What was read of one day, by its UTC midnight. */
function dayRead(result: OriginWindowResult, dayMs: number) {
  const index = result.plan.days.indexOf(dayMs);
  return index < 0 ? undefined : result.summary.days[index];
}

/** Past days of the window for which the platform sent no entry at all: it may no longer keep them. */
function unkeptWindowDays(result: OriginWindowResult): number[] {
  const today = Math.floor(result.nowMs / DAY_MS) * DAY_MS;
  return result.plan.windowDays.filter((day) => day < today && (dayRead(result, day)?.entries ?? 0) === 0);
}

type ComparisonState =
  | { window: ComparisonWindow; counts: ComparisonCounts; available: true }
  | { window: ComparisonWindow; available: false; reason: string };

/** A comparison counts only where the platform had every day it touches. */
function comparisonStates(result: OriginWindowResult): ComparisonState[] {
  return result.plan.comparisons.map((window, index): ComparisonState => {
    for (const day of utcDaysTouched(window.startMs, window.endMs)) {
      const failed = result.failedDays.get(day);
      if (failed !== undefined)
        return { window, available: false, reason: `the platform did not serve ${isoDate(day)} (${failed})` };
      if ((dayRead(result, day)?.entries ?? 0) === 0)
        return {
          window,
          available: false,
          reason: `the platform returned no entries for ${isoDate(day)}; it may keep fewer days`,
        };
    }
    const counts = result.summary.comparisons[index];
    return counts
      ? { window, counts, available: true }
      : { window, available: false, reason: 'it was not counted' };
  });
}

/** `the previous 2h (14:10–16:10 UTC)`, `the same window a day earlier (…)`, `the day before (2026-11-19)`. */
function comparisonName(window: ComparisonWindow): string {
  const length = window.endMs - window.startMs;
  if (window.kind === 'previous' && length === DAY_MS && window.startMs % DAY_MS === 0)
    return `the day before (${isoDate(window.startMs)})`;
  const span = formatSpan(window.startMs, window.endMs);
  const dated = span.includes(' – ') ? span : `${isoDate(window.startMs)} ${span}`;
  return window.kind === 'previous'
    ? `the previous ${formatLength(length)} (${dated})`
    : `the same window a day earlier (${dated})`;
}

function shortName(window: ComparisonWindow): string {
  if (window.kind === 'dayBefore') return 'a day earlier';
  const length = window.endMs - window.startMs;
  return length === DAY_MS && window.startMs % DAY_MS === 0
    ? 'the day before'
    : `previous ${formatLength(length)}`;
}

/** The short name as it follows "on" or "in": `the previous 2h`, `the day before`, never `the the`. */
const theShortName = (window: ComparisonWindow): string => {
  const name = shortName(window);
  return name.startsWith('the ') || name.startsWith('a ') ? name : `the ${name}`;
};

/** `+67%`, `new` (none before), or empty when there were none either time. */
function changeCell(now: number, before: number): string {
  const change = percentChange(now, before);
  if (change !== undefined) return `${change > 0 ? '+' : ''}${change}%`;
  return now > 0 ? 'new' : '';
}

const countOf = <T extends { count: number }>(items: readonly T[], match: (item: T) => boolean) =>
  items.find(match)?.count ?? 0;

const capitalised = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** The same figures side by side: the total, the top statuses and the top error codes. */
function comparisonTable(summary: OriginSummary, compared: readonly ComparisonState[]): ReplyTable {
  const available = compared.filter((c): c is Extract<ComparisonState, { available: true }> => c.available);
  const row = (label: string, now: number, before: (counts: ComparisonCounts) => number): ReplyCell[] => [
    label,
    now,
    ...available.flatMap((c) => [before(c.counts), changeCell(now, before(c.counts))]),
  ];
  const rows: ReplyCell[][] = [row('all', summary.total, (counts) => counts.total)];
  for (const { status, count } of summary.byStatus.slice(0, 3))
    rows.push(
      row(`status ${status}`, count, (counts) => countOf(counts.byStatus, (s) => s.status === status)),
    );
  for (const { code, count } of summary.byErrorCode.slice(0, 3))
    rows.push(row(code, count, (counts) => countOf(counts.byErrorCode, (e) => e.code === code)));
  return {
    columns: [
      { header: 'Errors', kind: 'text' },
      { header: 'This window', kind: 'number' },
      ...available.flatMap((c): ReplyColumn[] => [
        { header: capitalised(shortName(c.window)), kind: 'number' },
        { header: `vs ${shortName(c.window)}`, kind: 'text' },
      ]),
    ],
    rows,
  };
}

/** Codes and URLs new in this window: seen in none of the comparisons the platform had days for. */
function newcomers(summary: OriginSummary, compared: readonly ComparisonState[]) {
  const available = compared.flatMap((c) => (c.available ? [c.counts] : []));
  if (available.length === 0) return { codes: new Set<string>(), urls: new Set<string>() };
  const codes = new Set(
    summary.byErrorCode
      .map((c) => c.code)
      .filter(
        (code) => code !== 'unknown' && available.every((c) => !c.byErrorCode.some((e) => e.code === code)),
      ),
  );
  // A URL absent from a tracker that dropped some may still have been seen: not called new then.
  const urls = available.some((c) => c.urlsEvicted)
    ? new Set<string>()
    : new Set(
        summary.topUrls
          .map((u) => u.url)
          .filter((url) => available.every((c) => !c.seenTopUrls.includes(url))),
      );
  return { codes, urls };
}

/** The top 12, and how many more there are: the CSV has every entry. */
const counts = (items: { label: string; count: number }[]) =>
  [
    ...items.slice(0, 12).map((item) => `${item.label} ×${number(item.count)}`),
    ...(items.length > 12 ? [`+${items.length - 12} more`] : []),
  ].join(' · ') || '—';

/** `14:03:12 UTC`, with the date in front when the window spans days. */
const time = (ms: number | null, dated: boolean) =>
  ms === null ? '—' : `${dated ? `${isoDate(ms)} ` : ''}${new Date(ms).toISOString().slice(11, 19)} UTC`;

function changeLine(summary: OriginSummary, compared: readonly ComparisonState[]): string {
  const parts = compared.flatMap((c) => {
    if (!c.available) return [];
    const change = percentChange(summary.total, c.counts.total);
    const words = change === undefined ? 'none before' : `${change > 0 ? '+' : ''}${change}%`;
    return [`${words} on ${shortName(c.window)} (${number(c.counts.total)})`];
  });
  return parts.join(' · ') || 'not compared';
}

/** Error codes shown in the summary; the CSV has every entry. */
const SHOWN_CODES = 12;

/** The busiest error codes, what each means and whether no earlier window had it. */
function errorCodeTable(summary: OriginSummary, fresh: ReadonlySet<string>): ReplyTable {
  const codes = summary.byErrorCode.slice(0, SHOWN_CODES);
  const marked = codes.some((c) => fresh.has(c.code));
  return {
    columns: [
      { header: 'Error code', kind: 'text' },
      { header: 'Meaning', kind: 'text' },
      { header: 'Errors', kind: 'number' },
      ...(marked ? [{ header: 'New', kind: 'text' } as const] : []),
    ],
    rows: codes.map((c) => [
      c.code,
      c.words ?? '',
      c.count,
      ...(marked ? [fresh.has(c.code) ? 'new' : ''] : []),
    ]),
  };
}

/** The most requested URLs that failed; a count the tracker may have overstated says so. */
function topUrlTable(summary: OriginSummary, fresh: ReadonlySet<string>): ReplyTable {
  const marked = summary.topUrls.some((u) => fresh.has(u.url));
  const estimated = summary.topUrls.some((u) => u.overcount > 0);
  return {
    columns: [
      { header: 'URL', kind: 'text' },
      { header: 'Errors', kind: 'number' },
      ...(estimated ? [{ header: 'Count is', kind: 'text' } as const] : []),
      ...(marked ? [{ header: 'New', kind: 'text' } as const] : []),
    ],
    rows: summary.topUrls.map((u) => [
      u.url,
      u.count,
      ...(estimated ? [u.overcount > 0 ? 'an upper bound' : 'exact'] : []),
      ...(marked ? [fresh.has(u.url) ? 'new' : ''] : []),
    ]),
  };
}

/** What a table's New column means, said under it. */
const NEW_NOTE = md`New: seen in none of the earlier windows compared.`;

export function renderOriginSummary(result: OriginWindowResult): Reply {
  const { summary, pullZoneId, title, filters } = result;
  const compared = comparisonStates(result);
  const fresh = newcomers(summary, compared);
  const dated = result.plan.windowDays.length > 1;
  const blocks: ReplyBlock[] = [
    { type: 'header', text: `Origin errors · pull zone ${pullZoneId} · ${title}` },
    {
      type: 'fields',
      fields: [
        { label: 'Errors', value: md`${number(summary.total)}${filters ? ` (${filters})` : ''}` },
        { label: 'Change', value: md`${changeLine(summary, compared)}` },
        {
          label: 'First / last seen',
          value: md`${time(summary.firstSeenMs, dated)} / ${time(summary.lastSeenMs, dated)}`,
        },
        {
          label: 'By status',
          value: md`${counts(summary.byStatus.map((s) => ({ label: String(s.status), count: s.count })))}`,
        },
        {
          label: 'By server zone',
          value: md`${counts(summary.byServerZone.map((z) => ({ label: z.zone, count: z.count })))}`,
        },
      ],
    },
  ];
  const notes: Markup[] = [];
  for (const c of compared)
    if (!c.available) notes.push(md`Not compared with ${comparisonName(c.window)}: ${c.reason}.`);
  for (const skipped of result.plan.skipped)
    notes.push(
      md`Not compared with the previous ${formatLength(result.plan.counted.endMs - result.plan.counted.startMs)}: it would take ${skipped.extraDays} more days of logs, and a comparison fetches at most ${COMPARISON_EXTRA_DAYS}.`,
    );
  const unkept = unkeptWindowDays(result);
  if (unkept.length > 0)
    notes.push(
      md`:warning: The platform returned no entries for ${listDates(unkept)}; it may keep fewer days, so errors of that part of the window are unknown, not absent.`,
    );
  if (notes.length > 0) blocks.push({ type: 'context', text: trusted(notes.join('\n')) });
  // The one table of this message: the other breakdowns follow in the thread (renderOriginThread).
  blocks.push({ type: 'text', text: trusted('*By error code*') });
  const codes = errorCodeTable(summary, fresh.codes);
  blocks.push({ type: 'table', table: codes });
  const moreCodes = summary.byErrorCode.length - SHOWN_CODES;
  const codeNotes = [
    ...(codes.columns.some((c) => c.header === 'New') ? [NEW_NOTE] : []),
    ...(moreCodes > 0 ? [md`+${moreCodes} more codes: every entry is in the CSV.`] : []),
  ];
  if (codeNotes.length > 0) blocks.push({ type: 'context', text: trusted(codeNotes.join(' ')) });
  if (summary.malformed > 0)
    blocks.push({
      type: 'context',
      text: md`:warning: ${summary.malformed} entr${summary.malformed === 1 ? 'y has' : 'ies have'} a log that is missing or not valid JSON; they are counted from their labels, with an empty url and message in the CSV.`,
    });
  if (summary.untimed > 0)
    blocks.push({
      type: 'context',
      text: md`:warning: ${summary.untimed} entr${summary.untimed === 1 ? 'y has no timestamp; it is' : 'ies have no timestamp; they are'} in the counts and the CSV (with an empty timestamp), not in the chart.`,
    });
  const buckets = chartBuckets(result.grid, summary.buckets, result.window, result.nowMs);
  const chartTitle = `Errors per ${bucketWidthWords(result.grid.widthMs)} (UTC)`;
  const bars = bucketBars(buckets, result.grid.widthMs).join('\n');
  if (result.chart)
    blocks.push({
      type: 'image',
      image: {
        filename: chartFilename(result.filename),
        title: chartTitle,
        png: result.chart.png,
        altText: result.chart.altText,
        text: bars,
      },
    });
  else {
    blocks.push({ type: 'text', text: trusted(`*${chartTitle}*`) });
    blocks.push({ type: 'code', text: bars });
  }
  if (buckets.some((bucket) => bucket.partial))
    blocks.push({
      type: 'context',
      text: md`A bucket marked (partial) covers only part of its ${bucketWidthWords(result.grid.widthMs)}: cut by the window's start, or still running.`,
    });
  return {
    ...inChannel(`${counted(summary.total, 'origin error')} for pull zone ${pullZoneId}, ${title}`, blocks),
    files: [
      {
        filename: result.filename,
        title: `Origin errors, pull zone ${pullZoneId}, ${title}`,
        path: summary.csv.path,
        about: `all ${counted(summary.csv.rows, 'entry', 'entries')} (${byteSize(summary.csv.bytes)})`,
        comment: `${counted(summary.csv.rows, 'origin error')} for pull zone ${pullZoneId}, ${title}${filters ? ` (${filters})` : ''}`,
      },
    ],
  };
}

/** The figures of the window beside those of the earlier windows the platform had every day of. */
function renderComparison(result: OriginWindowResult): Reply | undefined {
  const compared = comparisonStates(result);
  const names = compared.filter((c) => c.available).map((c) => comparisonName(c.window));
  if (names.length === 0) return undefined;
  return inChannel(
    `Origin errors of pull zone ${result.pullZoneId}, ${result.title}, compared with ${names.join(' and ')}`,
    [
      { type: 'text', text: md`*Compared with* ${names.join(' and ')}` },
      { type: 'table', table: comparisonTable(result.summary, compared) },
    ],
  );
}

/** The URLs that failed most, with the form that purges them. */
function renderTopUrls(result: OriginWindowResult): Reply | undefined {
  const { summary, pullZoneId } = result;
  if (summary.topUrls.length === 0) return undefined;
  const table = topUrlTable(summary, newcomers(summary, comparisonStates(result)).urls);
  const blocks: ReplyBlock[] = [
    { type: 'text', text: trusted('*Top URLs*') },
    { type: 'table', table },
  ];
  const notes = [
    ...(table.columns.some((c) => c.header === 'New') ? [NEW_NOTE] : []),
    ...(table.columns.some((c) => c.header === 'Count is')
      ? [md`An upper bound: with this many distinct URLs, the count of the rarest ones is estimated.`]
      : []),
  ];
  if (notes.length > 0) blocks.push({ type: 'context', text: trusted(notes.join(' ')) });
  // The logs carry paths: the form makes them whole on a hostname of the zone before anything is purged.
  const purge = purgeFormButton(
    pullZoneId,
    summary.topUrls.map((u) => u.url),
  );
  if (purge) blocks.push({ type: 'actions', buttons: [purge] });
  return inChannel(`Top URLs of the origin errors of pull zone ${pullZoneId}, ${result.title}`, blocks);
}

/**
 * The thread under the headline, one table a message: the summary with its error codes, the
 * chart and the CSV; then the comparison with earlier windows; then the top URLs.
 */
export function renderOriginThread(result: OriginWindowResult): Reply[] {
  return [renderOriginSummary(result), renderComparison(result), renderTopUrls(result)].filter(
    (reply): reply is Reply => reply !== undefined,
  );
}

/** The rate now against the previous window of the same length, or why there is none to compare. */
function rateNow(result: OriginWindowResult, compared: readonly ComparisonState[]): Markup {
  const previous = compared.find((c) => c.window.kind === 'previous');
  if (!previous) {
    const skipped = result.plan.skipped.find((s) => s.kind === 'previous');
    return skipped
      ? md`not compared: the previous window would take ${skipped.extraDays} more days of logs`
      : md`no earlier data`;
  }
  const name = theShortName(previous.window);
  if (!previous.available) return md`no earlier data for ${name}`;
  const before = previous.counts.total;
  const change = percentChange(result.summary.total, before);
  if (change === undefined) return md`new: none in ${name}`;
  return md`${change > 0 ? '+' : ''}${change}% on ${name} (${number(before)})`;
}

/** What the rate field is called: the rate now while the window runs to now, else the window's own. */
function rateLabel(result: OriginWindowResult): string {
  if (result.window.endMs >= result.nowMs) return 'Rate now';
  return result.window.kind === 'day' ? 'That day' : 'That window';
}

/**
 * The edge's own numbers (`/edge stats`) for the same window, up to now, from the start of its
 * hour: the platform counts by the hour, and stats takes no window under one.
 */
function edgeNumbersButton(result: OriginWindowResult) {
  const hour = 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const endMs = Math.min(result.window.endMs, result.nowMs);
  const startMs = Math.min(Math.floor(result.window.startMs / hour) * hour, endMs - hour);
  return commandButton(
    'Edge numbers for this window',
    `stats ${result.pullZoneId} --from ${iso(startMs)} --to ${iso(endMs)}`,
  );
}

/**
 * The headline posted in the channel: enough to tell at a glance how bad it is and whether it is
 * getting worse. The summary with the chart and the CSV, and each further breakdown, is its thread.
 */
export function renderOriginHeadline(result: OriginWindowResult): Reply {
  const { summary, pullZoneId, title, filters } = result;
  const compared = comparisonStates(result);
  const topStatus = summary.byStatus[0];
  const topCode = summary.byErrorCode[0];
  const dated = result.plan.windowDays.length > 1;
  const lastSeen =
    summary.lastSeenMs === null
      ? md`unknown (no entry has a timestamp)`
      : md`${formatAgo(summary.lastSeenMs, result.nowMs)} (${time(summary.lastSeenMs, dated)})`;
  return {
    ...inChannel(`${counted(summary.total, 'origin error')} for pull zone ${pullZoneId}, ${title}`, [
      {
        type: 'text',
        text: md`*${number(summary.total)} origin error${summary.total === 1 ? '' : 's'}* · pull zone ${pullZoneId} · ${title}${filters ? ` · ${filters}` : ''}`,
      },
      {
        type: 'fields',
        fields: [
          { label: rateLabel(result), value: rateNow(result, compared) },
          { label: 'Last seen', value: lastSeen },
          {
            label: 'Top status',
            value: topStatus ? md`${topStatus.status} ×${number(topStatus.count)}` : md`—`,
          },
          {
            label: 'Top error code',
            value: topCode ? md`${nest(trusted(inlineCode(topCode.code)))} ×${number(topCode.count)}` : md`—`,
          },
          { label: 'Asked by', value: mention(result.requester) },
        ],
      },
      { type: 'actions', buttons: [edgeNumbersButton(result)] },
    ]),
    thread: renderOriginThread(result),
  };
}

/** Why a filter value may have matched nothing: it is not among the values the days read carry. */
function filterHints(result: OriginWindowResult): Markup[] {
  const { labelsSeen } = result.summary;
  const days = listDates(
    result.plan.days.filter((day) => (dayRead(result, day)?.entries ?? 0) > 0).sort((a, b) => a - b),
  );
  const hint = (flag: string, typed: string, seen: readonly string[], what: string) => {
    if (seen.some((value) => value.toLowerCase() === typed.toLowerCase())) return [];
    const suggestion = closestName(typed, seen);
    const shown = seen.slice(0, 15).join(', ') + (seen.length > 15 ? `, +${seen.length - 15} more` : '');
    return [
      md`No entry on ${days} has ${what} \`${typed}\`${suggestion ? ` (did you mean ${flag} ${suggestion}?)` : ''}. Seen: ${shown || 'none'}.`,
    ];
  };
  return [
    ...(result.zone ? hint('--zone', result.zone, labelsSeen.serverZones, 'server zone') : []),
    ...(result.code ? hint('--code', result.code, labelsSeen.errorCodes, 'error code') : []),
  ];
}

/**
 * The private answer when the window has nothing to summarise. Never a ✓, never in the channel:
 * an empty answer is not an all-clear when the filter had a typo or the platform let the day go.
 */
export function renderNothingFound(result: OriginWindowResult): Reply {
  const { summary, pullZoneId, title, filters } = result;
  const where = `pull zone ${pullZoneId}, ${title}`;
  const unkept = unkeptWindowDays(result);
  if (summary.windowed > 0) {
    const text = `None of the ${counted(summary.windowed, 'origin error')} of ${where} matched ${filters}.`;
    // A day of the window the platform sent nothing for may hold matches it no longer keeps.
    const partly: ReplyBlock[] =
      unkept.length > 0
        ? [
            {
              type: 'text',
              text: md`:warning: The platform returned no entries for ${listDates(unkept)}; it may keep fewer days, so what that part of the window held is unknown, not absent.`,
            },
          ]
        : [];
    return ephemeral(text, [
      { type: 'text', text: md`${text} No file posted.` },
      ...partly,
      ...filterHints(result).map((hint): ReplyBlock => ({ type: 'text', text: hint })),
    ]);
  }
  if (unkept.length > 0) {
    const text = `The platform returned no entries for ${listDates(unkept)}; it may keep fewer days.`;
    return ephemeral(text, [
      {
        type: 'text',
        text: md`${text} Whether ${where} had origin errors is unknown: an empty answer for a past day is not the same as none. No file posted.`,
      },
    ]);
  }
  const windowEntries = result.plan.windowDays.reduce(
    (sum, day) => sum + (dayRead(result, day)?.entries ?? 0),
    0,
  );
  const outside =
    windowEntries > 0
      ? ` The platform has ${number(windowEntries)} entries for ${listDates(result.plan.windowDays)}, none inside the window.`
      : '';
  // `{}` and `{"logs":null}` are legal answers: the vendor does not require the list.
  const unlisted = summary.listed
    ? ''
    : ' The platform sent no list of entries for that day, which most likely means there were no errors.';
  const text = `No origin errors recorded for ${where}.`;
  return ephemeral(text, [{ type: 'text', text: md`${text}${outside}${unlisted} No file posted.` }]);
}
