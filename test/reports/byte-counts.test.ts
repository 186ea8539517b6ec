import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteCounter, DOUBLED_QUOTES, NEUTRALISED, PLAIN } from '../../src/reports/byte-counts.js';

const add = (counter: ByteCounter, text: string, kind = PLAIN) => {
  const bytes = Buffer.from(`,,${text},`);
  return counter.add(bytes, 2, bytes.length - 1, kind);
};

describe('counting cells by their bytes', () => {
  it('counts exactly what a Map of strings counts while the values fit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom('', 'Block', 'Log', 'DE', 'ünï', '🚀'), fc.string()), {
          maxLength: 300,
        }),
        (values) => {
          const counter = new ByteCounter({ capacity: 1_000, evict: false });
          const truth = new Map<string, number>();
          for (const value of values) {
            add(counter, value);
            truth.set(value, (truth.get(value) ?? 0) + 1);
          }
          expect(new Map(counter.entries().map((entry) => [entry.text, entry.count]))).toEqual(truth);
          expect(counter.entries().every((entry) => entry.overcount === 0)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps apart keys that end alike, also when an evicted slot is taken by another of them', () => {
    const counter = new ByteCounter({ capacity: 1_000, evict: false });
    const truth = new Map<string, number>();
    for (let i = 0; i < 600; i++) {
      // Same length and last two bytes, different fronts: one entry of the recent table for all.
      const ip = `${['203', '198', '192'][i % 3]}.0.113.101`;
      add(counter, ip);
      truth.set(ip, (truth.get(ip) ?? 0) + 1);
    }
    expect(new Map(counter.entries().map((entry) => [entry.text, entry.count]))).toEqual(truth);

    const evicting = new ByteCounter({ capacity: 2, evict: true, maxKeyBytes: 64 });
    const seen = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const key = `${String.fromCharCode(97 + (i % 5))}-01`;
      add(evicting, key);
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    const entries = evicting.entries();
    expect(entries.reduce((sum, entry) => sum + entry.count, 0)).toBe(300);
    for (const entry of entries) {
      expect(entry.count).toBeGreaterThanOrEqual(seen.get(entry.text)!);
      expect(entry.count - entry.overcount).toBeLessThanOrEqual(seen.get(entry.text)!);
    }
  });

  it('reads doubled quotes as one and a neutralised cell with its quote mark, as the CSV file holds them', () => {
    const counter = new ByteCounter({ capacity: 10, evict: false });
    add(counter, 'say ""hi""', DOUBLED_QUOTES);
    add(counter, '=1+1', NEUTRALISED);
    add(counter, '=1+1', NEUTRALISED);
    expect(counter.entries()).toEqual([
      { text: "'=1+1", count: 2, overcount: 0 },
      { text: 'say "hi"', count: 1, overcount: 0 },
    ]);
  });

  it('counts bytes that are not UTF-8 as the text they read as', () => {
    const counter = new ByteCounter({ capacity: 10, evict: false });
    counter.add(Buffer.from([0x80]), 0, 1, PLAIN);
    counter.add(Buffer.from([0xc3]), 0, 1, PLAIN);
    expect(counter.entries()).toEqual([{ text: '\uFFFD', count: 2, overcount: 0 }]);
  });

  it('sums values past the capacity as other, and keeps counting the ones it has', () => {
    const counter = new ByteCounter({ capacity: 2, evict: false });
    for (const value of ['a', 'b', 'c', 'a', 'd', 'b']) add(counter, value);
    expect(counter.entries().map(({ text, count }) => [text, count])).toEqual([
      ['a', 2],
      ['b', 2],
    ]);
    expect(counter.other).toBe(2);
  });

  it('cuts a long value at a character boundary, and marks the cut with …', () => {
    const counter = new ByteCounter({ capacity: 3, evict: false, maxKeyBytes: 4 });
    add(counter, 'abcü');
    add(counter, 'abcä');
    add(counter, 'abcd');
    expect(counter.entries()).toEqual([
      { text: 'abc…', count: 2, overcount: 0 },
      { text: 'abcd', count: 1, overcount: 0 },
    ]);
  });

  it('still finds the heavy hitters in a long tail of unique IPs, with honest bounds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000 }), (seed) => {
        const counter = new ByteCounter({ capacity: 50, evict: true, maxKeyBytes: 64 });
        const truth = new Map<string, number>();
        let state = seed;
        for (let i = 0; i < 5_000; i++) {
          state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
          const ip = i % 3 === 0 ? `203.0.113.${state % 5}` : `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`;
          truth.set(ip, (truth.get(ip) ?? 0) + 1);
          add(counter, ip);
        }
        const top = counter.entries().slice(0, 5);
        expect(top.map((entry) => entry.text).sort()).toEqual([0, 1, 2, 3, 4].map((n) => `203.0.113.${n}`));
        for (const entry of counter.entries()) {
          const actual = truth.get(entry.text) ?? 0;
          expect(entry.count).toBeGreaterThanOrEqual(actual);
          expect(entry.count - entry.overcount).toBeLessThanOrEqual(actual);
        }
        expect(counter.evicted).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});
