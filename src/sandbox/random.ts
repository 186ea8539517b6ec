/**
 * Deterministic pseudo-random numbers for seeded data: the same seed and the same key parts
 * always give the same sequence, so a log day or an export window can be regenerated on demand
 * instead of being stored.
 */

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** An integer in [min, max]. */
  between(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight: `[[value, weight], …]`. */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
  /** A lowercase hex string of `length` characters. */
  hex(length: number): string;
  /** A version-4-shaped UUID. */
  uuid(): string;
}

/** FNV-1a over the key parts, so that `(seed, zone, day)` tuples spread over the whole 32-bit space. */
function hashParts(parts: readonly (string | number)[]): number {
  let hash = 0x811c9dc5;
  for (const part of parts) {
    const text = `${String(part)}\u0000`;
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
  }
  return hash >>> 0;
}

const HEX = '0123456789abcdef';
const BYTE_HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

const totals = new WeakMap<readonly (readonly [unknown, number])[], number>();
function totalWeight(items: readonly (readonly [unknown, number])[]): number {
  let total = totals.get(items);
  if (total === undefined) {
    total = items.reduce((sum, [, weight]) => sum + weight, 0);
    totals.set(items, total);
  }
  return total;
}

/** mulberry32: tiny, fast and good enough for sample data. */
export function createRandom(...parts: (string | number)[]): Random {
  let state = hashParts(parts);
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  // Four bytes per draw through a lookup table: Number#toString(16) is slow, and log days of a
  // million entries spend most of their time making ids.
  const hex = (length: number): string => {
    let out = '';
    while (out.length < length) {
      const word = (next() * 4294967296) >>> 0;
      out += `${BYTE_HEX[word >>> 24]}${BYTE_HEX[(word >>> 16) & 255]}${BYTE_HEX[(word >>> 8) & 255]}${BYTE_HEX[word & 255]}`;
    }
    return out.length === length ? out : out.slice(0, length);
  };
  return {
    next,
    int,
    between: (min, max) => min + int(max - min + 1),
    pick: <T>(items: readonly T[]): T => {
      const item = items[int(items.length)];
      if (item === undefined) throw new RangeError('cannot pick from an empty list');
      return item;
    },
    weighted: <T>(items: readonly (readonly [T, number])[]): T => {
      const total = totalWeight(items);
      let roll = next() * total;
      for (const [value, weight] of items) {
        roll -= weight;
        if (roll < 0) return value;
      }
      const last = items[items.length - 1];
      if (last === undefined) throw new RangeError('cannot pick from an empty list');
      return last[0];
    },
    hex,
    uuid: () => {
      const h = hex(32);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${HEX[8 + (h.charCodeAt(16) & 3)]}${h.slice(17, 20)}-${h.slice(20)}`;
    },
  };
}
