/**
 * Dates and times as people type them (PRODUCT §4), always in UTC:
 * days as `today`, `yesterday`, `MM-dd-yyyy` or `yyyy-MM-dd`; instants as ISO 8601 (no zone
 * means UTC), Unix milliseconds, or relative to now (`-3h`, `-90m`).
 */
import { utc } from '@date-fns/utc';
import { isValid, parse, parseISO, startOfDay, subDays } from '../../time/date-fns.js';
import { parseDuration } from '../../time/duration.js';

export type TimeResult = { ok: true; ms: number } | { ok: false; error: string };

const DAY_FORMATS = ['MM-dd-yyyy', 'yyyy-MM-dd'] as const;

/** `03/04/2026` reads as March or as April depending on where one lives: refused, with what works. */
const SLASH_DATE = /^\d{1,4}\/\d{1,2}\/\d{1,4}/;
const slashDateError = (text: string) =>
  `"${text.slice(0, 40)}" is ambiguous (month or day first?): write it as yyyy-MM-dd or MM-dd-yyyy, e.g. 2026-11-21 or 11-21-2026`;

/** The UTC midnight that starts the day `text` names, checked: not in the future, a real date. */
export function parseDay(text: string, now: number): TimeResult {
  const word = text.trim().toLowerCase();
  if (SLASH_DATE.test(word)) return { ok: false, error: slashDateError(text.trim()) };
  const today = startOfDay(now, { in: utc }).getTime();
  if (word === 'today') return { ok: true, ms: today };
  if (word === 'yesterday') return { ok: true, ms: subDays(today, 1, { in: utc }).getTime() };
  for (const pattern of DAY_FORMATS) {
    if (!new RegExp(`^${pattern.replace(/[a-zA-Z]/g, '\\d')}$`).test(word)) continue;
    const day = parse(word, pattern, now, { in: utc });
    if (!isValid(day))
      return {
        ok: false,
        error: `"${text}" is not a real date; write MM-dd-yyyy or yyyy-MM-dd, e.g. 11-21-2026`,
      };
    if (day.getTime() > today)
      return { ok: false, error: `${text} is in the future; origin logs exist up to today (UTC)` };
    return { ok: true, ms: day.getTime() };
  }
  return {
    ok: false,
    error: `"${text.slice(0, 40)}" is not a day: use today, yesterday, MM-dd-yyyy or yyyy-MM-dd`,
  };
}

/**
 * An instant: ISO 8601 (UTC without a zone), Unix milliseconds, `-3h`-style relative to now,
 * or a time of today in UTC (`10:00`, `10:00:30`).
 */
const TIME_OF_DAY = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

/** `10:00` or `10:00:30`: a time of today in UTC, as `parseInstant` reads it. */
export const isTimeOfDay = (text: string): boolean => TIME_OF_DAY.test(text.trim());

export function parseInstant(text: string, now: number): TimeResult {
  const value = text.trim();
  if (SLASH_DATE.test(value)) return { ok: false, error: slashDateError(value) };
  const clock = TIME_OF_DAY.exec(value);
  if (clock) {
    const [hours, minutes, seconds] = [Number(clock[1]), Number(clock[2]), Number(clock[3] ?? 0)];
    if (hours > 23 || minutes > 59 || seconds > 59)
      return { ok: false, error: `"${value}" is not a time of day: write HH:mm in UTC, e.g. 14:30` };
    const today = startOfDay(now, { in: utc }).getTime();
    return { ok: true, ms: today + ((hours * 60 + minutes) * 60 + seconds) * 1000 };
  }
  if (/^-\d+[smhd]$/.test(value)) {
    const duration = parseDuration(value.slice(1));
    return duration.ok ? { ok: true, ms: now - duration.ms } : { ok: false, error: duration.error };
  }
  if (/^\d{12,14}$/.test(value)) return { ok: true, ms: Number(value) };
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const date = parseISO(value, { in: utc });
    if (isValid(date)) return { ok: true, ms: date.getTime() };
  }
  return {
    ok: false,
    error: `"${value.slice(0, 40)}" is not a time: use ISO 8601 (2026-11-21T14:00:00Z), a time today in UTC (14:00), Unix milliseconds, or -3h`,
  };
}

/** `2026-11-21 14:00 UTC`, for messages. */
export function formatUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * An instant the platform wrote in ISO 8601 as messages write every instant
 * (`2026-12-21 14:00 UTC`), with its seconds when it has any; text that is no instant stays as is.
 */
export function formatIsoUtc(iso: string): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  if (ms % 60_000 === 0) return formatUtc(ms);
  return `${new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/(?:\.000)?Z$/, '')} UTC`;
}

const ISO_INSTANT = /\b\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z\b/g;

/** A text the bot recorded for itself (an audit row's detail), its ISO 8601 instants as people read them. */
export const formatIsoTimesIn = (text: string): string =>
  text.replace(ISO_INSTANT, (iso) => formatIsoUtc(iso));

/** A span as on-call people say it: `40 s`, `2 min`, `3 h 5 min`, `4 days` (rounded down). */
export function formatSpan(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h${minutes % 60 > 0 ? ` ${minutes % 60} min` : ''}`;
  return `${Math.floor(hours / 24)} days`;
}

/** How long ago `thenMs` was at `nowMs`, as on-call people say it: `40 s ago`, `2 min ago`, `3 h 5 min ago`, `4 days ago`. */
export function formatAgo(thenMs: number, nowMs: number): string {
  return `${formatSpan(nowMs - thenMs)} ago`;
}

/** `14:32 UTC` on the same UTC day as `nowMs`, the full `2026-11-21 14:32 UTC` on any other. */
export function formatClock(ms: number, nowMs: number): string {
  const full = formatUtc(ms);
  return full.slice(0, 10) === formatUtc(nowMs).slice(0, 10) ? full.slice(11) : full;
}
