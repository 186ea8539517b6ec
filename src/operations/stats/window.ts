/**
 * The window of `/edge stats`: `--last DURATION` or `--from T [--to T]`, read as for `/edge logs`
 * (shared/window.ts), without day words; the last 6 hours when none is given, at most 90 days.
 */
import { formatDuration } from '../../time/duration.js';
import { formatSpan } from '../logs/window.js';
import { type FlagWindow, parseWindowFlags, type WindowFlags } from '../shared/window.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const DEFAULT_STATS_LAST_MS = 6 * HOUR_MS;
export const MAX_STATS_WINDOW_MS = 90 * DAY_MS;

export interface StatsWindow {
  startMs: number;
  endMs: number;
  /** The length asked for with `--last` (or the default); absent for `--from`/`--to`. */
  lastMs?: number;
}

export type StatsWindowResult = { ok: true; window: StatsWindow } | { ok: false; error: string };

/** The platform counts by the hour at the finest: a shorter window would be compared with itself. */
export const MIN_STATS_WINDOW_MS = HOUR_MS;

const withinStatsLimit = (window: FlagWindow): string | undefined => {
  const length = window.kind === 'last' ? window.lastMs : window.endMs - window.startMs;
  if (length < MIN_STATS_WINDOW_MS)
    return window.kind === 'last'
      ? '--last covers at least 1h for /edge stats, as the platform counts by the hour: e.g. --last 1h'
      : 'a window covers at least 1 hour for /edge stats, as the platform counts by the hour: move --from and --to an hour apart or more';
  if (window.kind === 'last')
    return window.lastMs > MAX_STATS_WINDOW_MS
      ? '--last covers at most 90d for /edge stats, e.g. --last 30d; use --from and --to for an older window'
      : undefined;
  return window.endMs - window.startMs > MAX_STATS_WINDOW_MS
    ? 'a window covers at most 90 days for /edge stats: make --from and --to closer, e.g. --from -30d'
    : undefined;
};

export function parseStatsWindow(flags: WindowFlags, now: number): StatsWindowResult {
  const parsed = parseWindowFlags(flags, now, withinStatsLimit);
  if (!parsed.ok) return parsed;
  const asked = parsed.window ?? { kind: 'last', lastMs: DEFAULT_STATS_LAST_MS };
  if (asked.kind === 'range') return { ok: true, window: { startMs: asked.startMs, endMs: asked.endMs } };
  return { ok: true, window: { startMs: now - asked.lastMs, endMs: now, lastMs: asked.lastMs } };
}

/** The window of the same length just before it, which the numbers are compared with. */
export const previousWindow = (window: StatsWindow): StatsWindow => ({
  startMs: 2 * window.startMs - window.endMs,
  endMs: window.startMs,
});

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `last 6h, 08:20–14:20 UTC`, `2026-11-20 10:00–12:00 UTC`, `2026-10-22 14:20 – 2026-11-21 14:20 UTC`. */
export function describeStatsWindow(window: StatsWindow): string {
  const span = formatSpan(window.startMs, window.endMs);
  const dated = span.includes(' – ') ? span : `${isoDate(window.startMs)} ${span}`;
  return window.lastMs === undefined ? dated : `last ${formatDuration(window.lastMs)}, ${span}`;
}

/** `6h`, `30d`, `2d 4h`: the window's length as people type it. */
export const windowLength = (window: StatsWindow): string => formatDuration(window.endMs - window.startMs);
