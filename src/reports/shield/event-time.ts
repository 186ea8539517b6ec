/**
 * A Shield event's time from the bytes of its CSV cell, without making a string: the export's
 * column layout is not documented, so ISO 8601 (`2026-11-21T14:00:01.123Z`, a space for the `T`,
 * an offset or none, which means UTC as everywhere in the product) and Unix time in seconds or
 * milliseconds are read from bytes; anything else is handed to Date.parse as text.
 */

const ZERO = 0x30;
const DAY_MS = 86_400_000;
/** Below this a Unix time is in seconds (it would be March 1973 in milliseconds). */
const SECONDS_BELOW = 1e11;
/** The range a JS Date can represent; anything outside cannot be an event's time. */
const MAX_TIME_MS = 8.64e15;

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function digits(buf: Uint8Array, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = buf[i]! - ZERO;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const daysIn = (year: number, month: number) =>
  month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;

/** The bytes a MinuteCache takes in memory it is given. */
const MINUTE_CACHE_BYTES = 24;

/** The minute of the last time read (`YYYY-MM-DDTHH:MM`), so that a minute of events reads its date and hour once. */
class MinuteCache {
  readonly bytes: Uint8Array;
  private readonly start: Float64Array;

  /** At `at` of `buffer` (8 bytes of ms, then the 16 bytes), where stops.wat's `$time` reads it too; by default, memory of its own. */
  constructor(memory?: { buffer: ArrayBuffer; at: number }) {
    const { buffer, at } = memory ?? { buffer: new ArrayBuffer(MINUTE_CACHE_BYTES), at: 0 };
    this.start = new Float64Array(buffer, at, 1);
    this.bytes = new Uint8Array(buffer, at + 8, 16);
    this.start[0] = Number.NaN;
  }

  /** Start of that minute, Unix ms; NaN until a time was read. */
  get ms(): number {
    return this.start[0]!;
  }

  set ms(ms: number) {
    this.start[0] = ms;
  }
}

/** Start of the day `YYYY-MM-DD` at buf[at…], in Unix ms, or NaN. */
function dayMs(buf: Uint8Array, at: number): number {
  if (buf[at + 4] !== 0x2d || buf[at + 7] !== 0x2d) return Number.NaN;
  const year = digits(buf, at, 4);
  const month = digits(buf, at + 5, 2);
  const day = digits(buf, at + 8, 2);
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month))) return Number.NaN;
  return daysFromCivil(year, month, day) * DAY_MS;
}

/** Start of the minute `YYYY-MM-DD[T ]HH:MM` at buf[at…] (its 16 bytes are there), in Unix ms, or NaN. */
function minuteMs(buf: Uint8Array, at: number, cache: MinuteCache | undefined): number {
  if (cache && !Number.isNaN(cache.ms)) {
    const { bytes } = cache;
    let same = true;
    for (let i = 15; i >= 0; i--)
      if (bytes[i] !== buf[at + i]) {
        same = false;
        break;
      }
    if (same) return cache.ms;
  }
  if (buf[at + 13] !== 0x3a) return Number.NaN;
  const separator = buf[at + 10];
  if (separator !== 0x54 && separator !== 0x20 && separator !== 0x74) return Number.NaN;
  const date = dayMs(buf, at);
  const hour = digits(buf, at + 11, 2);
  const minute = digits(buf, at + 14, 2);
  if (!(hour <= 23 && minute <= 59) || Number.isNaN(date)) return Number.NaN;
  const ms = date + (hour * 60 + minute) * 60_000;
  if (cache) {
    for (let i = 0; i < 16; i++) cache.bytes[i] = buf[at + i]!;
    cache.ms = ms;
  }
  return ms;
}

/** `YYYY-MM-DD[T ]HH:MM:SS[.fff…][Z|±HH:MM|±HHMM]`, or NaN. */
function isoTime(buf: Uint8Array, from: number, to: number, cache?: MinuteCache): number {
  if (to - from < 19) return Number.NaN;
  const at = from;
  if (buf[at + 16] !== 0x3a) return Number.NaN;
  const minute = minuteMs(buf, at, cache);
  const second = digits(buf, at + 17, 2);
  if (!(second <= 59) || Number.isNaN(minute)) return Number.NaN;
  let i = at + 19;
  let millis = 0;
  if (i < to && buf[i] === 0x2e) {
    i++;
    let scale = 100;
    const start = i;
    while (i < to && buf[i]! >= ZERO && buf[i]! <= ZERO + 9) {
      millis += (buf[i]! - ZERO) * scale;
      scale /= 10;
      i++;
    }
    if (i === start) return Number.NaN;
    millis = Math.floor(millis);
  }
  let offsetMinutes = 0;
  if (i < to) {
    const sign = buf[i];
    if ((sign === 0x5a || sign === 0x7a) && i + 1 === to) i++;
    else if (sign === 0x2b || sign === 0x2d) {
      const hours = digits(buf, i + 1, 2);
      const colon = buf[i + 3] === 0x3a ? 1 : 0;
      const minutes = digits(buf, i + 3 + colon, 2);
      if (!(hours <= 23 && minutes <= 59) || i + 5 + colon !== to) return Number.NaN;
      offsetMinutes = (sign === 0x2b ? 1 : -1) * (hours * 60 + minutes);
      i = to;
    } else return Number.NaN;
  }
  if (i !== to) return Number.NaN;
  return minute + (second - offsetMinutes * 60) * 1000 + millis;
}

/** Unix time in seconds or milliseconds, from digits only. */
function unixTime(buf: Uint8Array, from: number, to: number): number {
  if (to - from < 1 || to - from > 16) return Number.NaN;
  const value = digits(buf, from, to - from);
  return value < SECONDS_BELOW ? value * 1000 : value;
}

const inRange = (ms: number) => (Math.abs(ms) <= MAX_TIME_MS ? ms : Number.NaN);

/** The instant (Unix ms) a cell's bytes name, or NaN when they name none. */
export function eventTimeOfBytes(buf: Uint8Array, from: number, to: number, cache?: MinuteCache): number {
  if (from >= to) return Number.NaN;
  const iso = isoTime(buf, from, to, cache);
  if (!Number.isNaN(iso)) return inRange(iso);
  const unix = unixTime(buf, from, to);
  if (!Number.isNaN(unix)) return inRange(unix);
  return eventTimeOfText(Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('utf8', from, to));
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

/** Reads the times of one export's cells: the date, hour and minute of consecutive events are read once. */
export class EventTimeReader {
  private cache: MinuteCache;

  /** `memory`: where its minute lives (MinuteCache), for stops.wat to read times in it too. */
  constructor(memory?: { buffer: ArrayBuffer; at: number }) {
    this.cache = new MinuteCache(memory);
  }

  /** Moves the minute to memory of its own, so that the memory it was given can be given to another reader. */
  detach(): void {
    const { ms, bytes } = this.cache;
    this.cache = new MinuteCache();
    this.cache.ms = ms;
    this.cache.bytes.set(bytes);
  }

  ofBytes(buf: Uint8Array, from: number, to: number): number {
    return eventTimeOfBytes(buf, from, to, this.cache);
  }
}

/** The same, for a cell's text. */
export function eventTimeOfText(text: string): number {
  const trimmed = text.trim();
  if (trimmed === '') return Number.NaN;
  const bytes = Buffer.from(trimmed);
  // What starts as an ISO date is read as one: Date.parse would roll 2026-02-30 over to March.
  if (ISO_DATE.test(trimmed)) return inRange(isoTime(bytes, 0, bytes.length));
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    const value = Number(trimmed);
    return inRange(value < SECONDS_BELOW ? Math.floor(value * 1000) : Math.floor(value));
  }
  return inRange(Date.parse(trimmed));
}
