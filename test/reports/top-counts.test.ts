import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedTally, LABEL_KEPT_LENGTH, SpaceSavingCounter } from '../../src/reports/top-counts.js';

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
