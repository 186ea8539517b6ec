/**
 * Counting cells by their bytes, so that a summary computed while the export streams makes no
 * string per cell: a key's bytes are hashed and compared in place and copied once, when first
 * seen; its text is decoded only when the counts are read. At most `capacity` keys are kept.
 * Past that, a counter of labels (actions, countries) sums the rest as `other`; a counter of
 * top keys (IPs) runs Space-Saving as SpaceSavingCounter does (top-counts.ts): the least counted
 * key gives its slot to the new one, whose count then carries the old count as `overcount`.
 */

export interface ByteCount {
  text: string;
  count: number;
  /** How much of `count` may belong to keys that held the slot before; 0 means exact. */
  overcount: number;
}

export interface ByteCounterOptions {
  /** Most distinct keys kept. */
  capacity: number;
  /** Past capacity: true gives the least counted slot to the new key, false counts it in `other`. */
  evict: boolean;
  /** Keys longer than this are cut, at a character boundary, so a huge cell cannot take the memory bound with it. */
  maxKeyBytes?: number;
}

/** How a key's bytes read as text: as they are, with `""` for `"`, or written with a `'` in front. */
export const PLAIN = 0;
export const DOUBLED_QUOTES = 1;
export const NEUTRALISED = 2;
/** Set by the counter on a key it cut to `maxKeyBytes`: its text ends in "…", so no one reads it as whole. */
const CUT = 4;

/** Entries of ByteCounter's table of recent keys: 2 ** (32 − RECENT_SHIFT). */
const RECENT_SHIFT = 24;
const RECENT = 2 ** (32 - RECENT_SHIFT);

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * Where a counter's state may live instead of memory of its own: `buffer` from `at` (a multiple
 * of 8), ByteCounter.bytesFor(options) bytes. stops.wat's `$count` reads it there.
 */
export interface CounterMemory {
  buffer: ArrayBuffer;
  at: number;
}

// The counter's header, i32s at the start of its block: what stops.wat's `$count` reads. Fields
// 1–6, 8 and 13 are addresses in the buffer; 9 and 10 are not used.
const SLOT_BYTES = 0;
const KEYS = 1;
const LENGTHS = 2;
const KINDS = 3;
const HASHES = 4;
const NEXT = 5;
const HEADS = 6;
const MASK = 7;
const COUNTS = 8;
/** Slots in use. */
const SIZE = 11;
/** 1 when the counter evicts. */
const EVICTS = 12;
const RECENT_SLOTS = 13;
const CAPACITY = 14;
/**
 * Keys of the current records() call (stops.wat) left to this code: each may take a free slot,
 * so a counter that evicts is counted there only while size + DEFERRED < CAPACITY.
 */
const DEFERRED = 15;
const HEADER_BYTES = 64;

/** Where each part of a counter's block starts, from the block's start, and the block's size. */
function layoutOf(options: ByteCounterOptions) {
  const { capacity, evict } = options;
  const slotBytes = options.maxKeyBytes ?? 256;
  let tableSize = 16;
  while (tableSize < capacity * 2) tableSize *= 2;
  let bytes = HEADER_BYTES;
  const part = (size: number) => {
    const at = bytes;
    bytes += Math.ceil(size / 8) * 8;
    return at;
  };
  return {
    slotBytes,
    tableSize,
    counts: part(8 * capacity),
    overcounts: part(8 * capacity),
    lengths: part(4 * capacity),
    hashes: part(4 * capacity),
    next: part(4 * capacity),
    heads: part(4 * tableSize),
    heap: part(evict ? 4 * capacity : 0),
    place: part(evict ? 4 * capacity : 0),
    recent: part(4 * RECENT),
    kinds: part(capacity),
    keys: part(capacity * slotBytes),
    get bytes() {
      return bytes;
    },
  };
}

export class ByteCounter {
  /** Keys beyond capacity, when not evicting. */
  other = 0;
  /** True once a key was evicted: counts may then be over-estimates. */
  evicted = false;

  /** Bytes of the block a counter with these options lays its state out in (CounterMemory). */
  static bytesFor(options: ByteCounterOptions): number {
    return layoutOf(options).bytes;
  }

  private readonly capacity: number;
  private readonly evict: boolean;
  private readonly slotBytes: number;
  private readonly mask: number;
  private readonly layout: ReturnType<typeof layoutOf>;
  // Views of the block (bind): moved by detach().
  private buffer!: ArrayBuffer;
  private at = 0;
  private header!: Int32Array;
  private keys!: Buffer;
  private lengths!: Int32Array;
  private kinds!: Uint8Array;
  private hashes!: Int32Array;
  private heads!: Int32Array;
  private next!: Int32Array;
  private counts!: Float64Array;
  private overcounts!: Float64Array;
  // The Space-Saving min-heap of slots by count, and each slot's place in it (evicting counters
  // only); in order from the first eviction on (orderHeap).
  private ordered = false;
  private heap!: Int32Array;
  private place!: Int32Array;
  /**
   * Slots of keys counted lately, by a cheap hash of a key's length, kind and last two bytes,
   * tried before the key is hashed whole: a column's few values (an action, a rule, a country)
   * are then found without reading every byte twice. A slot that now holds another key (a
   * collision, an eviction) fails the byte test and the key is looked up as usual.
   */
  private recent!: Int32Array;

  /** `memory`: where the state lives (it is cleared first); by default, memory of its own. */
  constructor(options: ByteCounterOptions, memory?: CounterMemory) {
    const { capacity, evict } = options;
    this.capacity = capacity;
    this.evict = evict;
    this.layout = layoutOf(options);
    this.slotBytes = this.layout.slotBytes;
    this.mask = this.layout.tableSize - 1;
    const { buffer, at } = memory ?? { buffer: new ArrayBuffer(this.layout.bytes), at: 0 };
    // The keys (the most of it) need no clearing: only the bytes a slot was given are read.
    new Uint8Array(buffer, at, this.layout.keys).fill(0);
    this.bind(buffer, at);
    const { header } = this;
    header[SLOT_BYTES] = this.slotBytes;
    header[MASK] = this.mask;
    header[EVICTS] = evict ? 1 : 0;
    header[CAPACITY] = capacity;
    this.heads.fill(-1);
    this.recent.fill(-1);
  }

  /** A records() call (stops.wat) counts next: no key of it is left to this code yet. */
  beginCall(): void {
    this.header[DEFERRED] = 0;
  }

  /** Where the block starts in its buffer: the counter's address for stops.wat. */
  get address(): number {
    return this.at;
  }

  /** Moves the state to memory of its own, so that the memory it lived in can be given to another counter. */
  detach(): void {
    const copy = new ArrayBuffer(this.layout.bytes);
    new Uint8Array(copy).set(new Uint8Array(this.buffer, this.at, this.layout.bytes));
    this.bind(copy, 0);
  }

  private bind(buffer: ArrayBuffer, at: number): void {
    const { layout, capacity } = this;
    const view = <T>(make: new (b: ArrayBuffer, o: number, n: number) => T, offset: number, n: number) =>
      new make(buffer, at + offset, n);
    this.buffer = buffer;
    this.at = at;
    this.header = view(Int32Array, 0, HEADER_BYTES / 4);
    this.keys = Buffer.from(buffer, at + layout.keys, capacity * layout.slotBytes);
    this.lengths = view(Int32Array, layout.lengths, capacity);
    this.kinds = view(Uint8Array, layout.kinds, capacity);
    this.hashes = view(Int32Array, layout.hashes, capacity);
    this.heads = view(Int32Array, layout.heads, layout.tableSize);
    this.next = view(Int32Array, layout.next, capacity);
    this.counts = view(Float64Array, layout.counts, capacity);
    this.overcounts = view(Float64Array, layout.overcounts, capacity);
    this.heap = view(Int32Array, layout.heap, this.evict ? capacity : 0);
    this.place = view(Int32Array, layout.place, this.evict ? capacity : 0);
    this.recent = view(Int32Array, layout.recent, RECENT);
    const { header } = this;
    header[KEYS] = at + layout.keys;
    header[LENGTHS] = at + layout.lengths;
    header[KINDS] = at + layout.kinds;
    header[HASHES] = at + layout.hashes;
    header[NEXT] = at + layout.next;
    header[HEADS] = at + layout.heads;
    header[COUNTS] = at + layout.counts;
    header[RECENT_SLOTS] = at + layout.recent;
  }

  /** Slots in use. */
  private get size(): number {
    return this.header[SIZE]!;
  }

  private set size(size: number) {
    this.header[SIZE] = size;
  }

  /**
   * Counts the key buf[from, to), read as `kind` says; returns its slot (stable while nothing is
   * evicted), or -1 when it went to `other`.
   */
  add(buf: Uint8Array, from: number, to: number, kind: number): number {
    let length = to - from;
    if (length > this.slotBytes) {
      length = cutAtCharacter(buf, from, this.slotBytes);
      kind |= CUT;
    }
    const { keys, slotBytes, lengths, kinds } = this;
    const ends =
      length > 1 ? (buf[from + length - 2]! << 8) | buf[from + length - 1]! : length === 1 ? buf[from]! : 0;
    const lately = Math.imul(ends ^ (length << 16) ^ (kind << 28), 0x9e3779b1) >>> RECENT_SHIFT;
    const seen = this.recent[lately]!;
    if (
      seen >= 0 &&
      lengths[seen] === length &&
      kinds[seen] === kind &&
      sameBytesFromEnd(keys, seen * slotBytes, buf, from, length)
    )
      return this.hit(seen);
    const slot = this.lookUp(buf, from, length, kind);
    if (slot >= 0) this.recent[lately] = slot;
    return slot;
  }

  /** add() for a key not found among the recent ones: `length` already cut, `kind` marked. */
  private lookUp(buf: Uint8Array, from: number, length: number, kind: number): number {
    const { keys, slotBytes, lengths, kinds } = this;
    let hash = FNV_OFFSET ^ kind;
    for (let i = from; i < from + length; i++) hash = Math.imul(hash ^ buf[i]!, FNV_PRIME);
    const bucket = hash & this.mask;
    const { hashes, next } = this;
    for (let slot = this.heads[bucket]!; slot >= 0; slot = next[slot]!)
      if (
        hashes[slot] === hash &&
        lengths[slot] === length &&
        kinds[slot] === kind &&
        sameBytes(keys, slot * slotBytes, buf, from, length)
      )
        return this.hit(slot);
    if (this.size < this.capacity) {
      const slot = this.size++;
      this.store(slot, buf, from, length, kind, hash, bucket);
      this.counts[slot] = 1;
      if (this.evict) {
        this.heap[slot] = slot;
        this.place[slot] = slot;
      }
      return slot;
    }
    if (!this.evict) {
      this.other++;
      return -1;
    }
    if (!this.ordered) this.orderHeap();
    const victim = this.heap[0]!;
    this.unlink(victim);
    this.evicted = true;
    this.overcounts[victim] = this.counts[victim]!;
    this.counts[victim]!++;
    this.store(victim, buf, from, length, kind, hash, bucket);
    this.siftDown(0);
    return victim;
  }

  private hit(slot: number): number {
    this.counts[slot]!++;
    if (this.ordered) this.siftDown(this.place[slot]!);
    return slot;
  }

  /**
   * Makes the heap a min-heap by count, when the counter first evicts: until it is full no slot
   * is given away, so no hit before then pays to keep the heap in order (Floyd's heap
   * construction, then siftDown after each hit and eviction).
   */
  private orderHeap(): void {
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.siftDown(i);
    this.ordered = true;
  }

  /** Counts a key given as text (cells that are not one run of bytes: rare). */
  addText(text: string, kind: number): number {
    const bytes = Buffer.from(text);
    return this.add(bytes, 0, bytes.length, kind & NEUTRALISED);
  }

  /** The text of a slot that `add` returned. */
  textOf(slot: number): string {
    const base = slot * this.slotBytes;
    const kind = this.kinds[slot]!;
    let text = this.keys.toString('utf8', base, base + this.lengths[slot]!);
    if (kind & DOUBLED_QUOTES) text = text.replaceAll('""', '"');
    if (kind & CUT) text = `${text}…`;
    return kind & NEUTRALISED ? `'${text}` : text;
  }

  /**
   * Every key as text with its count, most first (ties by text). Keys whose bytes differ but
   * read as the same text (bytes that are not UTF-8 read as U+FFFD) are counted as one.
   */
  entries(): ByteCount[] {
    const merged = new Map<string, ByteCount>();
    for (let slot = 0; slot < this.size; slot++) {
      const text = this.textOf(slot);
      const entry = merged.get(text);
      if (entry) {
        entry.count += this.counts[slot]!;
        entry.overcount += this.overcounts[slot]!;
      } else merged.set(text, { text, count: this.counts[slot]!, overcount: this.overcounts[slot]! });
    }
    return [...merged.values()].sort(
      (a, b) => b.count - a.count || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0),
    );
  }

  private store(
    slot: number,
    buf: Uint8Array,
    from: number,
    length: number,
    kind: number,
    hash: number,
    bucket: number,
  ): void {
    this.keys.set(buf.subarray(from, from + length), slot * this.slotBytes);
    this.lengths[slot] = length;
    this.kinds[slot] = kind;
    this.hashes[slot] = hash;
    this.next[slot] = this.heads[bucket]!;
    this.heads[bucket] = slot;
  }

  private unlink(slot: number): void {
    const bucket = this.hashes[slot]! & this.mask;
    if (this.heads[bucket] === slot) {
      this.heads[bucket] = this.next[slot]!;
      return;
    }
    for (let at = this.heads[bucket]!; at >= 0; at = this.next[at]!)
      if (this.next[at] === slot) {
        this.next[at] = this.next[slot]!;
        return;
      }
  }

  private swap(i: number, j: number): void {
    const { heap, place } = this;
    const a = heap[i]!;
    const b = heap[j]!;
    heap[i] = b;
    heap[j] = a;
    place[a] = j;
    place[b] = i;
  }

  private siftDown(start: number): void {
    const { heap, counts } = this;
    const length = this.size;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= length) return;
      const right = left + 1;
      const child = right < length && counts[heap[right]!]! < counts[heap[left]!]! ? right : left;
      if (counts[heap[i]!]! <= counts[heap[child]!]!) return;
      this.swap(i, child);
      i = child;
    }
  }
}

function sameBytes(keys: Uint8Array, at: number, buf: Uint8Array, from: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (keys[at + i] !== buf[from + i]) return false;
  return true;
}

/** The same test from the last byte: keys of a column differ at the end more often (IPs, ids). */
function sameBytesFromEnd(
  keys: Uint8Array,
  at: number,
  buf: Uint8Array,
  from: number,
  length: number,
): boolean {
  for (let i = length - 1; i >= 0; i--) if (keys[at + i] !== buf[from + i]) return false;
  return true;
}

/** At most `max` bytes from `from`, not ending inside a UTF-8 sequence. */
function cutAtCharacter(buf: Uint8Array, from: number, max: number): number {
  let length = max;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (length > 0 && (buf[from + length]! & 0xc0) === 0x80) length--;
  return length;
}
