/**
 * The pure part of the origin-log summary: one entry in, its CSV row out (when it passes the
 * filters), counts kept in bounded memory. The worker feeds it; tests can drive it directly.
 */
import { z } from 'zod';
import { ORIGIN_ERROR_CODES } from '../platform/schemas.js';
import { isOriginDetail, isOriginEntry, type OriginDetail, type OriginLabels } from './origin-entry.js';
import { BoundedTally, SpaceSavingCounter } from './top-counts.js';

/** Distinct URLs tracked for the top 10; a million distinct URLs cost no more than this many. */
export const URL_TRACK_CAPACITY = 2_000;
/** Distinct label values counted per dimension before the rest go under "(other)". */
export const LABEL_CAPACITY = 200;
export const TOP_URLS = 10;

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
  /** Only entries at or after this instant (Unix ms), for `--last 2h`. */
  sinceMs: z.number().finite().optional(),
});
export type OriginFilters = z.infer<typeof OriginFiltersSchema>;

const CountSchema = z.number().int().nonnegative();

export const OriginCountsSchema = z.strictObject({
  /** Entries read from the response, before filters. */
  scanned: CountSchema,
  /** Entries that passed the filters: the CSV has exactly this many rows. */
  total: CountSchema,
  /** Of `total`, entries whose `log` string is missing or not the JSON document it should be. */
  malformed: CountSchema,
  /** Of `total`, entries without a timestamp: in the counts and the CSV, not in the hourly chart. */
  untimed: CountSchema,
  /** Array elements that are not log entries (objects without the entry fields, nested arrays): left out. */
  skipped: CountSchema,
  firstSeenMs: z.number().nullable(),
  lastSeenMs: z.number().nullable(),
  byStatus: z.array(z.strictObject({ status: z.string(), count: CountSchema })),
  byErrorCode: z.array(
    z.strictObject({ code: z.string(), words: z.string().nullable(), count: CountSchema }),
  ),
  byServerZone: z.array(z.strictObject({ zone: z.string(), count: CountSchema })),
  /** `count` is an upper bound; it is exact when `overcount` is 0 (see top-counts.ts). */
  topUrls: z.array(z.strictObject({ url: z.string(), count: CountSchema, overcount: CountSchema })),
  /** Errors per UTC hour of the day, 24 buckets. */
  perHour: z.array(CountSchema).length(24),
});
export type OriginCounts = z.infer<typeof OriginCountsSchema>;

/** timestamp, status, error_code, server_zone, url, message, log_id */
export type OriginCsvRow = [string, string, string, string, string, string, string];

const UNKNOWN = 'unknown';
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** The range a JS Date can represent; anything outside cannot be a log time. */
const MAX_TIME_MS = 8.64e15;

function wordsFor(code: string): string | null {
  return Object.hasOwn(ORIGIN_ERROR_CODES, code)
    ? ORIGIN_ERROR_CODES[code as keyof typeof ORIGIN_ERROR_CODES]
    : null;
}

function parseDetail(log: string): OriginDetail | undefined {
  let value: unknown;
  try {
    value = JSON.parse(log);
  } catch {
    return undefined;
  }
  return isOriginDetail(value) ? value : undefined;
}

const NO_LABELS: OriginLabels = {};

export class OriginTally {
  private scanned = 0;
  private total = 0;
  private malformed = 0;
  private untimed = 0;
  private skipped = 0;
  private first = Number.POSITIVE_INFINITY;
  private last = Number.NEGATIVE_INFINITY;
  private readonly byStatus = new BoundedTally(LABEL_CAPACITY);
  private readonly byErrorCode = new BoundedTally(LABEL_CAPACITY);
  private readonly byServerZone = new BoundedTally(LABEL_CAPACITY);
  private readonly urls = new SpaceSavingCounter(URL_TRACK_CAPACITY);
  private readonly perHour: number[] = new Array<number>(24).fill(0);
  private readonly exact: ReadonlySet<number>;
  private readonly classes: ReadonlySet<number>;
  private readonly errorCode: string | undefined;
  private readonly serverZone: string | undefined;
  private readonly sinceMs: number;
  /** Timestamps of a day come in order: the ISO text of the current second is reused. */
  private isoSecond = Number.NaN;
  private isoPrefix = '';

  constructor(filters: OriginFilters = {}) {
    const parsed = OriginFiltersSchema.parse(filters);
    this.exact = new Set(parsed.status?.exact ?? []);
    this.classes = new Set(parsed.status?.classes ?? []);
    this.errorCode = parsed.errorCode?.toLowerCase();
    this.serverZone = parsed.serverZone?.toLowerCase();
    this.sinceMs = parsed.sinceMs ?? Number.NEGATIVE_INFINITY;
  }

  /** Elements seen so far, for progress. */
  get scannedCount(): number {
    return this.scanned;
  }

  /** Counts one array element; returns its CSV row when it passes the filters. */
  add(element: unknown): OriginCsvRow | undefined {
    this.scanned++;
    if (
      !isOriginEntry(element) ||
      (element.timestamp !== undefined && !(Math.abs(element.timestamp) <= MAX_TIME_MS))
    ) {
      this.skipped++;
      return undefined;
    }
    const entry = element;
    const timestamp = entry.timestamp === undefined ? undefined : Math.floor(entry.timestamp);
    // An entry without a time cannot be placed inside a --last window.
    if (timestamp === undefined ? this.sinceMs !== Number.NEGATIVE_INFINITY : timestamp < this.sinceMs)
      return undefined;
    const labels = entry.labels ?? NO_LABELS;
    const detail = entry.log === undefined ? undefined : parseDetail(entry.log);
    const status = labels.StatusCode ?? (detail?.StatusCode !== undefined ? String(detail.StatusCode) : '');
    const errorCode = labels.ErrorCode ?? detail?.ErrorCode ?? '';
    const serverZone = labels.ServerZone ?? '';
    if (!this.matches(status, errorCode, serverZone)) return undefined;

    this.total++;
    if (!detail) this.malformed++;
    if (timestamp === undefined) this.untimed++;
    else {
      if (timestamp < this.first) this.first = timestamp;
      if (timestamp > this.last) this.last = timestamp;
      this.perHour[Math.floor((((timestamp % DAY_MS) + DAY_MS) % DAY_MS) / HOUR_MS)]!++;
    }
    this.byStatus.add(status || UNKNOWN);
    this.byErrorCode.add(errorCode || UNKNOWN);
    this.byServerZone.add(serverZone || UNKNOWN);
    const url = detail?.RequestUrl ?? '';
    if (url) this.urls.add(url);
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

  private matches(status: string, errorCode: string, serverZone: string): boolean {
    if (this.exact.size > 0 || this.classes.size > 0) {
      const code = Number(status);
      if (!Number.isInteger(code) || !(this.exact.has(code) || this.classes.has(Math.floor(code / 100))))
        return false;
    }
    if (this.errorCode !== undefined && errorCode.toLowerCase() !== this.errorCode) return false;
    if (this.serverZone !== undefined && serverZone.toLowerCase() !== this.serverZone) return false;
    return true;
  }

  private iso(ms: number): string {
    const second = Math.floor(ms / 1000);
    if (second !== this.isoSecond) {
      this.isoSecond = second;
      this.isoPrefix = new Date(second * 1000).toISOString().slice(0, -4);
    }
    return `${this.isoPrefix}${String(ms - second * 1000).padStart(3, '0')}Z`;
  }

  counts(): OriginCounts {
    const seen = this.total > this.untimed;
    return {
      scanned: this.scanned,
      total: this.total,
      malformed: this.malformed,
      untimed: this.untimed,
      skipped: this.skipped,
      firstSeenMs: seen ? this.first : null,
      lastSeenMs: seen ? this.last : null,
      byStatus: this.byStatus.sorted().map(({ key, count }) => ({ status: key, count })),
      byErrorCode: this.byErrorCode
        .sorted()
        .map(({ key, count }) => ({ code: key, words: wordsFor(key), count })),
      byServerZone: this.byServerZone.sorted().map(({ key, count }) => ({ zone: key, count })),
      topUrls: this.urls.top(TOP_URLS).map(({ key, count, overcount }) => ({ url: key, count, overcount })),
      perHour: [...this.perHour],
    };
  }
}
