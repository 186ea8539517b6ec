/**
 * A count per time bucket as a bar chart picture: the SVG drawn here, rasterised by resvg in a
 * report worker (chart/worker.ts), and the alt text that says in words what the picture shows.
 * Pure: no clock, no I/O. Times are UTC, as in every answer of the bot.
 */
import { z } from 'zod';
import { counted } from '../../reply/words.js';
import { bucketWidthWords, type ChartBucket } from './text.js';

export interface BucketChart {
  /** Plain text, drawn above the bars. */
  title: string;
  /** The width of every bucket. */
  bucketMs: number;
  /** Consecutive buckets, oldest first. */
  buckets: readonly ChartBucket[];
  /** What is counted, plural ("errors"). */
  unit?: string;
}

/** A day of 1-minute buckets is the most any window draws. */
export const MAX_CHART_BUCKETS = 1_440;

export const BucketChartSchema = z.strictObject({
  title: z.string().max(300),
  bucketMs: z.number().int().min(1_000),
  buckets: z
    .array(
      z.strictObject({
        start: z.date(),
        count: z.number().int().nonnegative(),
        partial: z.boolean().optional(),
      }),
    )
    .min(1)
    .max(MAX_CHART_BUCKETS),
  unit: z.string().max(40).optional(),
});

/** The family the SVG asks for; the worker gives resvg this font and no other. */
export const CHART_FONT_FAMILY = 'Inter';
/** Pixels per SVG unit in the PNG: sharp on high-density screens, still small. */
export const CHART_SCALE = 2;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const WIDTH = 800;
const HEIGHT = 320;
const PLOT: Box = { x: 64, y: 64, width: WIDTH - 64 - 20, height: HEIGHT - 64 - 44 };

/**
 * Where the words are, in SVG units (multiply by CHART_SCALE for PNG pixels): the title and
 * legend band, the count labels left of the bars and the time labels below them. No bar
 * reaches into any of them.
 */
export const CHART_LAYOUT = {
  width: WIDTH,
  height: HEIGHT,
  plot: PLOT,
  titleBand: { x: 0, y: 0, width: WIDTH, height: PLOT.y - 8 },
  countLabels: { x: 0, y: PLOT.y - 6, width: PLOT.x - 8, height: PLOT.height + 12 },
  timeLabels: { x: PLOT.x - 24, y: PLOT.y + PLOT.height + 6, width: PLOT.width + 44, height: 22 },
} as const;

export const COLOURS = {
  bar: '#c2410c',
  partial: '#fdba74',
  grid: '#e5e7eb',
  axis: '#6b7280',
  text: '#111827',
  muted: '#4b5563',
};

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** Round UTC spacings of time labels, from a minute to a day. */
const LABEL_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440].map((minutes) => minutes * MINUTE);
const MAX_TIME_LABELS = 12;
export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const countFormat = new Intl.NumberFormat('en-US');
const pad = (n: number) => String(n).padStart(2, '0');
export const clock = (ms: number) => {
  const at = new Date(ms);
  return `${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}`;
};
export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export const escapeXml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[char]!,
  );

/** A round step for about five count labels: 1, 2 or 5 times a power of ten, never below 1. */
export function countStep(max: number): number {
  const rough = Math.max(1, max / 5);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough) ?? rough;
  return Math.max(1, step);
}

/** How far apart time labels are: a round UTC spacing, no finer than a bucket, at most 12 labels. */
export function timeLabelStep(bucketMs: number, windowMs: number): number {
  return (
    LABEL_STEPS.find((step) => step >= bucketMs && windowMs / step <= MAX_TIME_LABELS) ??
    Math.ceil(windowMs / MAX_TIME_LABELS / DAY) * DAY
  );
}

/** The biggest bucket (the earliest of equals) and the sum of all. */
function chartFigures(chart: BucketChart) {
  let peak = chart.buckets[0]!;
  let total = 0;
  for (const bucket of chart.buckets) {
    total += bucket.count;
    if (bucket.count > peak.count) peak = bucket;
  }
  const from = chart.buckets[0]!.start.getTime();
  const to = chart.buckets.at(-1)!.start.getTime() + chart.bucketMs;
  return { peak, total, from, to, partial: chart.buckets.filter((bucket) => bucket.partial) };
}

export const spansDays = (from: number, to: number) => Math.floor(from / DAY) !== Math.floor((to - 1) / DAY);

/** "from 16:00 to 18:00 UTC on 2026-11-21", or with both dates when the window spans days. */
export function spanWords(from: number, to: number): string {
  return spansDays(from, to)
    ? `from ${isoDay(from)} ${clock(from)} to ${isoDay(to)} ${clock(to)} UTC`
    : `from ${clock(from)} to ${to % DAY === 0 ? '24:00' : clock(to)} UTC on ${isoDay(from)}`;
}

/**
 * What the picture shows, in one paragraph for screen readers: the window, the bucket width,
 * the peak bucket and its count, the total, and which buckets count only part of their width.
 */
export function chartAltText(chart: BucketChart): string {
  const unit = chart.unit ?? 'events';
  // Units are plural nouns ("origin errors"); one of them drops the final s.
  const singular = unit.replace(/s$/, '');
  const { peak, total, from, to, partial } = chartFigures(chart);
  const width = bucketWidthWords(chart.bucketMs);
  // Across days, a bucket's start says its date too.
  const when = (ms: number) => (spansDays(from, to) ? `${isoDay(ms)} ${clock(ms)}` : clock(ms));
  const parts = [
    `Bar chart: ${chart.title}.`,
    `${counted(chart.buckets.length, 'bar')}, one per ${width}, ${spanWords(from, to)}.`,
    total === 0
      ? `No ${unit} in that time.`
      : `Peak ${when(peak.start.getTime())}–${clock(peak.start.getTime() + chart.bucketMs)} UTC with ${counted(peak.count, singular, unit)}; total ${counted(total, singular, unit)}.`,
  ];
  const partialStarts = partial.map((bucket) => when(bucket.start.getTime())).join(' and ');
  if (partial.length === 1)
    parts.push(`The bar from ${partialStarts} UTC is partial: it counts only part of its ${width}.`);
  else if (partial.length > 1)
    parts.push(`The bars from ${partialStarts} UTC are partial: each counts only part of its ${width}.`);
  return parts.join(' ');
}

export function text(
  x: number,
  y: number,
  content: string,
  options: { size?: number; anchor?: 'start' | 'middle' | 'end'; fill?: string } = {},
): string {
  return `<text x="${x}" y="${y}" font-size="${options.size ?? 11}" text-anchor="${options.anchor ?? 'start'}" fill="${options.fill ?? COLOURS.muted}">${escapeXml(content)}</text>`;
}

export const round = (n: number) => Math.round(n * 100) / 100;

/** The chart as SVG (CHART_LAYOUT's size), its words in CHART_FONT_FAMILY. */
export function chartSvg(chart: BucketChart): string {
  const { peak, from, to, partial } = chartFigures(chart);
  const unit = chart.unit ?? 'events';
  // Headroom above the peak for its count label, below the legend.
  const headroom = peak.count * 1.08;
  const countEvery = countStep(headroom);
  const top = Math.max(countEvery, Math.ceil(headroom / countEvery) * countEvery);
  const slot = PLOT.width / chart.buckets.length;
  const gap = slot >= 6 ? Math.min(3, slot * 0.15) : 0;
  const yOf = (count: number) => PLOT.y + PLOT.height - (count / top) * PLOT.height;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="${CHART_FONT_FAMILY}">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    text(16, 26, chart.title, { size: 15, fill: COLOURS.text }),
  ];

  // Legend: what a bar is, and the lighter partial bar when there is one.
  let legendX = 16;
  const legend = (colour: string, words: string) => {
    parts.push(`<rect x="${legendX}" y="38" width="10" height="10" fill="${colour}"/>`);
    parts.push(text(legendX + 15, 47, words));
    legendX += 15 + words.length * 6.2 + 18;
  };
  const width = bucketWidthWords(chart.bucketMs);
  legend(COLOURS.bar, `${unit} per ${width} (UTC)`);
  if (partial.length > 0) legend(COLOURS.partial, `partial: only part of its ${width}`);

  // Count gridlines and labels.
  for (let value = 0; value <= top; value += countEvery) {
    const y = round(yOf(value));
    parts.push(
      `<line x1="${PLOT.x}" y1="${y}" x2="${PLOT.x + PLOT.width}" y2="${y}" stroke="${value === 0 ? COLOURS.axis : COLOURS.grid}" stroke-width="1"/>`,
    );
    parts.push(text(PLOT.x - 8, y + 4, countFormat.format(value), { anchor: 'end' }));
  }

  // Bars.
  chart.buckets.forEach((bucket, index) => {
    if (bucket.count <= 0) return;
    const x = PLOT.x + index * slot + gap / 2;
    const y = yOf(bucket.count);
    // At least a pixel tall, so a bucket of one is visible beside a busy one.
    const height = Math.max(1 / CHART_SCALE, PLOT.y + PLOT.height - y);
    // A partial bar is lighter and outlined: it counts only part of its width, it is not a drop.
    const paint = bucket.partial
      ? `class="bar partial" fill="${COLOURS.partial}" stroke="${COLOURS.bar}" stroke-width="1" stroke-dasharray="3 2"`
      : `class="bar" fill="${COLOURS.bar}"`;
    parts.push(
      `<rect x="${round(x)}" y="${round(PLOT.y + PLOT.height - height)}" width="${round(Math.max(0.5, slot - gap))}" height="${round(height)}" ${paint}/>`,
    );
  });

  // The peak's count above its bar.
  if (peak.count > 0) {
    const index = chart.buckets.indexOf(peak);
    const x = Math.min(PLOT.x + PLOT.width - 16, Math.max(PLOT.x + 16, PLOT.x + (index + 0.5) * slot));
    parts.push(
      text(round(x), round(yOf(peak.count) - 4), countFormat.format(peak.count), {
        anchor: 'middle',
        fill: COLOURS.text,
      }),
    );
  }

  // Time ticks and labels on round UTC times; across days, midnight is named by its date.
  const acrossDays = spansDays(from, to);
  const timeEvery = timeLabelStep(chart.bucketMs, to - from);
  const baseline = PLOT.y + PLOT.height;
  // Time runs evenly along the axis, so a round time has its place even between bucket edges.
  for (let at = Math.ceil(from / timeEvery) * timeEvery; at <= to; at += timeEvery) {
    const x = round(PLOT.x + ((at - from) / (to - from)) * PLOT.width);
    const day = new Date(at);
    const midnight = at % DAY === 0;
    const words =
      acrossDays && midnight
        ? `${MONTHS[day.getUTCMonth()]} ${day.getUTCDate()}`
        : midnight && at === to && at !== from
          ? '24:00'
          : clock(at);
    parts.push(`<line x1="${x}" y1="${baseline}" x2="${x}" y2="${baseline + 4}" stroke="${COLOURS.axis}"/>`);
    parts.push(text(x, baseline + 17, words, { anchor: 'middle' }));
  }
  parts.push('</svg>');
  return parts.join('\n');
}
