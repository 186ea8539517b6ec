/**
 * Counting in bounded memory for a million-entry day, whatever the attacker puts in a URL.
 *
 * `SpaceSavingCounter` is the Space-Saving algorithm (Metwally et al.): at most `capacity`
 * keys are tracked; a new key replaces the least counted one and inherits its count as an
 * over-estimate. Any key seen more than total/capacity times is guaranteed to be tracked, and
 * each reported count is exact when its `overcount` is 0. A min-heap finds the victim.
 */

/**
 * A key as tracked: a string of its own. One cut from a longer text (the origin-log reader's keys
 * are cut from a window of the body) would keep all of that text alive while it is tracked; V8
 * copies the characters when a joined string is cut, so this copies them once, on insertion.
 */
const kept = (key: string): string => (key.length < 13 ? key : ` ${key}`.slice(1));

/** Slots of a recent-key table (RECENT_SPOTS − 1 is its mask). */
export const RECENT_SPOTS = 1024;

/**
 * Where a key goes in a recent-key table: from its length, eight of its characters spread over it
 * and its last two. Texts of one kind differ anywhere: a label set in its first characters (its
 * error code) and its last (its zone), a URL in its file or query. Characters of the end alone put
 * label sets of one zone and error codes of one length in one spot, where they took turns. A Map
 * hashes every character of a key each time it is a new string, which a text cut from a body
 * always is; a table hit costs this and one compare. Keys of the same spot take turns, and a miss
 * goes to the Map, so the spot only decides how often the table helps, never what is counted.
 */
export function recentSpot(key: string): number {
  const n = key.length;
  if (n < 8) return n;
  // FNV-1a over those characters.
  let h = Math.imul(0x811c9dc5 ^ n, 0x01000193);
  for (let i = 0; i < 8; i++) h = Math.imul(h ^ key.charCodeAt((i * n) >> 3), 0x01000193);
  h = Math.imul(h ^ key.charCodeAt(n - 1), 0x01000193);
  h = Math.imul(h ^ key.charCodeAt(n - 2), 0x01000193);
  return (h ^ (h >>> 16)) & (RECENT_SPOTS - 1);
}

interface Slot {
  key: string;
  count: number;
  /** How much of `count` may belong to keys evicted before this one took the slot. */
  overcount: number;
  index: number;
}

export interface CountedKey {
  key: string;
  count: number;
  overcount: number;
}

export class SpaceSavingCounter {
  private readonly slots = new Map<string, Slot>();
  private readonly heap: Slot[] = [];
  /** Slots looked up lately, by recentSpot: a slot whose key is not the one looked up is a miss. */
  private readonly recent: (Slot | undefined)[] = new Array<Slot | undefined>(RECENT_SPOTS).fill(undefined);
  /** True once a key was evicted: counts may then be over-estimates. */
  evicted = false;

  constructor(
    private readonly capacity: number,
    /** Keys longer than this are cut, so one huge URL cannot take the memory bound with it. */
    private readonly maxKeyLength = 1024,
  ) {}

  add(rawKey: string): void {
    const key = rawKey.length > this.maxKeyLength ? rawKey.slice(0, this.maxKeyLength) : rawKey;
    const spot = recentSpot(key);
    let slot = this.recent[spot];
    if (slot === undefined || slot.key !== key) {
      slot = this.slots.get(key);
      if (slot !== undefined) this.recent[spot] = slot;
    }
    if (slot !== undefined) {
      slot.count++;
      this.siftDown(slot.index);
      return;
    }
    if (this.heap.length < this.capacity) {
      const fresh: Slot = { key: kept(key), count: 1, overcount: 0, index: this.heap.length };
      this.heap.push(fresh);
      this.slots.set(fresh.key, fresh);
      this.siftUp(fresh.index);
      return;
    }
    const victim = this.heap[0];
    if (!victim) return;
    this.evicted = true;
    this.slots.delete(victim.key);
    victim.overcount = victim.count;
    victim.count++;
    victim.key = kept(key);
    this.slots.set(victim.key, victim);
    this.siftDown(0);
  }

  /** Whether `rawKey` is tracked: a key seen is, unless it was evicted (then `evicted` is true). */
  has(rawKey: string): boolean {
    return this.slots.has(rawKey.length > this.maxKeyLength ? rawKey.slice(0, this.maxKeyLength) : rawKey);
  }

  /** The `n` most counted keys, most first (ties by key, so output is stable). */
  top(n: number): CountedKey[] {
    return [...this.heap]
      .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, n)
      .map(({ key, count, overcount }) => ({ key, count, overcount }));
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i]!;
    const b = this.heap[j]!;
    this.heap[i] = b;
    this.heap[j] = a;
    a.index = j;
    b.index = i;
  }

  private siftUp(start: number): void {
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.heap[parent]!.count <= this.heap[i]!.count) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(start: number): void {
    let i = start;
    const length = this.heap.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= length) return;
      const right = left + 1;
      const child = right < length && this.heap[right]!.count < this.heap[left]!.count ? right : left;
      if (this.heap[i]!.count <= this.heap[child]!.count) return;
      this.swap(i, child);
      i = child;
    }
  }
}

/** Label values longer than this are counted by their first characters (BoundedTally). */
export const LABEL_KEPT_LENGTH = 256;

/** The first `max` characters of a value, not ending inside a surrogate pair. */
function labelStart(value: string, max: number): string {
  const code = value.charCodeAt(max - 1);
  return value.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** A label value and its count; `cut` when only its first characters were kept, shown with "…". */
export interface LabelCount {
  key: string;
  count: number;
  cut?: true;
}

/**
 * Exact counts for label values (status, error code, server zone), which the platform keeps to
 * a handful; past `capacity` distinct values the rest are summed under `overflowKey`. A value
 * over `maxKeyLength` characters is counted by its first ones, apart from whole values (a real
 * value may end in "…"), so that a hostile upstream's long values cannot hold more than
 * capacity × that length.
 */
export class BoundedTally {
  /** Each value's count, in a box: counting one more finds it once. */
  private readonly counts = new Map<string, { count: number }>();
  /** Values over maxKeyLength, by their first characters. */
  private readonly cutCounts = new Map<string, { count: number }>();

  constructor(
    private readonly capacity: number,
    private readonly overflowKey = '(other)',
    private readonly maxKeyLength = LABEL_KEPT_LENGTH,
  ) {}

  add(value: string): void {
    const cut = value.length > this.maxKeyLength;
    const counts = cut ? this.cutCounts : this.counts;
    const key = cut ? labelStart(value, this.maxKeyLength) : value;
    const counted = counts.get(key);
    if (counted !== undefined) counted.count++;
    else if (this.counts.size + this.cutCounts.size < this.capacity) counts.set(kept(key), { count: 1 });
    else {
      const other = this.counts.get(this.overflowKey);
      if (other !== undefined) other.count++;
      else this.counts.set(this.overflowKey, { count: 1 });
    }
  }

  /**
   * The count that `add(value)` adds one to: the value's own, or the overflow's once it went
   * there. Only after an add of the value; it stays valid, since nothing is ever removed.
   */
  counter(value: string): { count: number } {
    const counted =
      value.length > this.maxKeyLength
        ? this.cutCounts.get(labelStart(value, this.maxKeyLength))
        : this.counts.get(value);
    return (counted ?? this.counts.get(this.overflowKey))!;
  }

  /** Most counted first, ties by key (a whole value before a cut one); a value counted cut is shown with "…". */
  sorted(): LabelCount[] {
    const whole = [...this.counts].map(([key, { count }]): LabelCount => ({ key, count }));
    const cut = [...this.cutCounts].map(
      ([key, { count }]): LabelCount => ({ key: `${key}…`, count, cut: true }),
    );
    return [...whole, ...cut].sort(
      (a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : a.cut ? 1 : b.cut ? -1 : 0),
    );
  }
}
