/**
 * The window of `/edge logs`, as people give it: a UTC day (`today`, `yesterday`, a date), the
 * last part of one (`--last 2h`, of today unless a day is named), or `--from T [--to T]`. A
 * past day is answered as today would be: `yesterday --last 2h` is the last two hours of
 * yesterday. The platform serves one UTC day per call; which days a window needs is worked
 * out in reports/origin/window.ts.
 */

import { DAY_MS, HOUR_MS, lastWindow, MAX_WINDOW_MS, MINUTE_MS } from '../../reports/origin/window.js';
import { parseDay } from '../shared/time-args.js';
import { parseWindowFlags, type WindowLimit } from '../shared/window.js';

export interface LogsWindow {
  kind: 'day' | 'last' | 'range';
  /** [startMs, endMs): the end as asked, which for today is its midnight, still to come. */
  startMs: number;
  endMs: number;
  /** The UTC day named (or today), for `day` and `last`. */
  dayMs?: number;
  /** The length asked for with `--last`. */
  lastMs?: number;
}

export type LogsWindowResult = { ok: true; window: LogsWindow } | { ok: false; error: string };

export interface LogsWindowInput {
  day?: string;
  last?: string;
  from?: string;
  to?: string;
}

const MAX_HOURS = MAX_WINDOW_MS / HOUR_MS;

/** Logs are served for any days, 72 hours of them at a time. */
const withinLogsLimit: WindowLimit = (window) => {
  if (window.kind === 'last')
    return window.lastMs > MAX_WINDOW_MS
      ? `--last covers at most ${MAX_HOURS}h; use --from and --to for an older window`
      : undefined;
  return window.endMs - window.startMs > MAX_WINDOW_MS
    ? `a window covers at most ${MAX_HOURS}h; make --from and --to closer`
    : undefined;
};

export function parseLogsWindow(input: LogsWindowInput, now: number): LogsWindowResult {
  const range = input.from !== undefined || input.to !== undefined;
  if (range && input.day !== undefined)
    return { ok: false, error: `give a day or --from/--to, not both ("${input.day.slice(0, 20)}")` };
  const day = range ? undefined : parseDay(input.day ?? 'today', now);
  if (day && !day.ok) return { ok: false, error: day.error };
  const flags = parseWindowFlags(input, now, withinLogsLimit);
  if (!flags.ok) return flags;
  const asked = flags.window;
  if (asked?.kind === 'range')
    return { ok: true, window: { kind: 'range', startMs: asked.startMs, endMs: asked.endMs } };
  const dayMs = day!.ms;
  const dayEnd = dayMs + DAY_MS;
  if (asked === undefined) return { ok: true, window: { kind: 'day', startMs: dayMs, endMs: dayEnd, dayMs } };
  // The last part of a day that is over ends at its midnight; of today, now.
  const endMs = Math.min(dayEnd, now);
  return {
    ok: true,
    window: { kind: 'last', ...lastWindow(endMs, asked.lastMs), dayMs, lastMs: asked.lastMs },
  };
}

/** `2h`, `90m`, `8h30m`, `72h`: a duration as short as it can be written exactly. */
export function formatLength(ms: number): string {
  if (ms % MINUTE_MS !== 0) return `${Math.round(ms / 1000)}s`;
  const hours = Math.floor(ms / HOUR_MS);
  const minutes = (ms % HOUR_MS) / MINUTE_MS;
  if (hours === 0) return `${minutes}m`;
  return minutes === 0 ? `${hours}h` : `${hours}h${minutes}m`;
}

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const floorDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/** `16:10–18:10 UTC`, `00:00–24:00 UTC`, or with dates when it crosses midnight. */
export function formatSpan(startMs: number, endMs: number): string {
  const time = (ms: number, day: number) =>
    ms - day === DAY_MS ? '24:00' : new Date(ms).toISOString().slice(11, 16);
  const day = floorDay(startMs);
  if (endMs - day <= DAY_MS) return `${time(startMs, day)}–${time(endMs, day)} UTC`;
  const dated = (ms: number) => `${isoDate(ms)} ${new Date(ms).toISOString().slice(11, 16)}`;
  return `${dated(startMs)} – ${dated(endMs)} UTC`;
}

/**
 * The window in words, in UTC, as a summary's title says it: `last 2h, 16:10–18:10 UTC`,
 * `2026-11-21, today so far, 00:00–14:05 UTC`, `last 2h of 2026-11-20, 22:00–24:00 UTC`.
 */
export function describeLogsWindow(window: LogsWindow, nowMs: number): string {
  const asOf = Math.max(window.startMs, Math.min(window.endMs, nowMs));
  const running = asOf < window.endMs;
  switch (window.kind) {
    case 'day':
      return running
        ? `${isoDate(window.startMs)}, today so far, ${formatSpan(window.startMs, asOf)}`
        : `${isoDate(window.startMs)}, ${formatSpan(window.startMs, window.endMs)}`;
    case 'last': {
      const length = formatLength(window.lastMs ?? window.endMs - window.startMs);
      const past = window.dayMs !== undefined && window.dayMs < floorDay(nowMs);
      return `last ${length}${past ? ` of ${isoDate(window.dayMs!)}` : ''}, ${formatSpan(window.startMs, window.endMs)}`;
    }
    case 'range': {
      const span = formatSpan(window.startMs, window.endMs);
      const dated = span.includes(' – ') ? span : `${isoDate(window.startMs)} ${span}`;
      return running ? `${dated}, so far (to ${new Date(asOf).toISOString().slice(11, 16)} UTC)` : dated;
    }
  }
}
