/**
 * Wall clocks in IANA time zones, with nothing but `Intl`: the local time of an instant, and the
 * instant a local time names, across daylight-saving changes. Local times are written as Unix
 * milliseconds "as if UTC" (the wall clock's fields read by the UTC getters), so that date
 * arithmetic on them is plain arithmetic.
 */

const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      // h23: midnight is 00, never 24 as some ICU versions write it with hour12: false.
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall clock of `ms` in `timeZone`, as if UTC, to the second. */
export function wallClockOf(ms: number, timeZone: string): number {
  const fields: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(new Date(ms)))
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  const { year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = fields;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/** How far the zone's wall clock is ahead of UTC at `ms`. */
export const offsetAt = (ms: number, timeZone: string): number =>
  wallClockOf(ms, timeZone) - Math.floor(ms / 1000) * 1000;

/**
 * The instant whose wall clock in `timeZone` reads `wall`. A wall time that happens twice (the
 * hour the clocks go back) is its first; one that never happens (the hour they go forward) is
 * read with the offset before the change, so 02:30 on that day is 03:30 summer time.
 */
export function instantOfWallClock(wall: number, timeZone: string): number {
  // A zone changes its offset at most once within a day or so: the offsets either side are the candidates.
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  const fits = (candidate: number) => wallClockOf(candidate, timeZone) === wall;
  const candidates = [wall - before, wall - after].filter(fits);
  return candidates.length > 0 ? Math.min(...candidates) : wall - before;
}

/** The local day of `ms` in `timeZone`: the wall clock's midnight, as if UTC. */
export const localDayOf = (ms: number, timeZone: string): number =>
  Math.floor(wallClockOf(ms, timeZone) / DAY_MS) * DAY_MS;

/** How time zones are written: `UTC`, `Europe/Berlin`, `America/Argentina/Buenos_Aires`. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

/**
 * The IANA time zone a name stands for, spelled as the zone database spells it (`europe/berlin`
 * is `Europe/Berlin`); undefined when it is not one. Offsets such as `+02:00` are not zones:
 * they follow no daylight-saving rule.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (!ZONE_NAME.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** Every IANA zone this runtime knows, UTC included. */
export function knownTimeZones(): readonly string[] {
  return ['UTC', ...Intl.supportedValuesOf('timeZone')];
}
