import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ORIGIN_ERROR_CODES } from '../../src/reports/origin/entry.js';
import {
  BoundedTally,
  LABEL_KEPT_LENGTH,
  RECENT_SPOTS,
  recentSpot,
  SpaceSavingCounter,
} from '../../src/reports/top-counts.js';

/** Keys `make(i)` that share one recentSpot: `count` of them. */
function sameSpotKeys(make: (i: number) => string, count: number): string[] {
  const bySpot = new Map<number, string[]>();
  for (let i = 0; ; i++) {
    const key = make(i);
    const keys = bySpot.get(recentSpot(key)) ?? [];
    keys.push(key);
    bySpot.set(recentSpot(key), keys);
    if (keys.length === count) return keys;
  }
}

/** Space-Saving as the paper has it, a Map and a scan for the least counted: the oracle. */
function spaceSavingModel(capacity: number, keys: readonly string[]) {
  const slots = new Map<string, { count: number; overcount: number }>();
  for (const key of keys) {
    const slot = slots.get(key);
    if (slot) slot.count++;
    else if (slots.size < capacity) slots.set(key, { count: 1, overcount: 0 });
    else {
      let victim = '';
      let least = Number.POSITIVE_INFINITY;
      for (const [k, s] of slots) if (s.count < least) [victim, least] = [k, s.count];
      slots.delete(victim);
      slots.set(key, { count: least + 1, overcount: least });
    }
  }
  return slots;
}

describe('counting the top URLs in bounded memory', () => {
  it('counts exactly while the distinct keys fit', () => {
    const counter = new SpaceSavingCounter(10);
    for (const key of ['/a', '/b', '/a', '/c', '/a', '/b']) counter.add(key);
    expect(counter.top(2)).toEqual([
      { key: '/a', count: 3, overcount: 0 },
      { key: '/b', count: 2, overcount: 0 },
    ]);
    expect(counter.evicted).toBe(false);
  });

  it('still finds the heavy hitters in a long tail of unique keys, with honest bounds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000 }), (seed) => {
        const counter = new SpaceSavingCounter(50);
        const truth = new Map<string, number>();
        let state = seed;
        for (let i = 0; i < 5_000; i++) {
          state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
          const key = i % 3 === 0 ? `/hot/${state % 5}` : `/tail/${i}`;
          truth.set(key, (truth.get(key) ?? 0) + 1);
          counter.add(key);
        }
        const top = counter.top(5);
        expect(top.map((entry) => entry.key).sort()).toEqual([
          '/hot/0',
          '/hot/1',
          '/hot/2',
          '/hot/3',
          '/hot/4',
        ]);
        for (const { key, count, overcount } of top) {
          const real = truth.get(key) ?? 0;
          expect(count).toBeGreaterThanOrEqual(real);
          expect(count - overcount).toBeLessThanOrEqual(real);
        }
      }),
      { numRuns: 20 },
    );
  });

  it('finds a key again whatever other keys share its recent spot, and never finds an evicted one there', () => {
    // Keys of one spot take turns in the recent table; an evicted key's slot takes a new key, so
    // the table's slot no longer answers for the old one.
    const crowd = sameSpotKeys((i) => `/img/${i}.jpg`, 6);
    expect(new Set(crowd.map(recentSpot)).size).toBe(1);
    fc.assert(
      fc.property(fc.array(fc.nat(crowd.length - 1), { minLength: 1, maxLength: 300 }), (picks) => {
        const keys = picks.map((i) => crowd[i]!);
        const counter = new SpaceSavingCounter(3);
        for (const key of keys) counter.add(key);
        const model = spaceSavingModel(3, keys);
        const total = (entries: { count: number }[]) => entries.reduce((sum, e) => sum + e.count, 0);
        const top = counter.top(10);
        // Ties may evict another victim than the model's; what is tracked holds every count.
        expect(total(top)).toBe(keys.length);
        expect(total([...model.values()])).toBe(keys.length);
        expect(top).toHaveLength(model.size);
        for (const key of crowd) expect(counter.has(key)).toBe(top.some((entry) => entry.key === key));
        const distinct = new Set(keys);
        if (distinct.size <= 3)
          for (const key of distinct)
            expect(top.find((entry) => entry.key === key)).toEqual({
              key,
              count: keys.filter((k) => k === key).length,
              overcount: 0,
            });
      }),
      { numRuns: 200 },
    );
  });

  it('spreads label sets over the recent table: those of one zone, or of error codes of one length, do not take turns', () => {
    // The text PlatformEntries looks its labels up by: from the ErrorCode's value to the ServerZone's.
    const statuses = ['400', '416', '500', '502', '504', '508'];
    const zones = ['DE', 'UK', 'NY', 'LA', 'SG', 'CA', 'FR', 'JP', 'SYD', 'WA', 'TX', 'BR', 'HK', 'MI'];
    const sets = Object.keys(ORIGIN_ERROR_CODES).flatMap((code, i) =>
      zones.map((zone) => `${code}","StatusCode":"${statuses[i % statuses.length]}","ServerZone":"${zone}`),
    );
    // 154 sets in 1,024 spots: some 143 spots if each set's spot were drawn at random.
    expect(new Set(sets.map(recentSpot)).size).toBeGreaterThanOrEqual(135);
    // Codes of one length, one zone.
    for (const zone of zones) {
      const pair = ['http_invalid_range', 'http_loop_detected'].map(
        (code) => `${code}","StatusCode":"502","ServerZone":"${zone}`,
      );
      expect(recentSpot(pair[0]!)).not.toBe(recentSpot(pair[1]!));
    }
  });

  it('spreads keys over the recent table by their length and characters', () => {
    const spots = new Set(
      Array.from({ length: 2_000 }, (_, i) => recentSpot(`/img/${i.toString(36)}.jpg?v=${i}`)),
    );
    expect(spots.size).toBeGreaterThan(RECENT_SPOTS / 2);
    for (const key of ['', 'a', '/abcdefg', 'x'.repeat(5_000)]) {
      expect(recentSpot(key)).toBeGreaterThanOrEqual(0);
      expect(recentSpot(key)).toBeLessThan(RECENT_SPOTS);
    }
  });

  it('tracks no more keys than its capacity, and cuts very long keys', () => {
    const counter = new SpaceSavingCounter(3, 8);
    for (let i = 0; i < 100; i++) counter.add(`/${i}/a-very-long-url`);
    const top = counter.top(10);
    expect(top).toHaveLength(3);
    expect(top.every((entry) => entry.key.length === 8)).toBe(true);
    expect(counter.top(10).reduce((sum, entry) => sum + entry.count, 0)).toBe(100);
  });
});

describe('counting label values', () => {
  it('sums values past its capacity under "(other)"', () => {
    const tally = new BoundedTally(2);
    for (const key of ['CA', 'DE', 'CA', 'UK', 'SG', 'CA']) tally.add(key);
    expect(tally.sorted()).toEqual([
      { key: 'CA', count: 3 },
      { key: '(other)', count: 2 },
      { key: 'DE', count: 1 },
    ]);
  });

  it('counts a long value by its first characters, apart and marked, so long values cannot take the memory', () => {
    const tally = new BoundedTally(200);
    const long = 'z'.repeat(LABEL_KEPT_LENGTH - 1);
    // 😀 is two UTF-16 units: the cut does not split it, and keeps 255 characters. `${long}…` is a
    // real value of 256 characters, kept whole: not the value cut to the same characters.
    for (const value of [
      `${long}a-1`,
      `${long}a-2`,
      `${long}…`,
      `${long}😀tail`,
      'CA',
      'x'.repeat(LABEL_KEPT_LENGTH),
    ])
      tally.add(value);
    expect(tally.sorted()).toEqual([
      { key: `${long}a…`, count: 2, cut: true },
      { key: 'CA', count: 1 },
      { key: 'x'.repeat(LABEL_KEPT_LENGTH), count: 1 },
      { key: `${long}…`, count: 1 },
      { key: `${long}…`, count: 1, cut: true },
    ]);
    expect(tally.counter(`${long}a-3`).count).toBe(2);
    expect(tally.counter(`${long}…`).count).toBe(1);
    const huge = new BoundedTally(200);
    for (let i = 0; i < 1_000; i++) huge.add(`${i}:${'y'.repeat(100_000)}`);
    expect(huge.sorted().reduce((chars, { key }) => chars + key.length, 0)).toBeLessThanOrEqual(
      201 * (LABEL_KEPT_LENGTH + 1),
    );
  });
});
