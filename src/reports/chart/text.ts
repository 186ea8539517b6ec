/**
 * Errors per bucket as a text bar chart, one line per bucket, for a code block in chat or the
 * terminal: no image rendering, no native dependency, readable at a glance. It is the console's
 * view and the fallback wherever a picture cannot be shown; a picture takes the same buckets.
 */

/** One bar of the chart: the errors of the bucket that starts at `start` and lasts the chart's width. */
export interface ChartBucket {
  start: Date;
  count: number;
  /**
   * The bucket covers only part of its width: the one still running at "now", or one the window
   * starts or ends inside. Its bar is not comparable with the others as it stands; the text bars
   * and the picture (chart/bucket.ts) both say so.
   */
  partial?: boolean;
}

const FULL_BLOCK = '█';
/** Left-aligned partial blocks for 1/8 … 7/8 of a character cell. */
const EIGHTHS = ['▏', '▎', '▍', '▌', '▋', '▊', '▉'] as const;
const PARTIAL_MARK = ' (partial)';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const countFormat = new Intl.NumberFormat('en-US');

/** A bar of `width` character cells at `max`, in eighths of a cell; at least an eighth above zero. */
export function bar(value: number, max: number, width: number): string {
  if (value <= 0 || max <= 0) return '';
  // At least one eighth, so a bucket with a single error is still visible next to a busy one.
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  const full = Math.floor(eighths / 8);
  const rest = eighths % 8;
  return FULL_BLOCK.repeat(full) + (rest > 0 ? EIGHTHS[rest - 1] : '');
}

/** "minute", "5 min", "15 min", "hour", "2 h": what one bar counts, for a chart's title. */
export function bucketWidthWords(widthMs: number): string {
  if (widthMs === MINUTE_MS) return 'minute';
  if (widthMs === HOUR_MS) return 'hour';
  if (widthMs === DAY_MS) return 'day';
  if (widthMs % HOUR_MS === 0) return `${widthMs / HOUR_MS} h`;
  if (widthMs % MINUTE_MS === 0) return `${widthMs / MINUTE_MS} min`;
  return `${widthMs / 1000} s`;
}

const utcDate = (ms: number) => new Date(ms).toISOString().slice(5, 10);
const utcTime = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/**
 * One line per bucket, in the order given: `14:00 ████████████▍ 1,234`, with the UTC date in
 * front (`11-20 23:45`) when the buckets span more than one UTC day. Bars are scaled to the
 * busiest bucket and padded to `width` so the numbers line up; a partial bucket says so.
 */
export function bucketBars(buckets: readonly ChartBucket[], widthMs: number, width = 30): string[] {
  const clean = buckets.map((bucket) => ({
    start: bucket.start.getTime(),
    count: Number.isFinite(bucket.count) && bucket.count > 0 ? bucket.count : 0,
    partial: bucket.partial === true,
  }));
  const max = Math.max(0, ...clean.map((bucket) => bucket.count));
  const columns = Math.max(1, Math.floor(width));
  const first = clean[0]?.start ?? 0;
  const last = clean.at(-1)?.start ?? 0;
  const spansDays = Math.floor(first / DAY_MS) !== Math.floor((last + Math.max(0, widthMs) - 1) / DAY_MS);
  const showDate = spansDays || widthMs >= DAY_MS;
  return clean.map(({ start, count, partial }) => {
    const label = showDate ? `${utcDate(start)} ${utcTime(start)}` : utcTime(start);
    return `${label} ${bar(count, max, columns).padEnd(columns, ' ')} ${countFormat.format(count)}${partial ? PARTIAL_MARK : ''}`;
  });
}
