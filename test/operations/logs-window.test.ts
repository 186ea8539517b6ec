import { describe, expect, it } from 'vitest';
import {
  describeLogsWindow,
  formatLength,
  formatSpan,
  type LogsWindow,
  parseLogsWindow,
} from '../../src/operations/logs/window.js';
import { PINNED_INSTANTS } from '../support/clock.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const midnight = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

const windowOf = (input: Parameters<typeof parseLogsWindow>[0], now: number): LogsWindow => {
  const parsed = parseLogsWindow(input, now);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.window;
};

describe.each(PINNED_INSTANTS)('the window of /edge logs at $name', ({ at: iso }) => {
  const now = at(iso);

  it('is today, from its midnight to the next, without a day or a flag', () => {
    expect(windowOf({}, now)).toEqual({
      kind: 'day',
      startMs: midnight(now),
      endMs: midnight(now) + DAY_MS,
      dayMs: midnight(now),
    });
  });

  it('is the last 2 hours up to now with --last 2h, across midnight when it must', () => {
    expect(windowOf({ last: '2h' }, now)).toMatchObject({
      kind: 'last',
      startMs: now - 2 * HOUR_MS,
      endMs: now,
    });
  });

  it('is the last 2 hours of yesterday with yesterday --last 2h', () => {
    expect(windowOf({ day: 'yesterday', last: '2h' }, now)).toMatchObject({
      startMs: midnight(now) - 2 * HOUR_MS,
      endMs: midnight(now),
    });
  });
});

describe('parsing the window of /edge logs', () => {
  const now = at('2026-11-21T14:00:00Z');

  it('reads --from and --to, and --from alone up to now', () => {
    expect(windowOf({ from: '2026-11-20T23:00', to: '2026-11-21T01:30' }, now)).toEqual({
      kind: 'range',
      startMs: at('2026-11-20T23:00:00Z'),
      endMs: at('2026-11-21T01:30:00Z'),
    });
    expect(windowOf({ from: '-3h' }, now)).toEqual({ kind: 'range', startMs: now - 3 * HOUR_MS, endMs: now });
  });

  it.each([
    [{ last: '73h' }, 'at most 72h'],
    [{ last: '4d' }, 'at most 72h'],
    [{ last: 'two hours' }, '--last: "two hours" is not a duration'],
    [{ from: '-80h' }, 'at most 72h'],
    [{ from: '-1h', to: '-2h' }, '--to must be after --from'],
    [{ from: '+1h' }, '--from: "+1h" is not a time'],
    [{ from: '2026-11-22T00:00' }, '--from is in the future'],
    [{ to: '-1h' }, '--to needs a --from'],
    [{ day: 'yesterday', from: '-3h' }, 'give a day or --from/--to, not both'],
    [{ last: '2h', from: '-3h' }, '--last and --from/--to both set the window'],
    [{ day: '2026-11-22' }, 'in the future'],
  ])('refuses %o, saying what to type instead', (input, error) => {
    const parsed = parseLogsWindow(input, now);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(error);
  });

  it('accepts 72 hours exactly, in either form', () => {
    expect(parseLogsWindow({ last: '72h' }, now).ok).toBe(true);
    expect(parseLogsWindow({ last: '3d' }, now).ok).toBe(true);
    expect(parseLogsWindow({ from: '-72h' }, now).ok).toBe(true);
  });
});

describe('a time of day given just after midnight', () => {
  const now = at('2026-11-22T00:00:30Z');

  it("is today, so a --from later than now says how to write yesterday's time", () => {
    const parsed = parseLogsWindow({ from: '23:50', to: '00:00:20' }, now);
    expect(parsed).toEqual({
      ok: false,
      error:
        '--from 23:50 is later than now (00:00 UTC) and a time of day means today; for yesterday write --from 2026-11-21T23:50',
    });
  });

  it('takes the dated form it suggests, across midnight', () => {
    expect(windowOf({ from: '2026-11-21T23:50', to: '00:00:20' }, now)).toEqual({
      kind: 'range',
      startMs: at('2026-11-21T23:50:00Z'),
      endMs: at('2026-11-22T00:00:20Z'),
    });
  });
});

describe('the window in words', () => {
  const now = at('2026-11-21T18:10:00Z');

  it.each<[string, Parameters<typeof parseLogsWindow>[0], string]>([
    ['--last 2h', { last: '2h' }, 'last 2h, 16:10–18:10 UTC'],
    ['today', {}, '2026-11-21, today so far, 00:00–18:10 UTC'],
    ['yesterday', { day: 'yesterday' }, '2026-11-20, 00:00–24:00 UTC'],
    ['yesterday --last 2h', { day: 'yesterday', last: '2h' }, 'last 2h of 2026-11-20, 22:00–24:00 UTC'],
    ['--last 20h', { last: '20h' }, 'last 20h, 2026-11-20 22:10 – 2026-11-21 18:10 UTC'],
    ['--from 10:00 --to 12:00', { from: '10:00', to: '12:00' }, '2026-11-21 10:00–12:00 UTC'],
    [
      '--from 10:00 --to 20:00',
      { from: '10:00', to: '20:00' },
      '2026-11-21 10:00–20:00 UTC, so far (to 18:10 UTC)',
    ],
  ])('says %s as "%s"', (_, input, words) => {
    expect(describeLogsWindow(windowOf(input, now), now)).toBe(words);
  });

  it('writes lengths as short as they are exact', () => {
    expect([2 * HOUR_MS, 90 * 60_000, 510 * 60_000, 72 * HOUR_MS, 45_000].map(formatLength)).toEqual([
      '2h',
      '1h30m',
      '8h30m',
      '72h',
      '45s',
    ]);
    expect(formatSpan(at('2026-11-20T00:00:00Z'), at('2026-11-21T00:00:00Z'))).toBe('00:00–24:00 UTC');
  });
});
