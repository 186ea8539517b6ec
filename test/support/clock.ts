/**
 * Test clocks. No test reads the real clock: the bot, the sandbox and the fake Slack share one
 * pinned clock, which a test moves by hand. Time-sensitive behaviour is checked at each of the
 * pinned instants, so a suite that passes at one hour of the day passes at every hour.
 */
import type { Clock } from '../../src/time/clock.js';

/** A clock that stands still until moved. */
export interface TestClock extends Clock {
  /** Moves to an instant: ISO 8601 text or Unix milliseconds. */
  set(at: string | number): void;
  advance(ms: number): void;
  /** The current instant as ISO 8601. */
  iso(): string;
}

/** The instant of tests that do not care which one: an ordinary weekday afternoon. */
export const DEFAULT_INSTANT = '2026-11-21T14:00:00.000Z';

/**
 * The instants time-sensitive tests run at: the edges of a UTC day, a morning (when the
 * sandbox's day has gained its hostile entry), and the first day of a month (yesterday is in
 * the month before).
 */
export const PINNED_INSTANTS = [
  { name: '00:00:30 UTC', at: '2026-11-21T00:00:30.000Z' },
  { name: '08:30 UTC', at: '2026-11-21T08:30:00.000Z' },
  { name: '23:59:50 UTC', at: '2026-11-21T23:59:50.000Z' },
  { name: 'the first day of a month', at: '2026-12-01T10:15:00.000Z' },
] as const;

const toMs = (at: string | number): number => {
  const ms = typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(ms)) throw new Error(`not an instant: ${String(at)}`);
  return ms;
};

export function pinnedClock(at: string | number = DEFAULT_INSTANT): TestClock {
  let current = toMs(at);
  const clock = (() => current) as TestClock;
  clock.set = (next) => {
    current = toMs(next);
  };
  clock.advance = (ms) => {
    current += ms;
  };
  clock.iso = () => new Date(current).toISOString();
  return clock;
}

/** The UTC day of an instant as yyyy-MM-dd. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The same clock as Dates, for the state store and the audit log. */
export const asDates =
  (clock: Clock): (() => Date) =>
  () =>
    new Date(clock());
