/**
 * When a digest's occurrences fall: local times in IANA zones, across daylight-saving changes,
 * every day, every weekday, every week. Pure arithmetic on instants.
 */
import { describe, expect, it } from 'vitest';
import {
  type DigestSchedule,
  latestOccurrence,
  nextOccurrence,
  occurrencesBetween,
  previousOccurrence,
} from '../../src/operations/digests/schedule.js';
import { canonicalTimeZone, instantOfWallClock } from '../../src/time/zones.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const schedule = (overrides: Partial<DigestSchedule> = {}): DigestSchedule => ({
  atMinute: 9 * 60,
  timeZone: 'Europe/Berlin',
  every: 'day',
  weekday: null,
  ...overrides,
});

describe('a local time in a zone', () => {
  it('is the same wall clock on both sides of a daylight-saving change', () => {
    const berlin = schedule();
    expect(iso(nextOccurrence(berlin, at('2026-03-28T12:00:00Z')))).toBe('2026-03-29T07:00:00.000Z');
    expect(iso(previousOccurrence(berlin, at('2026-03-29T07:00:00Z')))).toBe('2026-03-28T08:00:00.000Z');
    expect(iso(nextOccurrence(berlin, at('2026-10-24T12:00:00Z')))).toBe('2026-10-25T08:00:00.000Z');
    expect(iso(previousOccurrence(berlin, at('2026-10-25T08:00:00Z')))).toBe('2026-10-24T07:00:00.000Z');
  });

  it('a time the clocks skip is the same time after the change; one they repeat is its first', () => {
    expect(iso(instantOfWallClock(at('2026-03-29T02:30:00Z'), 'Europe/Berlin'))).toBe(
      '2026-03-29T01:30:00.000Z',
    );
    expect(iso(instantOfWallClock(at('2026-10-25T02:30:00Z'), 'Europe/Berlin'))).toBe(
      '2026-10-25T00:30:00.000Z',
    );
    expect(iso(instantOfWallClock(at('2026-11-01T01:30:00Z'), 'America/New_York'))).toBe(
      '2026-11-01T05:30:00.000Z',
    );
  });

  it('takes zone names as the zone database spells them, and nothing else', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Berlin')).toBeUndefined();
    expect(canonicalTimeZone('+02:00')).toBeUndefined();
    expect(canonicalTimeZone('Mars/Olympus_Mons')).toBeUndefined();
  });
});

describe('how often', () => {
  it('every weekday skips the weekend, and a Monday one covers it since Friday', () => {
    const weekdays = schedule({ timeZone: 'UTC', every: 'weekday' });
    // Friday 2026-11-20 after 09:00: next is Monday.
    expect(iso(nextOccurrence(weekdays, at('2026-11-20T10:00:00Z')))).toBe('2026-11-23T09:00:00.000Z');
    expect(iso(previousOccurrence(weekdays, at('2026-11-23T09:00:00Z')))).toBe('2026-11-20T09:00:00.000Z');
    expect(iso(latestOccurrence(weekdays, at('2026-11-22T23:00:00Z')))).toBe('2026-11-20T09:00:00.000Z');
  });

  it('every week falls on one weekday, and counts what it missed', () => {
    const mondays = schedule({ timeZone: 'UTC', every: 'week', weekday: 1 });
    expect(iso(nextOccurrence(mondays, at('2026-11-23T09:00:00Z')))).toBe('2026-11-30T09:00:00.000Z');
    expect(iso(previousOccurrence(mondays, at('2026-11-23T09:00:00Z')))).toBe('2026-11-16T09:00:00.000Z');
    const daily = schedule({ timeZone: 'UTC' });
    expect(occurrencesBetween(daily, at('2026-11-24T09:00:00Z'), at('2026-11-26T09:00:00Z'))).toBe(2);
    expect(occurrencesBetween(daily, at('2026-11-24T09:00:00Z'), at('2026-11-24T09:00:00Z'))).toBe(0);
  });
});
