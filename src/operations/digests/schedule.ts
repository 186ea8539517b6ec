/**
 * When a digest's occurrences fall: at a local time of day in an IANA zone, every day, every
 * weekday (Monday to Friday) or every week on one weekday. The local clock is followed across
 * daylight-saving changes, so 09:00 stays 09:00. Pure: instants in, instants out.
 */
import { instantOfWallClock, localDayOf } from '../../time/zones.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

export const DIGEST_EVERY = ['day', 'weekday', 'week'] as const;
export type DigestEvery = (typeof DIGEST_EVERY)[number];

export interface DigestSchedule {
  /** Minutes after local midnight, 0–1439. */
  atMinute: number;
  timeZone: string;
  every: DigestEvery;
  /** For `week`: the weekday of the first occurrence, 0 Sunday to 6 Saturday. */
  weekday: number | null;
}

/** Days looked at either way: a week, and the day a change of offset can move an occurrence across. */
const DAYS_SEARCHED = 9;

export const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The weekday of a local day (a midnight as if UTC). */
export const weekdayOf = (localDay: number): number => new Date(localDay).getUTCDay();

function fallsOn(schedule: DigestSchedule, localDay: number): boolean {
  const weekday = weekdayOf(localDay);
  switch (schedule.every) {
    case 'day':
      return true;
    case 'weekday':
      return weekday >= 1 && weekday <= 5;
    case 'week':
      return weekday === schedule.weekday;
  }
}

/** The instant of the occurrence on a local day. */
export const occurrenceOn = (schedule: DigestSchedule, localDay: number): number =>
  instantOfWallClock(localDay + schedule.atMinute * MINUTE_MS, schedule.timeZone);

/** The first occurrence strictly after `afterMs`. */
export function nextOccurrence(schedule: DigestSchedule, afterMs: number): number {
  const today = localDayOf(afterMs, schedule.timeZone);
  for (let day = today - DAY_MS; day <= today + DAYS_SEARCHED * DAY_MS; day += DAY_MS) {
    if (!fallsOn(schedule, day)) continue;
    const at = occurrenceOn(schedule, day);
    if (at > afterMs) return at;
  }
  throw new RangeError('a digest schedule has no occurrence within a week');
}

/** The last occurrence at or before `atOrBeforeMs`. */
export function latestOccurrence(schedule: DigestSchedule, atOrBeforeMs: number): number {
  const today = localDayOf(atOrBeforeMs, schedule.timeZone);
  for (let day = today + DAY_MS; day >= today - DAYS_SEARCHED * DAY_MS; day -= DAY_MS) {
    if (!fallsOn(schedule, day)) continue;
    const at = occurrenceOn(schedule, day);
    if (at <= atOrBeforeMs) return at;
  }
  throw new RangeError('a digest schedule has no occurrence within a week');
}

/** The occurrence before this one: where the period an occurrence summarises begins. */
export const previousOccurrence = (schedule: DigestSchedule, occurrence: number): number =>
  latestOccurrence(schedule, occurrence - 1);

/** How many occurrences fall in [fromMs, toMs), at most `limit`. */
export function occurrencesBetween(
  schedule: DigestSchedule,
  fromMs: number,
  toMs: number,
  limit = 1_000,
): number {
  let count = 0;
  for (let at = nextOccurrence(schedule, fromMs - 1); at < toMs && count < limit; ) {
    count++;
    at = nextOccurrence(schedule, at);
  }
  return count;
}

/** `09:00` from minutes after midnight. */
export const formatAtMinute = (atMinute: number): string =>
  `${String(Math.floor(atMinute / 60)).padStart(2, '0')}:${String(atMinute % 60).padStart(2, '0')}`;

/** `09:00` → 540; undefined for anything that is not a time of day on a 24-hour clock. */
export function parseAtMinute(text: string): number | undefined {
  const match = /^([01]?\d|2[0-3])[:.h]([0-5]\d)$/.exec(text.trim());
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
}

/** How often, in words: `every day`, `every weekday (Monday to Friday)`, `every Monday`. */
export function describeEvery(schedule: Pick<DigestSchedule, 'every' | 'weekday'>): string {
  switch (schedule.every) {
    case 'day':
      return 'every day';
    case 'weekday':
      return 'every weekday (Monday to Friday)';
    case 'week':
      return `every ${WEEKDAY_NAMES[schedule.weekday ?? 0]}`;
  }
}
