/**
 * What `/edge stats` answers: in the channel, a headline read at a glance (requests, bandwidth,
 * cache hit rate, 4xx and 5xx shares, median origin response time, each against the previous
 * window of the same length, and the worst point), with a button to the origin errors of the
 * same window; in its thread, the charts and every series as CSV. A window the platform has no
 * points for is said privately: an empty answer is not an all-clear.
 */
import type { EdgeStatistics, StatisticsPoint } from '../../platform/statistics.js';
import { type Markup, md, mention } from '../../reply/markup.js';
import {
  commandButton,
  ephemeral,
  inChannel,
  type Reply,
  type ReplyBlock,
  type ReplyCell,
  type ReplyTable,
} from '../../reply/model.js';
import { counted, number } from '../../reply/words.js';
import type { ChartPicture } from '../../reports/chart/render.js';
import { formatLineValue, type SeriesChart, seriesText } from '../../reports/chart/series.js';
import { bucketWidthWords } from '../../reports/chart/text.js';
import { csvRecord } from '../../reports/csv/safety.js';
import { MAX_WINDOW_MS as MAX_LOGS_WINDOW_MS } from '../../reports/origin/window.js';
import { type EdgeFigures, edgeFigures, shareOf, worstPoint } from './figures.js';
import { describeStatsWindow, type StatsWindow, windowLength } from './window.js';

const DAY_MS = 86_400_000;

/** Everything known once the platform answered: the answer is drawn from this alone. */
export interface StatsResult {
  pullZoneId: number;
  /** The zone's name, shown beside its id. */
  zoneName: string;
  window: StatsWindow;
  current: EdgeStatistics;
  /** Points the platform dated outside the window, left out of `current`. */
  outside?: number;
  /** The previous window's numbers, or what the platform said instead. */
  previous: EdgeStatistics | { failed: string };
  /** The width of a point: an hour up to 7 days, a day beyond. */
  stepMs: number;
  nowMs: number;
  requester: string;
  filename: string;
  /** The pictures of statsCharts, in order; a missing one is shown as its text. */
  pictures?: readonly (ChartPicture | undefined)[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/** `14:00 UTC`, or with its date when the window spans days, or the date alone for a daily point. */
function pointTime(result: StatsResult, ms: number): string {
  if (result.stepMs >= DAY_MS) return `on ${iso(ms).slice(0, 10)}`;
  const spansDays =
    Math.floor(result.window.startMs / DAY_MS) !== Math.floor((result.window.endMs - 1) / DAY_MS);
  return `at ${spansDays ? `${iso(ms).slice(0, 10)} ` : ''}${clock(ms)} UTC`;
}

const BYTE_UNITS = ['KB', 'MB', 'GB', 'TB', 'PB'];
/** Bandwidth as the platform's dashboard counts it: powers of 1000. */
function bandwidth(bytes: number): string {
  if (bytes < 1000) return counted(Math.round(bytes), 'byte');
  let value = bytes;
  let unit = -1;
  while (value >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

const arrow = (delta: number) => (delta > 0 ? '↑' : delta < 0 ? '↓' : '→');

/** `↑ 12%`, `↓ 3%`, `→ 0%`, `new`: a relative change. */
function relative(now: number, before: number): string {
  if (before <= 0) return now > 0 ? 'new' : '→ 0%';
  const change = Math.round(((now - before) / before) * 100);
  return `${arrow(change)} ${Math.abs(change)}%`;
}

/** `↓ 3.1 pts`: a change of a percentage, in percentage points. */
function points(now: number, before: number): string {
  // Below 1%, a tenth of a point is most of the value: two decimals then.
  const scale = Math.max(Math.abs(now), Math.abs(before)) < 1 ? 100 : 10;
  const delta = Math.round((now - before) * scale) / scale;
  return `${arrow(delta)} ${Math.abs(delta)} pts`;
}

type Figure = keyof Omit<EdgeFigures, 'points'>;

const FIGURES: readonly {
  key: Figure;
  label: string;
  show: (value: number) => string;
  change: (now: number, before: number) => string;
}[] = [
  { key: 'requests', label: 'Requests', show: number, change: relative },
  { key: 'bandwidthBytes', label: 'Bandwidth', show: bandwidth, change: relative },
  {
    key: 'cacheHitRate',
    label: 'Cache hit rate',
    show: (v) => formatLineValue(v, 'percent'),
    change: points,
  },
  { key: 'share4xx', label: '4xx share', show: (v) => formatLineValue(v, 'percent'), change: points },
  { key: 'share5xx', label: '5xx share', show: (v) => formatLineValue(v, 'percent'), change: points },
  {
    key: 'originResponseMs',
    label: 'Origin response (median)',
    show: (v) => formatLineValue(v, 'ms'),
    change: relative,
  },
];

/** `1,403,600 · ↑ 12% (was 1,250,000)`; a figure the platform did not give is a dash. */
function figureCell(
  figure: (typeof FIGURES)[number],
  now: EdgeFigures,
  before: EdgeFigures | undefined,
): Markup {
  const value = now[figure.key];
  if (value === null) return md`—`;
  const earlier = before?.[figure.key] ?? null;
  if (earlier === null) return md`${figure.show(value)}`;
  return md`${figure.show(value)} · ${figure.change(value, earlier)} (was ${figure.show(earlier)})`;
}

/** The three charts: requests with the error shares, the cache hit rate, the origin response time. */
export function statsCharts(result: StatsResult): SeriesChart[] {
  const { points } = result.current;
  const starts = points.map((point) => point.atMs);
  const asOf = Math.min(result.window.endMs, result.nowMs);
  const partial = points.map(
    (point) => point.atMs < result.window.startMs || point.atMs + result.stepMs > asOf,
  );
  const where = `pull zone ${result.pullZoneId}`;
  const values = (pick: (point: StatisticsPoint) => number | null) => points.map(pick);
  return [
    {
      kind: 'series',
      title: `Requests and error shares · ${where}`,
      stepMs: result.stepMs,
      starts,
      bars: { label: 'requests', values: values((point) => point.requests), partial },
      lines: [
        { label: '4xx share', values: values((point) => shareOf(point.errors4xx, point.requests)) },
        { label: '5xx share', values: values((point) => shareOf(point.errors5xx, point.requests)) },
      ],
      lineUnit: 'percent',
    },
    {
      kind: 'series',
      title: `Cache hit rate (0–100%) · ${where}`,
      stepMs: result.stepMs,
      starts,
      lines: [{ label: 'cache hit rate', values: values((point) => point.cacheHitRate) }],
      lineUnit: 'percent',
    },
    {
      kind: 'series',
      title: `Origin response time · ${where}`,
      stepMs: result.stepMs,
      starts,
      lines: [{ label: 'origin response time', values: values((point) => point.originResponseMs) }],
      lineUnit: 'ms',
    },
  ];
}

const CHART_FILES = ['requests', 'cache', 'origin-time'];

/** Every series, one row per point; the cache hit rate and the shares in percent (0–100). */
export function statsCsv(result: StatsResult): string {
  const cell = (value: number | null) => (value === null ? '' : String(Math.round(value * 10_000) / 10_000));
  const rows = [
    csvRecord([
      'timestamp',
      'requests',
      'origin_requests',
      'bandwidth_bytes',
      'cache_hit_rate_percent',
      'errors_4xx',
      'errors_5xx',
      'share_4xx_percent',
      'share_5xx_percent',
      'origin_response_time_ms',
    ]),
  ];
  for (const point of result.current.points)
    rows.push(
      csvRecord([
        iso(point.atMs),
        cell(point.requests),
        cell(point.originRequests),
        cell(point.bandwidthBytes),
        cell(point.cacheHitRate),
        cell(point.errors4xx),
        cell(point.errors5xx),
        cell(shareOf(point.errors4xx, point.requests)),
        cell(shareOf(point.errors5xx, point.requests)),
        cell(point.originResponseMs),
      ]),
    );
  return rows.join('');
}

/** The origin errors of the same window, or of its last 72 hours when it is longer than logs read. */
function originErrorsButton(result: StatsResult) {
  const endMs = Math.min(result.window.endMs, result.nowMs);
  const startMs = Math.max(result.window.startMs, endMs - MAX_LOGS_WINDOW_MS);
  const text =
    startMs === result.window.startMs ? 'Origin errors for this window' : 'Origin errors, its last 72h';
  return commandButton(text, `logs ${result.pullZoneId} --from ${iso(startMs)} --to ${iso(endMs)}`);
}

function worstWords(result: StatsResult): Markup {
  const worst = worstPoint(result.current.points);
  if (!worst) return md`no 4xx or 5xx responses`;
  return md`${worst.kind} peaked at ${formatLineValue(worst.share, 'percent')} ${pointTime(result, worst.atMs)}`;
}

function previousWords(result: StatsResult): string {
  const length = windowLength(result.window);
  const span = describeStatsWindow({
    startMs: 2 * result.window.startMs - result.window.endMs,
    endMs: result.window.startMs,
  });
  if ('failed' in result.previous)
    return `Not compared with the previous ${length}: ${result.previous.failed}.`;
  if (result.previous.points.length === 0)
    return `Not compared: the platform returned no points for the previous ${length} (${span}).`;
  return `Against the previous ${length} (${span}).`;
}

const title = (result: StatsResult) =>
  `pull zone ${result.pullZoneId}${result.zoneName ? ` (${result.zoneName})` : ''} · ${describeStatsWindow(result.window)}`;

/** A value rounded to `digits` decimals, or empty (a dash) where the platform gave none. */
const rounded = (value: number | null, digits: number): ReplyCell =>
  value === null ? '' : Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * Every point of the series, a row each: its time, and the numbers as number columns. The CSV
 * beside it has them all, with the columns the table leaves out.
 */
function seriesTable(result: StatsResult): ReplyTable {
  const { points } = result.current;
  const asOf = Math.min(result.window.endMs, result.nowMs);
  const daily = result.stepMs >= DAY_MS;
  const dated =
    points.length > 0 && iso(points[0]!.atMs).slice(0, 10) !== iso(points.at(-1)!.atMs).slice(0, 10);
  const time = (ms: number) =>
    daily ? iso(ms).slice(0, 10) : dated ? `${iso(ms).slice(5, 10)} ${clock(ms)}` : clock(ms);
  return {
    columns: [
      { header: daily ? 'Day (UTC)' : 'Hour (UTC)', kind: 'text' },
      { header: 'Requests', kind: 'number' },
      { header: 'Bandwidth (MB)', kind: 'number' },
      { header: 'Cache hit rate %', kind: 'number' },
      { header: '4xx share %', kind: 'number' },
      { header: '5xx share %', kind: 'number' },
      { header: 'Origin response ms', kind: 'number' },
    ],
    rows: points.map((point) => [
      // A point cut by the window's start or still running counts only part of its hour or day.
      `${time(point.atMs)}${point.atMs < result.window.startMs || point.atMs + result.stepMs > asOf ? ' (partial)' : ''}`,
      rounded(point.requests, 0),
      rounded(point.bandwidthBytes === null ? null : point.bandwidthBytes / 1_000_000, 1),
      rounded(point.cacheHitRate, 1),
      rounded(shareOf(point.errors4xx, point.requests), 2),
      rounded(shareOf(point.errors5xx, point.requests), 2),
      rounded(point.originResponseMs, 0),
    ]),
    // Past the rows a message shows, the CSV of every series has them all.
    file: result.filename,
  };
}

/** The thread: the series as a table, the three charts, and the CSV of every series. */
export function renderStatsThread(result: StatsResult): Reply {
  const charts = statsCharts(result);
  const width = bucketWidthWords(result.stepMs);
  const blocks: ReplyBlock[] = [
    { type: 'header', text: `Edge numbers · ${title(result)}` },
    {
      type: 'context',
      text: md`${counted(result.current.points.length, `point`)} from the platform, one per ${width} (UTC). The cache hit rate and the error shares are percentages (0–100), as the platform's dashboard shows them; the shares are 4xx and 5xx responses over requests served; bandwidth in MB of 1,000,000 bytes.`,
    },
    { type: 'table', table: seriesTable(result) },
  ];
  // A chart not drawn as a picture is left out: the table above has its numbers.
  charts.forEach((chart, index) => {
    const picture = result.pictures?.[index];
    if (picture)
      blocks.push({
        type: 'image',
        image: {
          filename: result.filename
            .replace(/^stats-/, `stats-${CHART_FILES[index]}-`)
            .replace(/\.csv$/, '.png'),
          title: chart.title,
          png: picture.png,
          altText: picture.altText,
          text: seriesText(chart).join('\n'),
        },
      });
  });
  if (result.outside)
    blocks.push({
      type: 'context',
      text: md`:warning: ${counted(result.outside, 'point')} dated outside the window ${result.outside === 1 ? 'was' : 'were'} left out: the platform sent more than was asked for.`,
    });
  if (result.current.unreadKeys > 0)
    blocks.push({
      type: 'context',
      text: md`:warning: ${counted(result.current.unreadKeys, 'value')} of the platform's charts had a date that is no ISO 8601 date-time; they are left out.`,
    });
  return {
    ...inChannel(
      `Edge numbers for pull zone ${result.pullZoneId}, ${describeStatsWindow(result.window)}`,
      blocks,
    ),
    files: [
      {
        filename: result.filename,
        title: `Edge numbers, pull zone ${result.pullZoneId}, ${describeStatsWindow(result.window)}`,
        content: statsCsv(result),
        about: `every series, ${counted(result.current.points.length, 'point')}`,
        comment: `Edge numbers per ${width} for pull zone ${result.pullZoneId}, ${describeStatsWindow(result.window)}; cache hit rate and shares in percent (0–100)`,
      },
    ],
  };
}

/** The headline in the channel, the thread below it. */
export function renderStatsHeadline(result: StatsResult): Reply {
  const now = edgeFigures(result.current);
  const before =
    'failed' in result.previous || result.previous.points.length === 0
      ? undefined
      : edgeFigures(result.previous);
  const requests = now.requests === null ? 'Edge numbers' : `${number(now.requests)} requests`;
  return {
    ...inChannel(`${requests} for pull zone ${result.pullZoneId}, ${describeStatsWindow(result.window)}`, [
      { type: 'text', text: md`*${requests}* at the edge · ${title(result)}` },
      {
        type: 'fields',
        fields: [
          ...FIGURES.map((figure) => ({ label: figure.label, value: figureCell(figure, now, before) })),
          { label: 'Worst point', value: worstWords(result) },
          { label: 'Asked by', value: mention(result.requester) },
        ],
      },
      { type: 'context', text: md`${previousWords(result)} Cache hit rate and shares in percent (0–100).` },
      { type: 'actions', buttons: [originErrorsButton(result)] },
    ]),
    thread: [renderStatsThread(result)],
  };
}

/** The private answer when the platform sent no point for the window: no file, no all-clear. */
export function renderNoPoints(result: Omit<StatsResult, 'previous'>): Reply {
  const text = `The platform returned no statistics points for pull zone ${result.pullZoneId}, ${describeStatsWindow(result.window)}.`;
  return ephemeral(text, [
    {
      type: 'text',
      text: md`${text} Either the zone served no traffic then, or the platform has no numbers for that time yet. No file posted.`,
    },
    { type: 'actions', buttons: [originErrorsButton({ ...result, previous: { failed: '' } })] },
  ]);
}
