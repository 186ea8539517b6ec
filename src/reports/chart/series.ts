/**
 * Values per point in time that are not counts of one thing (percentages, milliseconds), as a
 * picture: optional count bars on the left axis (requests), and lines on their own axis (the 4xx
 * and 5xx shares beside them, or a cache hit rate, or a response time alone). Drawn like the
 * bucket chart (bucket.ts): same size, font, time labels and alt text that says in words what
 * the picture shows. Pure: no clock, no I/O. Times are UTC.
 */
import { z } from 'zod';
import { counted } from '../../reply/words.js';
import {
  CHART_FONT_FAMILY,
  CHART_LAYOUT,
  COLOURS,
  clock,
  countStep,
  DAY,
  isoDay,
  MONTHS,
  round,
  spansDays,
  spanWords,
  text,
  timeLabelStep,
} from './bucket.js';
import { bar, bucketWidthWords } from './text.js';

/** What the lines measure: a percentage (0–100) or milliseconds. */
export type LineUnit = 'percent' | 'ms';

export interface SeriesChart {
  kind: 'series';
  /** Plain text, drawn above the plot. */
  title: string;
  /** The time each point covers. */
  stepMs: number;
  /** Each point's start, oldest first. */
  starts: readonly number[];
  /** Counts drawn as bars, one per point; `partial` marks a point that covers part of its step. */
  bars?: { label: string; values: readonly (number | null)[]; partial?: readonly boolean[] };
  /** Lines on one axis in `lineUnit`; a null leaves a gap. */
  lines: readonly { label: string; values: readonly (number | null)[] }[];
  lineUnit: LineUnit;
}

/** 90 days of hours is more than any window asks: daily points beyond 7 days. */
export const MAX_SERIES_POINTS = 2_200;

const Values = z.array(z.number().finite().nullable()).max(MAX_SERIES_POINTS);

export const SeriesChartSchema = z
  .strictObject({
    kind: z.literal('series'),
    title: z.string().max(300),
    stepMs: z.number().int().min(60_000),
    starts: z.array(z.number().finite()).min(1).max(MAX_SERIES_POINTS),
    bars: z
      .strictObject({
        label: z.string().max(60),
        values: Values,
        partial: z.array(z.boolean()).max(MAX_SERIES_POINTS).optional(),
      })
      .optional(),
    lines: z
      .array(z.strictObject({ label: z.string().max(60), values: Values }))
      .min(1)
      .max(3),
    lineUnit: z.enum(['percent', 'ms']),
  })
  .refine(
    (chart) =>
      chart.lines.every((line) => line.values.length === chart.starts.length) &&
      (chart.bars === undefined || chart.bars.values.length === chart.starts.length),
    { error: 'every series has one value per point' },
  );

const LINE_COLOURS = ['#2563eb', '#7c3aed', '#059669'];
const countFormat = new Intl.NumberFormat('en-US');

/** `4.1%`, `0.25%`, `182 ms`: as the answer and the alt text write a value. */
export function formatLineValue(value: number, unit: LineUnit): string {
  if (unit === 'ms') return `${countFormat.format(Math.round(value))} ms`;
  const digits = value !== 0 && Math.abs(value) < 1 ? 2 : 1;
  return `${value.toFixed(digits)}%`;
}

/** The highest and lowest value of a series, each at its earliest point. */
function extremes(starts: readonly number[], values: readonly (number | null)[]) {
  let high: { at: number; value: number } | undefined;
  let low: { at: number; value: number } | undefined;
  values.forEach((value, index) => {
    if (value === null) return;
    if (!high || value > high.value) high = { at: starts[index]!, value };
    if (!low || value < low.value) low = { at: starts[index]!, value };
  });
  return { high, low };
}

/**
 * What the picture shows, in one paragraph for screen readers: the span, the step, each bar
 * series' total and peak, and each line's peak and low with their times.
 */
export function seriesAltText(chart: SeriesChart): string {
  const from = chart.starts[0]!;
  const to = chart.starts.at(-1)! + chart.stepMs;
  const width = bucketWidthWords(chart.stepMs);
  const when = (ms: number) =>
    chart.stepMs >= DAY
      ? isoDay(ms)
      : spansDays(from, to)
        ? `${isoDay(ms)} ${clock(ms)} UTC`
        : `${clock(ms)} UTC`;
  const parts = [
    `Chart: ${chart.title}.`,
    `${counted(chart.starts.length, 'point')}, one per ${width}, ${spanWords(from, to)}.`,
  ];
  if (chart.bars) {
    const { high } = extremes(chart.starts, chart.bars.values);
    const total = chart.bars.values.reduce<number>((sum, value) => sum + (value ?? 0), 0);
    parts.push(
      high
        ? `${chart.bars.label} as bars: total ${countFormat.format(total)}, peak ${countFormat.format(high.value)} at ${when(high.at)}.`
        : `${chart.bars.label}: no values.`,
    );
  }
  for (const line of chart.lines) {
    const { high, low } = extremes(chart.starts, line.values);
    parts.push(
      high && low
        ? `${line.label} as a line: peaked at ${formatLineValue(high.value, chart.lineUnit)} at ${when(high.at)}, lowest ${formatLineValue(low.value, chart.lineUnit)} at ${when(low.at)}.`
        : `${line.label}: no values.`,
    );
  }
  const partial = chart.bars?.partial?.filter(Boolean).length ?? 0;
  if (partial > 0)
    parts.push(
      `${counted(partial, 'bar')} ${partial === 1 ? 'covers' : 'cover'} only part of ${partial === 1 ? 'its' : 'their'} ${width}.`,
    );
  return parts.join(' ');
}

/** The top of a line axis: 100 for rates that reach past half, else a round step above the peak. */
function lineTop(max: number, unit: LineUnit): { top: number; every: number } {
  if (unit === 'percent' && max > 50) return { top: 100, every: 20 };
  if (unit === 'percent' && max <= 0) return { top: 1, every: 0.2 };
  const headroom = max * 1.1 || 1;
  const rough = headroom / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const every = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough) ?? rough;
  return { top: Math.ceil(headroom / every) * every, every };
}

const axisWords = (value: number, unit: LineUnit) =>
  unit === 'ms' ? `${countFormat.format(value)} ms` : `${round(value)}%`;

/** The chart as SVG, CHART_LAYOUT's size, its words in CHART_FONT_FAMILY. */
export function seriesSvg(chart: SeriesChart): string {
  const { width: WIDTH, height: HEIGHT } = CHART_LAYOUT;
  const plot = { x: 64, y: 64, width: WIDTH - 64 - (chart.bars ? 64 : 20), height: HEIGHT - 64 - 44 };
  const count = chart.starts.length;
  const from = chart.starts[0]!;
  const to = chart.starts.at(-1)! + chart.stepMs;
  const slot = plot.width / count;
  const xOfPoint = (index: number) => plot.x + (index + 0.5) * slot;
  const baseline = plot.y + plot.height;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="${CHART_FONT_FAMILY}">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    text(16, 26, chart.title, { size: 15, fill: COLOURS.text }),
  ];
  let legendX = 16;
  const legend = (colour: string, words: string, line: boolean) => {
    parts.push(
      line
        ? `<line x1="${legendX}" y1="43" x2="${legendX + 12}" y2="43" stroke="${colour}" stroke-width="2.5"/>`
        : `<rect x="${legendX}" y="38" width="10" height="10" fill="${colour}"/>`,
    );
    parts.push(text(legendX + 17, 47, words));
    legendX += 17 + words.length * 6.2 + 18;
  };
  if (chart.bars) legend(COLOURS.bar, `${chart.bars.label} per ${bucketWidthWords(chart.stepMs)}`, false);
  for (const [index, line] of chart.lines.entries()) legend(LINE_COLOURS[index]!, line.label, true);

  const lineMax = Math.max(0, ...chart.lines.flatMap((line) => line.values.map((value) => value ?? 0)));
  const lines = lineTop(lineMax, chart.lineUnit);
  const yOfLine = (value: number) => baseline - (value / lines.top) * plot.height;
  // Gridlines follow the left axis: the bars' counts when there are bars, else the lines' values.
  if (chart.bars) {
    const peak = Math.max(0, ...chart.bars.values.map((value) => value ?? 0));
    const every = countStep(peak * 1.08);
    const top = Math.max(every, Math.ceil((peak * 1.08) / every) * every);
    const yOfCount = (value: number) => baseline - (value / top) * plot.height;
    for (let value = 0; value <= top; value += every) {
      const y = round(yOfCount(value));
      parts.push(
        `<line x1="${plot.x}" y1="${y}" x2="${plot.x + plot.width}" y2="${y}" stroke="${value === 0 ? COLOURS.axis : COLOURS.grid}" stroke-width="1"/>`,
      );
      parts.push(text(plot.x - 8, y + 4, countFormat.format(value), { anchor: 'end' }));
    }
    const gap = slot >= 6 ? Math.min(3, slot * 0.15) : 0;
    chart.bars.values.forEach((value, index) => {
      if (!value || value <= 0) return;
      const height = Math.max(0.5, baseline - yOfCount(value));
      const paint = chart.bars?.partial?.[index]
        ? `class="bar partial" fill="${COLOURS.partial}" stroke="${COLOURS.bar}" stroke-width="1" stroke-dasharray="3 2"`
        : `class="bar" fill="${COLOURS.bar}" fill-opacity="0.55"`;
      parts.push(
        `<rect x="${round(plot.x + index * slot + gap / 2)}" y="${round(baseline - height)}" width="${round(Math.max(0.5, slot - gap))}" height="${round(height)}" ${paint}/>`,
      );
    });
    for (let value = 0; value <= lines.top + lines.every / 1000; value += lines.every)
      parts.push(text(plot.x + plot.width + 8, round(yOfLine(value)) + 4, axisWords(value, chart.lineUnit)));
  } else {
    for (let value = 0; value <= lines.top + lines.every / 1000; value += lines.every) {
      const y = round(yOfLine(value));
      parts.push(
        `<line x1="${plot.x}" y1="${y}" x2="${plot.x + plot.width}" y2="${y}" stroke="${value === 0 ? COLOURS.axis : COLOURS.grid}" stroke-width="1"/>`,
      );
      parts.push(text(plot.x - 8, y + 4, axisWords(value, chart.lineUnit), { anchor: 'end' }));
    }
  }

  chart.lines.forEach((line, index) => {
    const colour = LINE_COLOURS[index]!;
    // A gap (null) ends a run; a run of one point is a dot.
    let run: string[] = [];
    const flush = () => {
      if (run.length === 1) {
        const [x, y] = run[0]!.split(',');
        parts.push(`<circle cx="${x}" cy="${y}" r="2.5" fill="${colour}" class="line"/>`);
      } else if (run.length > 1)
        parts.push(
          `<polyline points="${run.join(' ')}" fill="none" stroke="${colour}" stroke-width="2" stroke-linejoin="round" class="line"/>`,
        );
      run = [];
    };
    line.values.forEach((value, point) => {
      if (value === null) flush();
      else run.push(`${round(xOfPoint(point))},${round(yOfLine(value))}`);
    });
    flush();
  });

  const acrossDays = spansDays(from, to);
  const timeEvery = timeLabelStep(chart.stepMs, to - from);
  for (let at = Math.ceil(from / timeEvery) * timeEvery; at <= to; at += timeEvery) {
    const x = round(plot.x + ((at - from) / (to - from)) * plot.width);
    const day = new Date(at);
    const words =
      acrossDays && at % DAY === 0
        ? `${MONTHS[day.getUTCMonth()]} ${day.getUTCDate()}`
        : at % DAY === 0 && at === to && at !== from
          ? '24:00'
          : clock(at);
    parts.push(`<line x1="${x}" y1="${baseline}" x2="${x}" y2="${baseline + 4}" stroke="${COLOURS.axis}"/>`);
    parts.push(text(x, baseline + 17, words, { anchor: 'middle' }));
  }
  parts.push('</svg>');
  return parts.join('\n');
}

/**
 * The chart as text, one line per point, for the console and wherever the picture is not: the
 * bar is the bar series (else the first line), then every series' value.
 */
export function seriesText(chart: SeriesChart, width = 24): string[] {
  const barValues = chart.bars?.values ?? chart.lines[0]!.values;
  const max = Math.max(0, ...barValues.map((value) => value ?? 0));
  const from = chart.starts[0]!;
  const dated = chart.stepMs >= DAY || spansDays(from, chart.starts.at(-1)! + chart.stepMs);
  return chart.starts.map((start, index) => {
    const label =
      chart.stepMs >= DAY
        ? isoDay(start)
        : dated
          ? `${isoDay(start).slice(5)} ${clock(start)}`
          : clock(start);
    const numbers = [
      ...(chart.bars ? [countFormat.format(chart.bars.values[index] ?? 0)] : []),
      ...chart.lines.map((line) => {
        const value = line.values[index];
        const shown = value === null || value === undefined ? '—' : formatLineValue(value, chart.lineUnit);
        return chart.lines.length > 1 || chart.bars ? `${line.label} ${shown}` : shown;
      }),
    ];
    const partial = chart.bars?.partial?.[index] ? ' (partial)' : '';
    return `${label} ${bar(barValues[index] ?? 0, max, width).padEnd(width, ' ')} ${numbers.join('  ')}${partial}`;
  });
}
