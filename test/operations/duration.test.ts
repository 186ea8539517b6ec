import { describe, expect, it } from 'vitest';
import { formatDuration, MAX_DURATION_MS, parseDuration } from '../../src/time/duration.js';

describe('parseDuration', () => {
  it.each([
    ['45s', 45_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
    [' 90m ', 5_400_000],
    ['365d', MAX_DURATION_MS],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each(['', '30', 'm', '1.5h', '-2h', '2 h', '2H', '2w', '30min', 'h2', '2h30m'])(
    'refuses %j and says how to write a duration',
    (text) => {
      const result = parseDuration(text);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toContain('use a number and a unit: 45s, 30m, 2h, 7d');
    },
  );

  it('refuses a zero duration', () => {
    expect(parseDuration('0m')).toEqual({ ok: false, error: expect.stringContaining('more than 0') });
  });

  it('refuses anything longer than a year', () => {
    expect(parseDuration('366d')).toEqual({ ok: false, error: expect.stringContaining('365d') });
    expect(parseDuration('99999999999h').ok).toBe(false);
  });

  it('keeps a pasted blob out of the error message', () => {
    const result = parseDuration('x'.repeat(5_000));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.length).toBeLessThan(120);
  });
});

describe('formatDuration', () => {
  it.each([
    [45_000, '45s'],
    [1_800_000, '30m'],
    [5_400_000, '1h 30m'],
    [604_800_000, '7d'],
    [90_061_000, '1d 1h 1m 1s'],
    [1_499, '1s'],
    [0, '0s'],
    [-5_000, '0s'],
  ])('writes %d ms as %j', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('writes single-unit durations back in the form parseDuration reads', () => {
    for (const text of ['45s', '30m', '2h', '7d']) {
      const parsed = parseDuration(text);
      expect(parsed.ok && formatDuration(parsed.ms)).toBe(text);
    }
  });
});
