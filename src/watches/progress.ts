/**
 * What a watch has counted, and how one poll adds to it: pure, no clock, no I/O. The cursor is
 * the newest entry time seen and the keys of the entries counted within a lookback before it; an
 * entry older than the lookback (or than the watch) is taken as seen. The platform promises no
 * order, so every poll reads the whole day and this decides, entry by entry, what is new. A poll
 * counts only what happened before its now: an entry stamped later (a platform clock ahead of
 * ours) is left for the first poll after its time, which counts it then, once.
 */
import { z } from 'zod';
import { isOriginEntry } from '../reports/origin/entry.js';
import {
  createOriginMatcher,
  entryFacts,
  type OriginFilters,
  statusFilterOf,
} from '../reports/origin/tally.js';
import {
  type BucketGrid,
  bucketGrid,
  HOUR_MS,
  lastWindow,
  MINUTE_MS,
  type OriginWindow,
  withinWindow,
} from '../reports/origin/window.js';

/** How far before the newest entry seen a late entry is still counted. */
export const LOOKBACK_MS = 10 * 60_000;
/**
 * The most entry keys a cursor keeps. Past it the floor rises to the newest keys' oldest time and
 * anything before the floor is taken as seen: a burst costs a little under-counting, never a count
 * twice, and a save stays a few hundred kilobytes instead of tens of megabytes.
 */
export const MAX_CURSOR_KEYS = 20_000;
/** The sparkline's span: the last hour, minute by minute. */
export const SPARK_MS = HOUR_MS;
const SECOND = 1_000;

/** The hour a poll's sparkline shows: the one `/edge logs --last 1h` counts at the same instant. */
export const lastHourAt = (polledAt: number): OriginWindow => lastWindow(polledAt, SPARK_MS);

const PairsSchema = z.array(z.tuple([z.number(), z.number()]));

export const EpisodeSchema = z.object({
  startMs: z.number(),
  peak: z.number().int(),
  /** The thread message that announced it; null when snoozed or not yet posted. */
  alertTs: z.string().nullable(),
});
export type Episode = z.infer<typeof EpisodeSchema>;

export const WatchProgressSchema = z.object({
  cursor: z.object({
    maxTs: z.number(),
    recent: z.array(z.tuple([z.string(), z.number()])),
    /** Raised when the keys reached MAX_CURSOR_KEYS: entries before it count as seen. */
    floor: z.number().optional(),
  }),
  total: z.number().int(),
  /**
   * The hour before the last poll (lastHourAt), counted as `/edge logs --last 1h` counts it then:
   * every matching entry, those from before the watch began too, per bucket of that command's
   * chart grid. Null until the first poll.
   */
  lastHour: z
    .object({ endMs: z.number(), counts: z.array(z.number().int()) })
    .nullable()
    .default(null),
  /**
   * The last hour as the previous version kept it, written empty and read by nothing: a replica
   * still on that version during a rolling upgrade requires it to read a watch this one saved.
   */
  minutes: PairsSchema.default([]),
  /** Matching entries per second (by entry time) within the alert window and the lookback. */
  seconds: PairsSchema,
  episode: EpisodeSchema.nullable(),
  episodes: z.number().int(),
  /** Set while the platform has asked us to wait (HTTP 429): each one doubles the interval, up to 8×. */
  slowed: z.object({ level: z.number().int().min(1) }).nullable(),
  /** The last poll's failure, for the watch message; null once a poll succeeds. */
  failure: z.string().nullable(),
});
export type WatchProgress = z.infer<typeof WatchProgressSchema>;

export function initialProgress(startedAt: number): WatchProgress {
  return {
    cursor: { maxTs: startedAt, recent: [] },
    total: 0,
    lastHour: null,
    minutes: [],
    seconds: [],
    episode: null,
    episodes: 0,
    slowed: null,
    failure: null,
  };
}

export interface WatchFilters {
  status: string | null;
  code: string | null;
}

/** `5xx` is a class, `502` one code, as `/edge logs --status` reads them. */
export function originFiltersOf(filters: WatchFilters): OriginFilters {
  const result: OriginFilters = {};
  if (filters.status) result.status = statusFilterOf(filters.status);
  if (filters.code) result.errorCode = filters.code;
  return result;
}

/** Alert when more than `count` matching entries fall within any window of `windowMs`. */
export interface AlertRule {
  count: number;
  windowMs: number;
}

const addTo = (map: Map<number, number>, key: number, by = 1) => map.set(key, (map.get(key) ?? 0) + by);

/** Counts one poll's entries into a watch's progress: feed every element, then finish. */
export class PollCounter {
  private readonly floor: number;
  private readonly recent: Map<string, number>;
  private readonly matches: ReturnType<typeof createOriginMatcher>;
  private readonly seconds: Map<number, number>;
  private readonly newSeconds = new Set<number>();
  private readonly hour: OriginWindow;
  private readonly grid: BucketGrid;
  private readonly hourCounts: number[];
  private maxTs: number;
  private added = 0;
  /** The cursor's ids are pruned as the poll goes when they grow past this: a busy day stays bounded. */
  private pruneAt = 50_000;

  /** `polledAt` is the poll's now: entries stamped at or after it are left to a later poll. */
  constructor(
    private readonly progress: WatchProgress,
    filters: WatchFilters,
    private readonly startedAt: number,
    private readonly polledAt: number,
  ) {
    this.maxTs = progress.cursor.maxTs;
    this.floor = Math.max(
      startedAt,
      progress.cursor.maxTs - LOOKBACK_MS,
      progress.cursor.floor ?? Number.NEGATIVE_INFINITY,
    );
    this.recent = new Map(progress.cursor.recent);
    this.matches = createOriginMatcher(originFiltersOf(filters));
    this.seconds = new Map(progress.seconds);
    this.hour = lastHourAt(polledAt);
    this.grid = bucketGrid(this.hour);
    this.hourCounts = new Array<number>(this.grid.count).fill(0);
  }

  /** Counts the element when it is a matching entry not counted before, and in the last hour when it is in it. */
  add(element: unknown): void {
    if (!isOriginEntry(element) || element.timestamp === undefined || !Number.isFinite(element.timestamp))
      return;
    const ts = Math.floor(element.timestamp);
    // Not happened yet by this poll's clock: the first poll after its time counts it.
    if (ts >= this.polledAt) return;
    const inHour = withinWindow(ts, this.hour);
    if (ts < this.floor && !inHour) return;
    // An entry is its log id and time; one without an id is known by the start of its text instead.
    const key = ts < this.floor ? undefined : `${ts}|${element.logId ?? (element.log ?? '').slice(0, 120)}`;
    const fresh = key !== undefined && !this.recent.has(key);
    if (!fresh && !inHour) return;
    const facts = entryFacts(element);
    if (!this.matches(facts.status, facts.errorCode, facts.serverZone)) return;
    if (inHour) this.hourCounts[Math.floor((ts - this.grid.startMs) / this.grid.widthMs)]!++;
    if (!fresh || key === undefined) return;
    this.recent.set(key, ts);
    this.added++;
    if (ts > this.maxTs) this.maxTs = ts;
    if (this.recent.size >= this.pruneAt) this.prune();
    const second = Math.floor(ts / SECOND) * SECOND;
    addTo(this.seconds, second);
    this.newSeconds.add(second);
  }

  /** Drops ids the cursor no longer needs: older than the lookback before the newest entry so far. */
  private prune(): void {
    const floor = this.maxTs - LOOKBACK_MS;
    for (const [key, ts] of this.recent) if (ts < floor) this.recent.delete(key);
    this.pruneAt = Math.max(50_000, this.recent.size * 2);
  }

  /** New entries counted so far in this poll. */
  get newCount(): number {
    return this.added;
  }

  /** The progress after this poll, with what the alert rule makes of it. */
  finish(alert: AlertRule | null): PollOutcome {
    const nowMs = this.polledAt;
    const lookback = Math.max(this.startedAt, this.maxTs - LOOKBACK_MS);
    const { floor, recent } = capped(
      [...this.recent],
      Math.max(lookback, this.progress.cursor.floor ?? Number.NEGATIVE_INFINITY),
    );
    const keepSeconds = nowMs - (alert?.windowMs ?? 0) - LOOKBACK_MS;
    const seconds = alert
      ? [...this.seconds].filter(([at]) => at >= keepSeconds).sort((a, b) => a[0] - b[0])
      : [];
    const next: WatchProgress = {
      ...this.progress,
      cursor: { maxTs: this.maxTs, recent, ...(floor > lookback ? { floor } : {}) },
      total: this.progress.total + this.added,
      lastHour: { endMs: nowMs, counts: this.hourCounts },
      minutes: [],
      seconds,
      slowed: null,
      failure: null,
    };
    if (!alert) return { progress: next, added: this.added, change: 'none' };
    return judgeAlert(next, seconds, [...this.newSeconds], nowMs, alert, this.added);
  }
}

/** The keys at or after `floor`, at most MAX_CURSOR_KEYS of them: the floor raised as far as that needs. */
function capped(keys: [string, number][], lowest: number): { floor: number; recent: [string, number][] } {
  let recent = keys.filter(([, ts]) => ts >= lowest);
  if (recent.length <= MAX_CURSOR_KEYS) return { floor: lowest, recent };
  const times = recent.map(([, ts]) => ts).sort((a, b) => b - a);
  // The oldest time among the newest keys; when it is shared past the cap, none of that millisecond.
  const edge = times[MAX_CURSOR_KEYS - 1]!;
  const floor = times[MAX_CURSOR_KEYS] === edge ? edge + 1 : edge;
  recent = recent.filter(([, ts]) => ts >= floor);
  return { floor, recent };
}

/** What one poll did to the alert: nothing, a new episode, a higher peak, or its end. */
export type AlertChange = 'none' | 'tripped' | 'peak' | 'cleared';

export interface PollOutcome {
  progress: WatchProgress;
  added: number;
  change: AlertChange;
  /** The episode that just ended, with its end. */
  ended?: Episode & { endMs: number };
}

/** Matching entries in the window of `windowMs` that ends with the second `endSecond`. */
function windowCount(seconds: readonly (readonly [number, number])[], endSecond: number, windowMs: number) {
  let sum = 0;
  for (const [at, count] of seconds) if (at > endSecond - windowMs && at <= endSecond) sum += count;
  return sum;
}

function judgeAlert(
  progress: WatchProgress,
  seconds: readonly (readonly [number, number])[],
  newSeconds: number[],
  nowMs: number,
  alert: AlertRule,
  added: number,
): PollOutcome {
  let peak = windowCount(seconds, Math.floor(nowMs / SECOND) * SECOND, alert.windowMs);
  let firstOver: number | undefined;
  for (const second of newSeconds.sort((a, b) => a - b)) {
    const inWindow = windowCount(seconds, second, alert.windowMs);
    if (inWindow > alert.count && firstOver === undefined) firstOver = second;
    peak = Math.max(peak, inWindow);
  }
  const current = windowCount(seconds, Math.floor(nowMs / SECOND) * SECOND, alert.windowMs);
  const episode = progress.episode;
  const over = peak > alert.count;
  if (!episode) {
    if (!over) return { progress, added, change: 'none' };
    const started: Episode = { startMs: firstOver ?? nowMs, peak, alertTs: null };
    return {
      progress: { ...progress, episode: started, episodes: progress.episodes + 1 },
      added,
      change: 'tripped',
    };
  }
  if (over || current > alert.count) {
    if (peak <= episode.peak) return { progress, added, change: 'none' };
    return { progress: { ...progress, episode: { ...episode, peak } }, added, change: 'peak' };
  }
  return {
    progress: { ...progress, episode: null },
    added,
    change: 'cleared',
    ended: { ...episode, endMs: nowMs },
  };
}

const SPARKS = '▁▂▃▄▅▆▇█';

export interface Sparkline {
  /** One character per minute of the hour's grid, the busiest minute tallest. */
  line: string;
  /** The most errors in one minute. */
  peak: number;
  /** Every error in the hour: what `/edge logs --last 1h` counted at the same instant. */
  total: number;
  /** The hour drawn; undefined before the first poll. */
  hour?: OriginWindow;
}

/** The hour before the last poll, minute by minute: blank minutes are the lowest bar. */
export function sparkline(progress: WatchProgress): Sparkline {
  if (!progress.lastHour) return { line: SPARKS[0]!.repeat(SPARK_MS / MINUTE_MS), peak: 0, total: 0 };
  const { counts, endMs } = progress.lastHour;
  const peak = Math.max(0, ...counts);
  const line = counts
    .map((value) => (peak === 0 ? SPARKS[0] : SPARKS[Math.min(7, Math.ceil((value / peak) * 7))]))
    .join('');
  return { line, peak, total: counts.reduce((sum, value) => sum + value, 0), hour: lastHourAt(endMs) };
}
