/**
 * The window flags commands share, read one way and refused in one set of words: `--last
 * DURATION`, or `--from T [--to T]` (up to now without --to), times as time-args.ts reads them.
 * Each command adds its own limit: /edge logs serves 72 hours of any days, a Shield export only
 * the last 72 hours.
 */
import { parseDuration } from '../../time/duration.js';
import { isTimeOfDay, parseInstant } from './time-args.js';

const DAY_MS = 86_400_000;

/** The flags as typed; absent when not given. */
export interface WindowFlags {
  last?: string;
  from?: string;
  to?: string;
}

/** What the flags ask for: the last part of a span, or the instants from --from to --to. */
export type FlagWindow = { kind: 'last'; lastMs: number } | { kind: 'range'; startMs: number; endMs: number };

/** A command's own bound on the window, in its words; undefined when the window keeps to it. */
export type WindowLimit = (window: FlagWindow) => string | undefined;

/** `window` is undefined when no window flag was given. */
export type WindowFlagsResult = { ok: true; window: FlagWindow | undefined } | { ok: false; error: string };

/**
 * A time of day always means today; just after midnight, `--from 23:50` is therefore still to
 * come, and the error writes yesterday's 23:50 the one way that cannot be misread.
 */
function futureFromError(from: string, now: number): string {
  const nowWords = new Date(now).toISOString().slice(11, 16);
  if (!isTimeOfDay(from))
    return `--from is in the future; the window must start before now (${nowWords} UTC)`;
  const time = from.trim();
  const yesterday = new Date(Math.floor(now / DAY_MS) * DAY_MS - DAY_MS).toISOString().slice(0, 10);
  return `--from ${time} is later than now (${nowWords} UTC) and a time of day means today; for yesterday write --from ${yesterday}T${time}`;
}

export function parseWindowFlags(flags: WindowFlags, now: number, limit: WindowLimit): WindowFlagsResult {
  const range = flags.from !== undefined || flags.to !== undefined;
  let window: FlagWindow;
  if (flags.last !== undefined) {
    if (range) return { ok: false, error: '--last and --from/--to both set the window: use one of them' };
    const last = parseDuration(flags.last);
    if (!last.ok) return { ok: false, error: `--last: ${last.error}` };
    window = { kind: 'last', lastMs: last.ms };
  } else if (range) {
    if (flags.from === undefined)
      return { ok: false, error: '--to needs a --from, e.g. --from -3h --to -1h' };
    const from = parseInstant(flags.from, now);
    if (!from.ok) return { ok: false, error: `--from: ${from.error}` };
    const to = flags.to === undefined ? { ok: true as const, ms: now } : parseInstant(flags.to, now);
    if (!to.ok) return { ok: false, error: `--to: ${to.error}` };
    if (from.ms >= now) return { ok: false, error: futureFromError(flags.from, now) };
    if (to.ms <= from.ms) return { ok: false, error: '--to must be after --from' };
    window = { kind: 'range', startMs: from.ms, endMs: to.ms };
  } else {
    return { ok: true, window: undefined };
  }
  const beyond = limit(window);
  return beyond === undefined ? { ok: true, window } : { ok: false, error: beyond };
}
