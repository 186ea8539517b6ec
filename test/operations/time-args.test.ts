import { describe, expect, it } from 'vitest';
import { formatUtc, parseDay, parseInstant } from '../../src/operations/shared/time-args.js';
import { PINNED_INSTANTS, utcDay } from '../support/clock.js';

const DAY_MS = 86_400_000;
const midnight = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

describe.each(PINNED_INSTANTS)('days and times at $name', ({ at }) => {
  const now = Date.parse(at);

  it('reads today and yesterday as the UTC days of the clock', () => {
    expect(parseDay('today', now)).toEqual({ ok: true, ms: midnight(now) });
    expect(parseDay('Yesterday', now)).toEqual({ ok: true, ms: midnight(now) - DAY_MS });
  });

  it('reads today written both ways, and refuses tomorrow', () => {
    const [year, month, day] = utcDay(now).split('-');
    expect(parseDay(`${year}-${month}-${day}`, now)).toEqual({ ok: true, ms: midnight(now) });
    expect(parseDay(`${month}-${day}-${year}`, now)).toEqual({ ok: true, ms: midnight(now) });
    const tomorrow = utcDay(now + DAY_MS);
    expect(parseDay(tomorrow, now)).toMatchObject({ ok: false, error: expect.stringContaining('future') });
  });

  it('reads relative times against the clock, across midnight too', () => {
    expect(parseInstant('-90m', now)).toEqual({ ok: true, ms: now - 90 * 60_000 });
    expect(parseInstant('-3h', now)).toEqual({ ok: true, ms: now - 3 * 3_600_000 });
    expect(parseInstant(at, now)).toEqual({ ok: true, ms: now });
    expect(formatUtc(now)).toBe(`${at.slice(0, 10)} ${at.slice(11, 16)} UTC`);
  });
});
