/**
 * The pure part of the origin-log summary: one entry in, its CSV row out (when it passes the
 * filters), counts kept in bounded memory. The worker feeds it; tests can drive it directly.
 */
import { z } from 'zod';
import {
  isOriginDetail,
  isOriginEntry,
  type OriginDetail,
  type OriginEntry,
  type OriginLabels,
} from './entry.js';
import {
  ByErrorCodeSchema,
  ByServerZoneSchema,
  ByStatusSchema,
  ComparisonTextCountsSchema,
  CountSchema,
  IN_WINDOW,
  NOWHERE,
  OriginTextCounts,
  type TextCounter,
  type TextCounts,
  TopUrlsSchema,
} from './text-counts.js';
import { type OriginWindow, withinWindow } from './window.js';

export { IN_WINDOW, LABEL_CAPACITY, NOWHERE, TOP_URLS, URL_TRACK_CAPACITY } from './text-counts.js';

export const CSV_HEADER = ['timestamp', 'status', 'error_code', 'server_zone', 'url', 'message', 'log_id'];

/** `--status 502` is an exact code, `--status 5xx` a class (5); an entry matches either list. */
export const OriginFiltersSchema = z.strictObject({
  status: z
    .strictObject({
      exact: z.array(z.number().int().min(100).max(599)).optional(),
      classes: z.array(z.number().int().min(1).max(5)).optional(),
    })
    .optional(),
  /** An ErrorCode label such as `dns_lookup`, compared without case. */
  errorCode: z.string().min(1).optional(),
  /** A ServerZone label such as `CA`, compared without case. */
  serverZone: z.string().min(1).optional(),
  /** Only entries at or after this instant (Unix ms): the window's start. */
  sinceMs: z.number().finite().optional(),
  /** Only entries before this instant (Unix ms): the window's end. */
  untilMs: z.number().finite().optional(),
});
export type OriginFilters = z.infer<typeof OriginFiltersSchema>;

/** `--status` as typed: `5xx` is a class, `502` one code. */
export function statusFilterOf(typed: string): NonNullable<OriginFilters['status']> {
  const status = typed.toLowerCase();
  return status.endsWith('xx') ? { classes: [Number(status[0])] } : { exact: [Number(status)] };
}

/** The most buckets a chart has: 96 quarter hours of a day, plus one where a window starts mid-bucket. */
export const MAX_BUCKETS = 200;
export const MAX_COMPARISONS = 2;

const InstantSchema = z.number().finite();

/** What is counted besides the window's own figures: the chart's buckets and earlier windows. */
export const OriginViewSchema = z.strictObject({
  /** Buckets of `widthMs` from `startMs`: an entry's bucket is where its timestamp falls. */
  grid: z
    .strictObject({
      startMs: InstantSchema,
      widthMs: z.number().int().positive(),
      count: z.number().int().positive().max(MAX_BUCKETS),
    })
    .optional(),
  /** Earlier windows [startMs, endMs), counted with the same filters, for comparison. */
  comparisons: z
    .array(z.strictObject({ startMs: InstantSchema, endMs: InstantSchema }))
    .max(MAX_COMPARISONS)
    .optional(),
});
export type OriginView = z.infer<typeof OriginViewSchema>;

/** The figures of an earlier window, filtered like the window itself. */
export const ComparisonCountsSchema = ComparisonTextCountsSchema.extend({ total: CountSchema });
export type ComparisonCounts = z.infer<typeof ComparisonCountsSchema>;

export const OriginCountsSchema = z.strictObject({
  /** Entries read from the response, before filters. */
  scanned: CountSchema,
  /** Entries that passed the filters: the CSV has exactly this many rows. */
  total: CountSchema,
  /** Of `total`, entries whose `log` string is missing or not the JSON document it should be. */
  malformed: CountSchema,
  /** Of `total`, entries without a timestamp: in the counts and the CSV, not in the chart. */
  untimed: CountSchema,
  /** Array elements that are not log entries (objects without the entry fields, nested arrays): left out. */
  skipped: CountSchema,
  firstSeenMs: z.number().nullable(),
  lastSeenMs: z.number().nullable(),
  /** Entries inside the window before the status, code and zone filters: "none matched" needs it. */
  windowed: CountSchema,
  byStatus: ByStatusSchema,
  byErrorCode: ByErrorCodeSchema,
  byServerZone: ByServerZoneSchema,
  topUrls: TopUrlsSchema,
  /** Errors per bucket of the view's grid (none without a grid). */
  buckets: z.array(CountSchema).max(MAX_BUCKETS),
  /** The view's comparisons, in its order. */
  comparisons: z.array(ComparisonCountsSchema).max(MAX_COMPARISONS),
  /** ErrorCode and ServerZone labels of every entry read, before window and filters: for "did you mean". */
  labelsSeen: z.strictObject({ errorCodes: z.array(z.string()), serverZones: z.array(z.string()) }),
});
export type OriginCounts = z.infer<typeof OriginCountsSchema>;

/** timestamp, status, error_code, server_zone, url, message, log_id */
export type OriginCsvRow = [string, string, string, string, string, string, string];

/** The end of an ISO time after its minute: `00.` to `59.`, then `000Z` to `999Z`. */
const SECONDS = Array.from({ length: 60 }, (_, second) => `${String(second).padStart(2, '0')}.`);
const MILLISECONDS = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, '0')}Z`);

/** The range a JS Date can represent; anything outside cannot be a log time. */
export const MAX_TIME_MS = 8.64e15;

/** The inner document of a `log` string, or undefined when it is not JSON or not the document it should be. */
export function parseDetail(log: string): OriginDetail | undefined {
  let value: unknown;
  try {
    value = JSON.parse(log);
  } catch {
    return undefined;
  }
  return isOriginDetail(value) ? value : undefined;
}

const NO_LABELS: OriginLabels = {};

/** Whether an entry's status, error code and server zone pass the filters' status, code and zone. */
export type OriginMatcher = (status: string, errorCode: string, serverZone: string) => boolean;

export function createOriginMatcher(filters: OriginFilters): OriginMatcher {
  const exact: ReadonlySet<number> = new Set(filters.status?.exact ?? []);
  const classes: ReadonlySet<number> = new Set(filters.status?.classes ?? []);
  const wantedCode = filters.errorCode?.toLowerCase();
  const wantedZone = filters.serverZone?.toLowerCase();
  return (status, errorCode, serverZone) => {
    if (exact.size > 0 || classes.size > 0) {
      const code = Number(status);
      if (!Number.isInteger(code) || !(exact.has(code) || classes.has(Math.floor(code / 100)))) return false;
    }
    if (wantedCode !== undefined && errorCode.toLowerCase() !== wantedCode) return false;
    if (wantedZone !== undefined && serverZone.toLowerCase() !== wantedZone) return false;
    return true;
  };
}

/** An entry's status, error code and server zone: its labels, else what its inner log says. */
export function entryFacts(entry: OriginEntry): { status: string; errorCode: string; serverZone: string } {
  const labels = entry.labels ?? NO_LABELS;
  const needsDetail = labels.StatusCode === undefined || labels.ErrorCode === undefined;
  const detail = needsDetail && entry.log !== undefined ? parseDetail(entry.log) : undefined;
  return {
    status: labels.StatusCode ?? (detail?.StatusCode !== undefined ? String(detail.StatusCode) : ''),
    errorCode: labels.ErrorCode ?? detail?.ErrorCode ?? '',
    serverZone: labels.ServerZone ?? '',
  };
}

/**
 * An entry's labels as a reader keeps them, one object for each set met; OriginTally fills in
 * the counts to add one to when the set is met again (placeLabels, countLabels). A set belongs
 * to one tally.
 */
export interface LabelSet {
  readonly status: string;
  readonly errorCode: string;
  readonly serverZone: string;
  seenCounts?: { count: number }[] | undefined;
  windowCounts?: { count: number }[] | undefined;
}

export class OriginTally {
  private scanned = 0;
  private total = 0;
  private malformed = 0;
  private untimed = 0;
  private skipped = 0;
  private first = Number.POSITIVE_INFINITY;
  private last = Number.NEGATIVE_INFINITY;
  private windowed = 0;
  private readonly buckets: number[];
  private readonly grid: OriginView['grid'];
  /** The view's earlier windows, and how many entries each counted. */
  private readonly comparisons: OriginWindow[];
  private readonly compared: number[];
  /** Where each entry's texts are counted: by default, here (`local`). */
  private readonly texts: TextCounter;
  private readonly local: OriginTextCounts | undefined;
  /** Whether an entry's status, error code and server zone pass the filters. */
  readonly matches: OriginMatcher;
  /** From `sinceMs` up to `untilMs`, unbounded where not given. */
  private readonly window: OriginWindow;
  /**
   * Whether entries without a timestamp belong to the window. Yes when it has no bounds (a whole
   * day); the worker says so day by day when several days are read for one window.
   */
  untimedInWindow: boolean;
  /** Timestamps of a day come in order: the ISO text of the current minute is reused. */
  private isoMinute = Number.NaN;
  private isoPrefix = '';

  constructor(filters: OriginFilters = {}, view: OriginView = {}, texts?: TextCounter) {
    const parsed = OriginFiltersSchema.parse(filters);
    const { grid, comparisons } = OriginViewSchema.parse(view);
    this.matches = createOriginMatcher(parsed);
    this.window = {
      startMs: parsed.sinceMs ?? Number.NEGATIVE_INFINITY,
      endMs: parsed.untilMs ?? Number.POSITIVE_INFINITY,
    };
    this.untimedInWindow = parsed.sinceMs === undefined && parsed.untilMs === undefined;
    this.grid = grid;
    this.buckets = new Array<number>(grid?.count ?? 0).fill(0);
    this.comparisons = comparisons ?? [];
    this.compared = this.comparisons.map(() => 0);
    this.local = texts ? undefined : new OriginTextCounts(this.comparisons.length);
    this.texts = texts ?? this.local!;
  }

  /** Elements seen so far, for progress. */
  get scannedCount(): number {
    return this.scanned;
  }

  /** Counts one array element; returns its CSV row when it passes the filters. */
  add(element: unknown): OriginCsvRow | undefined {
    if (
      !isOriginEntry(element) ||
      (element.timestamp !== undefined && !(Math.abs(element.timestamp) <= MAX_TIME_MS))
    ) {
      this.skip();
      return undefined;
    }
    const entry = element;
    const timestamp = entry.timestamp === undefined ? undefined : Math.floor(entry.timestamp);
    const labels = entry.labels ?? NO_LABELS;
    const place = this.place(timestamp, labels.ErrorCode, labels.ServerZone);
    if (place === NOWHERE) return undefined;
    const detail = entry.log === undefined ? undefined : parseDetail(entry.log);
    const status = labels.StatusCode ?? (detail?.StatusCode !== undefined ? String(detail.StatusCode) : '');
    const errorCode = labels.ErrorCode ?? detail?.ErrorCode ?? '';
    const serverZone = labels.ServerZone ?? '';
    if (!this.matches(status, errorCode, serverZone)) return undefined;
    const url = detail?.RequestUrl ?? '';
    if (!this.count(place, timestamp, status, errorCode, serverZone, url, !detail)) return undefined;
    return [
      timestamp === undefined ? '' : this.iso(timestamp),
      status,
      errorCode,
      serverZone,
      url,
      detail?.Message ?? '',
      entry.logId ?? '',
    ];
  }

  /** Counts an array element that is not an entry (or whose timestamp cannot be a time). */
  skip(): void {
    this.scanned++;
    this.skipped++;
  }

  /**
   * An entry's first step, from its timestamp (floored) and its ErrorCode and ServerZone labels:
   * notes the labels, and returns where it counts, IN_WINDOW and bit i for comparison i, or NOWHERE.
   * One that counts somewhere goes on to `matches` and `count`.
   */
  place(
    timestamp: number | undefined,
    errorCode: string | undefined,
    serverZone: string | undefined,
  ): number {
    this.scanned++;
    this.texts.seen(errorCode, serverZone);
    return this.where(timestamp);
  }

  /**
   * place() for an entry whose labels the reader keeps as a set of their own, met again and again
   * (a day has a few dozen): after the first, its labels are counted by an increment of the counts
   * the set keeps, not looked up.
   */
  placeLabels(timestamp: number, labels: LabelSet): number {
    const counts = labels.seenCounts;
    if (counts === undefined) {
      const place = this.place(timestamp, labels.errorCode, labels.serverZone);
      labels.seenCounts = this.texts.seenCounts?.(labels.errorCode, labels.serverZone);
      return place;
    }
    this.scanned++;
    for (let i = 0; i < counts.length; i++) counts[i]!.count++;
    return this.where(timestamp);
  }

  /** Where an entry of this time counts: IN_WINDOW and bit i for comparison i, or NOWHERE. */
  private where(timestamp: number | undefined): number {
    // An entry without a time belongs to no bounded window and to no earlier one.
    const inWindow = timestamp === undefined ? this.untimedInWindow : withinWindow(timestamp, this.window);
    let place = inWindow ? IN_WINDOW : NOWHERE;
    if (timestamp !== undefined)
      for (let i = 0; i < this.comparisons.length; i++) {
        const w = this.comparisons[i]!;
        if (withinWindow(timestamp, w)) place |= 1 << i;
      }
    if (inWindow) this.windowed++;
    return place;
  }

  /**
   * Counts a placed entry that matches; true when it is in the window, so that its CSV row is
   * written. `malformed`: its `log` is missing or not the document it should be.
   */
  count(
    place: number,
    timestamp: number | undefined,
    status: string,
    errorCode: string,
    serverZone: string,
    url: string,
    malformed: boolean,
  ): boolean {
    this.texts.counted(place, status, errorCode, serverZone, url);
    return this.figures(place, timestamp, malformed);
  }

  /** count() for an entry placed by placeLabels: its labels counted by increments once they were counted in the window. */
  countLabels(place: number, timestamp: number, labels: LabelSet, url: string): boolean {
    const counts = labels.windowCounts;
    if (place !== IN_WINDOW || counts === undefined) {
      const counted = this.count(
        place,
        timestamp,
        labels.status,
        labels.errorCode,
        labels.serverZone,
        url,
        false,
      );
      if (place === IN_WINDOW)
        labels.windowCounts = this.texts.windowCounts?.(labels.status, labels.errorCode, labels.serverZone);
      return counted;
    }
    for (let i = 0; i < counts.length; i++) counts[i]!.count++;
    this.texts.windowUrl!(url);
    return this.figures(place, timestamp, false);
  }

  /** The figures that are numbers, of a placed entry that matches: true when it is in the window. */
  private figures(place: number, timestamp: number | undefined, malformed: boolean): boolean {
    for (let i = 0; i < this.compared.length; i++) if (place & (1 << i)) this.compared[i]!++;
    if (!(place & IN_WINDOW)) return false;
    this.total++;
    if (malformed) this.malformed++;
    if (timestamp === undefined) this.untimed++;
    else {
      if (timestamp < this.first) this.first = timestamp;
      if (timestamp > this.last) this.last = timestamp;
      if (this.grid) {
        const bucket = Math.floor((timestamp - this.grid.startMs) / this.grid.widthMs);
        if (bucket >= 0 && bucket < this.buckets.length) this.buckets[bucket]!++;
      }
    }
    return true;
  }

  /** The CSV's timestamp cell of a floored time: ISO 8601 in UTC, to the millisecond. */
  iso(ms: number): string {
    const second = Math.floor(ms / 1000);
    const minute = Math.floor(second / 60);
    if (minute !== this.isoMinute) {
      this.isoMinute = minute;
      this.isoPrefix = new Date(minute * 60_000).toISOString().slice(0, -7);
    }
    return this.isoPrefix + SECONDS[second - minute * 60]! + MILLISECONDS[ms - second * 1000]!;
  }

  /**
   * The summary's figures: those counted here, and the counts by text, which are this tally's own
   * unless they were counted elsewhere (given its TextCounter) and are given here.
   */
  counts(texts?: TextCounts): OriginCounts {
    const byText = texts ?? this.local?.counts();
    if (!byText) throw new TypeError('the counts by text were counted elsewhere: give them');
    const seen = this.total > this.untimed;
    return {
      scanned: this.scanned,
      total: this.total,
      malformed: this.malformed,
      untimed: this.untimed,
      skipped: this.skipped,
      firstSeenMs: seen ? this.first : null,
      lastSeenMs: seen ? this.last : null,
      windowed: this.windowed,
      byStatus: byText.byStatus,
      byErrorCode: byText.byErrorCode,
      byServerZone: byText.byServerZone,
      topUrls: byText.topUrls,
      buckets: [...this.buckets],
      comparisons: byText.comparisons.map((comparison, i) => ({
        total: this.compared[i] ?? 0,
        ...comparison,
      })),
      labelsSeen: byText.labelsSeen,
    };
  }
}
