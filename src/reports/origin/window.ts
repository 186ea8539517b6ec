/**
 * The time arithmetic of an origin-error window: which UTC days the platform must be asked for
 * (it serves one day per call), how wide the chart's buckets are, which buckets are drawn, and
 * which earlier windows the summary is compared with. Pure: instants in, plans out.
 */
import type { ChartBucket } from '../chart/text.js';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** The longest window a summary covers (`--last 72h`): at most four UTC days of logs. */
export const MAX_WINDOW_MS = 72 * HOUR_MS;

/**
 * Comparing costs downloads: a comparison may add at most this many UTC days to those of the
 * window itself. A window up to 24 h needs one more day for both comparisons, up to 48 h two; a
 * longer one is compared with the day before only.
 */
export const COMPARISON_EXTRA_DAYS = 2;

/** [startMs, endMs): `endMs` is where the window ends as asked, which may be after now (today). */
export interface OriginWindow {
  startMs: number;
  endMs: number;
}

/** The last `lengthMs` up to `endMs`: what `--last` covers at that instant, and a watch's last hour. */
export function lastWindow(endMs: number, lengthMs: number): OriginWindow {
  return { startMs: endMs - lengthMs, endMs };
}

/** Whether an entry stamped at `timestamp` is in the window: from its start, up to but not at its end. */
export function withinWindow(timestamp: number, window: OriginWindow): boolean {
  return timestamp >= window.startMs && timestamp < window.endMs;
}

/** Bucket widths by window length: the longest window each width is used for. */
const BUCKET_WIDTHS: readonly (readonly [maxWindowMs: number, widthMs: number])[] = [
  [HOUR_MS, MINUTE_MS],
  [6 * HOUR_MS, 5 * MINUTE_MS],
  [DAY_MS, 15 * MINUTE_MS],
];

/** 1 minute up to 1 h, 5 minutes up to 6 h, 15 minutes up to 24 h, 1 hour beyond. */
export function bucketWidthFor(lengthMs: number): number {
  for (const [maxWindowMs, widthMs] of BUCKET_WIDTHS) if (lengthMs <= maxWindowMs) return widthMs;
  return HOUR_MS;
}

/** Buckets on the UTC grid of their width, from the one holding the window's start to the one holding its end. */
export interface BucketGrid {
  startMs: number;
  widthMs: number;
  count: number;
}

const floorTo = (ms: number, step: number) => Math.floor(ms / step) * step;

/** The grid of a window; `widthMs` for buckets of another width than its length calls for (a digest's days). */
export function bucketGrid(
  window: OriginWindow,
  widthMs = bucketWidthFor(window.endMs - window.startMs),
): BucketGrid {
  const startMs = floorTo(window.startMs, widthMs);
  const count = Math.max(1, Math.ceil((window.endMs - startMs) / widthMs));
  return { startMs, widthMs, count };
}

/**
 * The bars to draw: every bucket up to the one holding `asOfMs` (now, or the window's end when
 * that is earlier), none after it unless entries are stamped there, so hours still to come are
 * never drawn as zeros. A bucket cut by the window's start or by now is marked partial.
 */
export function chartBuckets(
  grid: BucketGrid,
  counts: readonly number[],
  window: OriginWindow,
  asOfMs: number,
): ChartBucket[] {
  const until = Math.min(window.endMs, asOfMs);
  const out: ChartBucket[] = [];
  for (let i = 0; i < grid.count; i++) {
    const start = grid.startMs + i * grid.widthMs;
    const end = start + grid.widthMs;
    const count = counts[i] ?? 0;
    if (start >= until && !(start < window.endMs && count > 0)) continue;
    const partial = start < window.startMs || (until < end && start < until);
    out.push(partial ? { start: new Date(start), count, partial } : { start: new Date(start), count });
  }
  return out;
}

/** UTC midnights of the days with an instant in [startMs, endMs), oldest first; at least the day of `startMs`. */
export function utcDaysTouched(startMs: number, endMs: number): number[] {
  const first = floorTo(startMs, DAY_MS);
  const last = floorTo(Math.max(startMs, endMs - 1), DAY_MS);
  const days: number[] = [];
  for (let day = first; day <= last; day += DAY_MS) days.push(day);
  return days;
}

export type ComparisonKind = 'previous' | 'dayBefore';

export interface ComparisonWindow extends OriginWindow {
  kind: ComparisonKind;
}

export interface OriginFetchPlan {
  /** The window as counted: from its start to now, or to its end when that is earlier. */
  counted: OriginWindow;
  /** UTC days the window itself touches, oldest first. */
  windowDays: number[];
  /** Every day to fetch, in the order fetched: the window's days, then those only comparisons need. */
  days: number[];
  /** The earlier windows counted beside it. */
  comparisons: ComparisonWindow[];
  /** Comparisons left out because they would cost more days than COMPARISON_EXTRA_DAYS, and how many. */
  skipped: { kind: ComparisonKind; extraDays: number }[];
}

/**
 * What to fetch for a window seen at `asOfMs`: its own days, and for the previous window of the
 * same length and the same window a day earlier, the days they add, within `maxExtraDays`. When
 * both do not fit, the day-earlier one (at most one extra day) is kept. Comparisons are of the
 * part of the window that has happened, so a day still running is compared like for like.
 */
export function planOriginFetch(
  window: OriginWindow,
  asOfMs: number,
  maxExtraDays = COMPARISON_EXTRA_DAYS,
): OriginFetchPlan {
  const counted = {
    startMs: window.startMs,
    endMs: Math.max(window.startMs, Math.min(window.endMs, asOfMs)),
  };
  const windowDays = utcDaysTouched(counted.startMs, counted.endMs);
  const length = counted.endMs - counted.startMs;
  const candidates: ComparisonWindow[] = [];
  if (length > 0) {
    candidates.push({ kind: 'previous', startMs: counted.startMs - length, endMs: counted.startMs });
    // A whole day's previous window is the day before: counted once.
    if (length !== DAY_MS)
      candidates.push({
        kind: 'dayBefore',
        startMs: counted.startMs - DAY_MS,
        endMs: counted.endMs - DAY_MS,
      });
  }
  const own = new Set(windowDays);
  const extraOf = (windows: readonly ComparisonWindow[]) => {
    const extra = new Set<number>();
    for (const w of windows)
      for (const day of utcDaysTouched(w.startMs, w.endMs)) if (!own.has(day)) extra.add(day);
    return [...extra].sort((a, b) => a - b);
  };
  let comparisons = candidates;
  const skipped: OriginFetchPlan['skipped'] = [];
  if (extraOf(comparisons).length > maxExtraDays) {
    const previous = candidates.find((w) => w.kind === 'previous');
    if (previous) skipped.push({ kind: 'previous', extraDays: extraOf([previous]).length });
    comparisons = candidates.filter((w) => w.kind !== 'previous');
    if (extraOf(comparisons).length > maxExtraDays) {
      for (const w of comparisons) skipped.push({ kind: w.kind, extraDays: extraOf([w]).length });
      comparisons = [];
    }
  }
  return { counted, windowDays, days: [...windowDays, ...extraOf(comparisons)], comparisons, skipped };
}

/** The change from `before` to `now` as a whole percentage, or undefined when there was nothing before. */
export function percentChange(now: number, before: number): number | undefined {
  if (before <= 0) return undefined;
  return Math.round(((now - before) / before) * 100);
}
