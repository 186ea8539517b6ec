/**
 * The Shield export's summary, counted by the formula guard's pass over the CSV (csv/guard.ts),
 * with no second read: the event count, counts by action, rule, country and ASN, the top IPs,
 * and events per time bucket. The vendor does not document the export's columns, so they are
 * found by header name, without regard to case (or to `_`, `-` and spaces: `Rule ID` is
 * `ruleId`); a dimension whose column the file lacks is left out of the summary.
 *
 * Values are counted as the CSV file holds them, formula cells with their `'`, so that what the
 * summary shows can be found in the file. Cells are counted from their bytes (byte-counts.ts):
 * a string is made per distinct value, not per cell. The counters live in the guard's
 * WebAssembly memory when the thread's one lease of it is free (stops.ts: leaseCounting), and
 * the guard's SIMD pass then counts most cells itself; the rest are counted here, in the same
 * counters. Loaded by the export worker: no zod here.
 */
import { ByteCounter, type ByteCounterOptions, DOUBLED_QUOTES, NEUTRALISED, PLAIN } from '../byte-counts.js';
import { addHeaderName, type CsvCellSink, decode } from '../csv/columns.js';
import {
  COUNTED_COLUMNS,
  COUNTED_SLOT_BITS,
  COUNTING_MEMORY_BYTES,
  type CountingLease,
  endCounting,
  leaseCounting,
  MOST_RECORDS,
  READ,
  READ_TIME_BIAS,
  ROLES_AT,
  TIME_COLUMN,
} from '../csv/stops.js';
import { EventTimeReader, eventTimeOfText } from './event-time.js';

/** What the summary counts, and the header names (compared as `normalise` makes them) that hold it. */
export const SHIELD_COLUMNS = {
  timestamp: ['timestamp', 'time', 'datetime', 'date', 'eventtime'],
  action: ['action'],
  ruleId: ['ruleid', 'rule'],
  ruleName: ['rulename', 'ruledescription'],
  country: ['country', 'countrycode'],
  asn: ['asn'],
  ip: ['ip', 'remoteip', 'clientip', 'ipaddress'],
} as const;
export type ShieldColumn = keyof typeof SHIELD_COLUMNS;
const ROLES = Object.keys(SHIELD_COLUMNS) as ShieldColumn[];
const TIMESTAMP = ROLES.indexOf('timestamp');
const RULE_ID = ROLES.indexOf('ruleId');
const RULE_NAME = ROLES.indexOf('ruleName');
const IP = ROLES.indexOf('ip');

/** Distinct values counted per label column before the rest are summed as `other`. */
export const LABEL_CAPACITY = 1_000;
/** Distinct IPs tracked for the top list (Space-Saving: any IP above events/capacity is in it). */
export const IP_TRACK_CAPACITY = 2_000;
export const TOP_IPS = 50;
/** Distinct (rule id, rule name) pairs counted before the rest are summed as `other`. */
const RULE_CAPACITY = 2_000;
/** Most buckets in the timeline: past this, buckets are widened to whole multiples of the size. */
export const MAX_BUCKETS = 200;

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** Bucket size for a span of events: 1 min up to 1 h, 5 min up to 6 h, 15 min up to 24 h, 1 h beyond. */
export function bucketMsFor(spanMs: number): number {
  if (spanMs <= HOUR_MS) return MINUTE_MS;
  if (spanMs <= 6 * HOUR_MS) return 5 * MINUTE_MS;
  if (spanMs <= 24 * HOUR_MS) return 15 * MINUTE_MS;
  return HOUR_MS;
}

export interface ValueCount {
  value: string;
  count: number;
}

/** Counts of one column: `other` sums the values past the capacity. */
export interface Breakdown {
  values: ValueCount[];
  other: number;
}

export interface ShieldSummary {
  /** Data rows of the export, the header excluded. */
  events: number;
  /** The header name found for each dimension; a dimension the file lacks is absent. */
  columns: Partial<Record<ShieldColumn, string>>;
  byAction?: Breakdown;
  byCountry?: Breakdown;
  byAsn?: Breakdown;
  /** Present when the file has a rule id or a rule name column; the other reads ''. */
  byRule?: { rules: { id: string; name: string; count: number }[]; other: number };
  /** `count` is an upper bound, exact when `overcount` is 0 (Space-Saving). */
  topIps?: { ips: { ip: string; count: number; overcount: number }[] };
  timeline?: ShieldTimeline;
}

/** Events per bucket over the span the events cover. */
export interface ShieldTimeline {
  /** Start of the first bucket, Unix ms (a multiple of the bucket size). */
  startMs: number;
  bucketMs: number;
  /** Empty when no event had a time. */
  counts: number[];
  firstMs: number | null;
  lastMs: number | null;
  /** Events whose time cell is empty or not a time: in every count but the timeline. */
  untimed: number;
}

/** `Rule ID`, `rule_id` and `RuleId` are one name. */
export const normaliseColumnName = (name: string) => name.toLowerCase().replace(/[\s_-]/g, '');

/** Per column of the header, the dimension it holds or -1: the first column of the first name listed. */
function rolesOf(header: readonly string[]): {
  slots: Int32Array;
  names: Partial<Record<ShieldColumn, string>>;
} {
  const normalised = header.map(normaliseColumnName);
  const slots = new Int32Array(header.length).fill(-1);
  const names: Partial<Record<ShieldColumn, string>> = {};
  ROLES.forEach((role, slot) => {
    for (const name of SHIELD_COLUMNS[role]) {
      const column = normalised.indexOf(name);
      if (column < 0 || slots[column] !== -1) continue;
      slots[column] = slot;
      names[role] = header[column]!;
      return;
    }
  });
  return { slots, names };
}

/**
 * Events per minute in bounded memory: a day of minutes is a Map of 1,440 keys. Past MAX_KEYS
 * (the events then span more than a week, so the buckets are an hour or more) the keys become
 * hours, then days, and so on.
 */
class Timeline {
  private static readonly MAX_KEYS = 20_000;
  /** Width of a key, in minutes. */
  granularity = 1;
  readonly counts = new Map<number, number>();
  first = Number.POSITIVE_INFINITY;
  last = Number.NEGATIVE_INFINITY;
  // Events come mostly in time order: consecutive ones in the same key are added up first.
  private pendingKey = Number.NaN;
  private pending = 0;

  add(ms: number): void {
    if (ms < this.first) this.first = ms;
    if (ms > this.last) this.last = ms;
    const key = Math.floor(ms / (MINUTE_MS * this.granularity));
    if (key === this.pendingKey) {
      this.pending++;
      return;
    }
    this.flush();
    this.pendingKey = key;
    this.pending = 1;
  }

  flush(): void {
    if (this.pending === 0) return;
    this.counts.set(this.pendingKey, (this.counts.get(this.pendingKey) ?? 0) + this.pending);
    this.pending = 0;
    this.pendingKey = Number.NaN;
    if (this.counts.size > Timeline.MAX_KEYS) this.coarsen();
  }

  private coarsen(): void {
    const factor = this.granularity === 1 ? 60 : this.granularity === 60 ? 24 : 10;
    const coarse = new Map<number, number>();
    for (const [key, count] of this.counts) {
      const wider = Math.floor(key / factor);
      coarse.set(wider, (coarse.get(wider) ?? 0) + count);
    }
    this.granularity *= factor;
    this.counts.clear();
    for (const [key, count] of coarse) this.counts.set(key, count);
  }

  /** Buckets over the span the events cover, sized for it; none when no event had a time. */
  buckets(untimed: number): ShieldTimeline {
    this.flush();
    if (this.counts.size === 0)
      return { startMs: 0, bucketMs: MINUTE_MS, counts: [], firstMs: null, lastMs: null, untimed };
    const keyMs = MINUTE_MS * this.granularity;
    // A bucket holds whole keys.
    let bucketMs = Math.ceil(bucketMsFor(this.last - this.first) / keyMs) * keyMs;
    const buckets = () => Math.floor(this.last / bucketMs) - Math.floor(this.first / bucketMs) + 1;
    if (buckets() > MAX_BUCKETS) bucketMs *= Math.ceil(buckets() / MAX_BUCKETS);
    const start = Math.floor(this.first / bucketMs);
    const counts = new Array<number>(buckets()).fill(0);
    for (const [key, events] of this.counts) counts[Math.floor((key * keyMs) / bucketMs) - start]! += events;
    return { startMs: start * bucketMs, bucketMs, counts, firstMs: this.first, lastMs: this.last, untimed };
  }
}

/** Each dimension's counter (the timestamp's unused). */
const COUNTER_OPTIONS: ByteCounterOptions[] = ROLES.map((role) =>
  role === 'ip'
    ? { capacity: IP_TRACK_CAPACITY, evict: true, maxKeyBytes: 64 }
    : { capacity: role === 'timestamp' ? 1 : LABEL_CAPACITY, evict: false },
);
/** What records() reads of each record of a call: two u32s (stops.wat: `$countRecord`). */
const READ_WORDS = 2 * MOST_RECORDS;
// What the counting memory and records()' entries must hold, checked once: a slot + 1 in
// COUNTED_SLOT_BITS bits, below their all-ones (stops.ts: APOSTROPHE), and every counter's block with the records' array in the memory lent.
// stops.wat knows the roles of the time (0) and of the rule's id and name (2, 3) by number.
if (TIMESTAMP !== 0 || RULE_ID !== 2 || RULE_NAME !== 3)
  throw new Error("the Shield summary's roles are not where records() reads them");
if (Math.max(LABEL_CAPACITY, IP_TRACK_CAPACITY) + 1 >= 2 ** COUNTED_SLOT_BITS - 1)
  throw new Error('a Shield counter holds more slots than records() can mark');
if (
  4 * READ_WORDS +
    COUNTER_OPTIONS.reduce(
      (sum, options, role) => (role === TIMESTAMP ? sum : sum + ByteCounter.bytesFor(options)),
      0,
    ) >
  COUNTING_MEMORY_BYTES
)
  throw new Error("the Shield summary's counters outgrow the counting memory");

/** The cell's kind for ByteCounter: how its bytes read as the file's text. */
const kindOf = (doubled: boolean, formula: boolean) =>
  (doubled ? DOUBLED_QUOTES : PLAIN) | (formula ? NEUTRALISED : PLAIN);

/**
 * Reads the cells the guard hands over (CsvCellSink) and counts them; `summary()` when the body
 * has ended. Only the header is decoded in full.
 */
export class ShieldTally implements CsvCellSink {
  private events = 0;
  private untimed = 0;
  /** Per header column, the dimension (index in ROLES) or -1; undefined while the header is read. */
  private slots: Int32Array | undefined;
  private names: Partial<Record<ShieldColumn, string>> = {};
  /** Bit per dimension (index in ROLES) whose column the header has. */
  private present = 0;
  private readonly header: string[] = [];
  /** Cells the guard's SIMD pass counted (for tests and benchmarks); the others were counted here. */
  cellsCountedBySimd = 0;
  /** The WebAssembly memory the counters live in while the guard's SIMD pass counts there. */
  private lease: CountingLease | undefined;
  /** One counter per dimension (the timestamp's unused); the rule's give the slots rules are counted by. */
  private readonly counters: ByteCounter[];
  /** Per rule id slot (LABEL_CAPACITY: no id column), the first name slot seen with it and its count. */
  private readonly firstName = new Int32Array(LABEL_CAPACITY + 1).fill(-1);
  private readonly firstNameCount = new Float64Array(LABEL_CAPACITY + 1);
  /** Other (id slot, name slot) pairs, as id × (LABEL_CAPACITY + 1) + name. */
  private readonly rules = new Map<number, number>();
  private rulesOther = 0;
  private readonly timeline = new Timeline();
  private readonly times: EventTimeReader;
  // What the guard's SIMD pass read of each record of its call (stops.wat: `$countRecord`), and
  // the minute its times count from (set by the call).
  private read = new Uint32Array(0);
  private callMinute = new Float64Array(1);
  // The current row: which dimensions had a cell, its time, its rule's id and name slots.
  private seen = 0;
  private rowTime = Number.NaN;
  private ruleIdSlot = -1;
  private ruleNameSlot = -1;

  /** `simd: false` counts every cell here, in memory of its own (the oracle, for tests). */
  constructor(options: { simd?: boolean } = {}) {
    const lease = options.simd === false ? undefined : leaseCounting(this);
    this.times = new EventTimeReader(lease && { buffer: lease.buffer, at: lease.minuteAt });
    let at = lease?.from ?? 0;
    if (lease) {
      this.read = new Uint32Array(lease.buffer, at, READ_WORDS);
      this.callMinute = new Float64Array(lease.buffer, lease.callMinuteAt, 1);
      lease.table[READ] = at;
      at += this.read.byteLength;
    }
    this.counters = COUNTER_OPTIONS.map((counterOptions, role) => {
      if (lease === undefined || role === TIMESTAMP) return new ByteCounter(counterOptions);
      const counter = new ByteCounter(counterOptions, { buffer: lease.buffer, at });
      at += ByteCounter.bytesFor(counterOptions);
      return counter;
    });
    this.lease = lease;
  }

  /** The tally table the guard's SIMD pass counts with (CsvCellSink), once the header is read. */
  countingTable(): number {
    if (this.slots === undefined || this.lease === undefined) return 0;
    for (const counter of this.counters) counter.beginCall();
    return this.lease.tally;
  }

  /** Whether the guard's SIMD pass counts this tally's cells (for tests and benchmarks). */
  get countsInWebAssembly(): boolean {
    return this.lease !== undefined;
  }

  /** Moves the counters out of the WebAssembly memory and gives it back: call when the export ends, however. */
  release(): void {
    if (this.lease === undefined) return;
    this.lease = undefined;
    this.read = new Uint32Array(0);
    this.callMinute = new Float64Array(1);
    for (const counter of this.counters) counter.detach();
    this.times.detach();
    endCounting(this);
  }

  wants(column: number): boolean {
    return this.slots === undefined || (this.slots[column] ?? -1) >= 0;
  }

  cell(
    buf: Buffer,
    column: number,
    doubled: boolean,
    formula: boolean,
    contentAt: number,
    closeAt: number,
    tailAt: number,
    end: number,
  ): void {
    if (this.slots === undefined) {
      addHeaderName(this.header, decode(buf, doubled, contentAt, closeAt, tailAt, end));
      return;
    }
    const role = this.slots[column] ?? -1;
    if (role < 0) return;
    this.seen |= 1 << role;
    // A cell that goes on after a NUL (csv-parse's leniency) is not one run of bytes: read as text.
    const text = tailAt < end ? decode(buf, doubled, contentAt, closeAt, tailAt, end) : undefined;
    if (role === TIMESTAMP) {
      this.rowTime =
        text !== undefined || doubled
          ? eventTimeOfText(text ?? decode(buf, doubled, contentAt, closeAt, tailAt, end))
          : this.times.ofBytes(buf, contentAt, closeAt);
      return;
    }
    const kind = kindOf(doubled, formula);
    const counter = this.counters[role]!;
    const slot =
      text === undefined ? counter.add(buf, contentAt, closeAt, kind) : counter.addText(text, kind);
    if (role === RULE_ID) this.ruleIdSlot = slot;
    else if (role === RULE_NAME) this.ruleNameSlot = slot;
  }

  record(_buf?: Buffer, counted = -1): void {
    if (counted >= 0) this.readBySimd(counted);
    if (this.slots === undefined) {
      const { slots, names } = rolesOf(this.header);
      this.slots = slots;
      if (this.lease) this.fillTable(this.lease, slots);
      this.names = names;
      this.present = ROLES.reduce(
        (mask, role, index) => (names[role] === undefined ? mask : mask | (1 << index)),
        0,
      );
      this.header.length = 0;
      return;
    }
    this.events++;
    // A column the header has and a short row lacks counts as an empty cell.
    const missing = this.present & ~this.seen & ~(1 << TIMESTAMP);
    if (missing !== 0)
      for (let index = 0; index < ROLES.length; index++) {
        if ((missing & (1 << index)) === 0) continue;
        const slot = this.counters[index]!.add(EMPTY, 0, 0, PLAIN);
        if (index === RULE_ID) this.ruleIdSlot = slot;
        else if (index === RULE_NAME) this.ruleNameSlot = slot;
      }
    if (this.present & (1 << TIMESTAMP)) {
      if (Number.isNaN(this.rowTime)) this.untimed++;
      else this.timeline.add(this.rowTime);
    }
    if (this.present & ((1 << RULE_ID) | (1 << RULE_NAME))) this.countRule();
    this.seen = 0;
    this.rowTime = Number.NaN;
    this.ruleIdSlot = -1;
    this.ruleNameSlot = -1;
  }

  /** The tally table for the SIMD pass: each named column's counter and role, the time's column. */
  private fillTable(lease: CountingLease, slots: Int32Array): void {
    const roles = new Uint8Array(lease.buffer, lease.tally + ROLES_AT, COUNTED_COLUMNS);
    for (let column = 0; column < Math.min(COUNTED_COLUMNS, slots.length); column++) {
      const role = slots[column]!;
      if (role === TIMESTAMP) lease.table[TIME_COLUMN] = column;
      else if (role >= 0) {
        lease.table[column] = this.counters[role]!.address;
        roles[column] = role;
      }
    }
  }

  /** What the SIMD pass read of a record: the roles it counted, the rule's slots, the time. */
  private readBySimd(index: number): void {
    const read = this.read[2 * index]!;
    const roles = read & 0xff;
    this.seen |= roles;
    if (roles & (1 << TIMESTAMP))
      this.rowTime = this.callMinute[0]! + (this.read[2 * index + 1]! - READ_TIME_BIAS);
    if (roles & (1 << RULE_ID)) this.ruleIdSlot = ((read >>> 8) & 0x7ff) - 1;
    if (roles & (1 << RULE_NAME)) this.ruleNameSlot = ((read >>> 19) & 0x7ff) - 1;
    for (let bits = roles; bits !== 0; bits &= bits - 1) this.cellsCountedBySimd++;
  }

  /** Nothing to keep: every cell is counted while its bytes are there. */
  settle(): void {}

  private countRule(): void {
    const { ruleIdSlot, ruleNameSlot } = this;
    // A value past the label capacity has no slot: the pair goes to `other`.
    const hasId = this.names.ruleId !== undefined;
    const hasName = this.names.ruleName !== undefined;
    if ((hasId && ruleIdSlot < 0) || (hasName && ruleNameSlot < 0)) {
      this.rulesOther++;
      return;
    }
    const id = hasId ? ruleIdSlot : LABEL_CAPACITY;
    const name = hasName ? ruleNameSlot : LABEL_CAPACITY;
    // A rule id has one name, nearly always: that pair is counted in an array, others in a Map.
    const first = this.firstName[id]!;
    if (first === name || first < 0) {
      this.firstName[id] = name;
      this.firstNameCount[id]!++;
      return;
    }
    const key = id * (LABEL_CAPACITY + 1) + name;
    const current = this.rules.get(key);
    if (current !== undefined) this.rules.set(key, current + 1);
    else if (this.rules.size < RULE_CAPACITY) this.rules.set(key, 1);
    else this.rulesOther++;
  }

  private breakdown(role: ShieldColumn): Breakdown | undefined {
    if (this.names[role] === undefined) return undefined;
    const counter = this.counters[ROLES.indexOf(role)]!;
    return {
      values: counter.entries().map(({ text, count }) => ({ value: text, count })),
      other: counter.other,
    };
  }

  summary(): ShieldSummary {
    const { names } = this;
    const summary: ShieldSummary = { events: this.events, columns: { ...names } };
    const byAction = this.breakdown('action');
    const byCountry = this.breakdown('country');
    const byAsn = this.breakdown('asn');
    if (byAction) summary.byAction = byAction;
    if (byCountry) summary.byCountry = byCountry;
    if (byAsn) summary.byAsn = byAsn;
    if (names.ruleId !== undefined || names.ruleName !== undefined) {
      const ids = this.counters[RULE_ID]!;
      const ruleNames = this.counters[RULE_NAME]!;
      const merged = new Map<string, { id: string; name: string; count: number }>();
      const pairs = [...this.rules];
      this.firstName.forEach((name, id) => {
        if (name >= 0) pairs.push([id * (LABEL_CAPACITY + 1) + name, this.firstNameCount[id]!]);
      });
      for (const [key, count] of pairs) {
        const idSlot = Math.floor(key / (LABEL_CAPACITY + 1));
        const nameSlot = key % (LABEL_CAPACITY + 1);
        const id = idSlot === LABEL_CAPACITY ? '' : ids.textOf(idSlot);
        const name = nameSlot === LABEL_CAPACITY ? '' : ruleNames.textOf(nameSlot);
        // Bytes that read as the same text (not UTF-8) are one rule.
        const both = `${id}\u0000${name}`;
        const entry = merged.get(both);
        if (entry) entry.count += count;
        else merged.set(both, { id, name, count });
      }
      summary.byRule = {
        rules: [...merged.values()].sort(
          (a, b) => b.count - a.count || (a.id < b.id ? -1 : a.id > b.id ? 1 : a.name < b.name ? -1 : 1),
        ),
        other: this.rulesOther,
      };
    }
    if (names.ip !== undefined)
      summary.topIps = {
        ips: this.counters[IP]!.entries()
          .slice(0, TOP_IPS)
          .map(({ text, count, overcount }) => ({ ip: text, count, overcount })),
      };
    if (names.timestamp !== undefined) summary.timeline = this.timeline.buckets(this.untimed);
    this.release();
    return summary;
  }
}

const EMPTY = Buffer.alloc(0);
