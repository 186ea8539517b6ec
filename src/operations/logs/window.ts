/**
 * The window of `/edge logs`, as people give it: a UTC day (`today`, `yesterday`, a date), the
 * last part of one (`--last 2h`, of today unless a day is named), or `--from T [--to T]`. A
 * past day is answered as today would be: `yesterday --last 2h` is the last two hours of
 * yesterday. The platform serves one UTC day per call; which days a window needs is worked
 * out in reports/origin-window.ts.
 */

import { DAY_MS, HOUR_MS, MAX_WINDOW_MS, MINUTE_MS } from '../../reports/origin-window.js';
import { parseDuration } from '../../time/duration.js';
import { isTimeOfDay, parseDay, parseInstant } from '../shared/time-args.js';

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

/**
 * A time of day always means today; just after midnight, `--from 23:50` is therefore still to
 * come, and the error writes yesterday's 23:50 the one way that cannot be misread.
 */
function futureFromError(from: string, now: number): string {
  if (!isTimeOfDay(from)) return '--from is in the future; origin logs exist up to now';
  const time = from.trim();
  const yesterday = new Date(Math.floor(now / DAY_MS) * DAY_MS - DAY_MS).toISOString().slice(0, 10);
  const nowWords = new Date(now).toISOString().slice(11, 16);
  return `--from ${time} is later than now (${nowWords} UTC) and a time of day means today; for yesterday write --from ${yesterday}T${time}`;
}

export function parseLogsWindow(input: LogsWindowInput, now: number): LogsWindowResult {
  if (input.from !== undefined || input.to !== undefined) {
    if (input.day !== undefined)
      return { ok: false, error: `give a day or --from/--to, not both ("${input.day.slice(0, 20)}")` };
    if (input.last !== undefined)
      return { ok: false, error: '--last and --from/--to both set the window: use one of them' };
    if (input.from === undefined)
      return { ok: false, error: '--to needs a --from, e.g. --from -3h --to -1h' };
    const from = parseInstant(input.from, now);
    if (!from.ok) return { ok: false, error: `--from: ${from.error}` };
    const to = input.to === undefined ? { ok: true as const, ms: now } : parseInstant(input.to, now);
    if (!to.ok) return { ok: false, error: `--to: ${to.error}` };
    if (from.ms >= now) return { ok: false, error: futureFromError(input.from, now) };
    if (to.ms <= from.ms) return { ok: false, error: '--to must be after --from' };
    if (to.ms - from.ms > MAX_WINDOW_MS)
      return { ok: false, error: `a window covers at most ${MAX_HOURS}h; make --from and --to closer` };
    return { ok: true, window: { kind: 'range', startMs: from.ms, endMs: to.ms } };
  }
  const day = parseDay(input.day ?? 'today', now);
  if (!day.ok) return { ok: false, error: day.error };
  const dayEnd = day.ms + DAY_MS;
  if (input.last === undefined)
    return { ok: true, window: { kind: 'day', startMs: day.ms, endMs: dayEnd, dayMs: day.ms } };
  const last = parseDuration(input.last);
  if (!last.ok) return { ok: false, error: `--last: ${last.error}` };
  if (last.ms > MAX_WINDOW_MS)
    return {
      ok: false,
      error: `--last covers at most ${MAX_HOURS}h; use --from and --to for an older window`,
    };
  // The last part of a day that is over ends at its midnight; of today, now.
  const endMs = Math.min(dayEnd, now);
  return {
    ok: true,
    window: { kind: 'last', startMs: endMs - last.ms, endMs, dayMs: day.ms, lastMs: last.ms },
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
