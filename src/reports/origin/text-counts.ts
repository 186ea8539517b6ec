/**
 * The origin-log summary's counts kept by text: the labels seen, the counts by status, error code
 * and server zone, and the top URLs, of the window and of each earlier window compared. They are
 * what costs most to count (a Map lookup of a string per entry and figure), so they may be counted
 * on a thread of their own (counter.ts) while the entries are read on another; OriginTally keeps
 * the figures that are numbers, and hands each entry's texts to a TextCounter.
 */
import { z } from 'zod';
import { BoundedTally, SpaceSavingCounter } from '../top-counts.js';
import { ORIGIN_ERROR_CODES } from './entry.js';

/** Distinct URLs tracked for the top 10; a million distinct URLs cost no more than this many. */
export const URL_TRACK_CAPACITY = 2_000;
/** Distinct label values counted per dimension before the rest go under "(other)". */
export const LABEL_CAPACITY = 200;
export const TOP_URLS = 10;

/** Where an entry counts (OriginTally.place): nowhere, or in the window (besides a bit per comparison). */
export const NOWHERE = 0;
export const IN_WINDOW = 1 << 30;

const UNKNOWN = 'unknown';

export const CountSchema = z.number().int().nonnegative();

export const ByStatusSchema = z.array(z.strictObject({ status: z.string(), count: CountSchema }));
export const ByErrorCodeSchema = z.array(
  z.strictObject({ code: z.string(), words: z.string().nullable(), count: CountSchema }),
);
export const ByServerZoneSchema = z.array(z.strictObject({ zone: z.string(), count: CountSchema }));
/** `count` is an upper bound; it is exact when `overcount` is 0 (see top-counts.ts). */
export const TopUrlsSchema = z.array(
  z.strictObject({ url: z.string(), count: CountSchema, overcount: CountSchema }),
);

const BreakdownSchema = z.strictObject({
  byStatus: ByStatusSchema,
  byErrorCode: ByErrorCodeSchema,
  byServerZone: ByServerZoneSchema,
  topUrls: TopUrlsSchema,
});

/** An earlier window's counts by text. */
export const ComparisonTextCountsSchema = BreakdownSchema.extend({
  /**
   * Which of the window's own top URLs this one saw. Exact unless `urlsEvicted`: then a URL it
   * does not list may have been seen and dropped from the tracker.
   */
  seenTopUrls: z.array(z.string()),
  urlsEvicted: z.boolean(),
});

export const TextCountsSchema = BreakdownSchema.extend({
  /** The view's comparisons, in its order. */
  comparisons: z.array(ComparisonTextCountsSchema),
  /** ErrorCode and ServerZone labels of every entry read, before window and filters: for "did you mean". */
  labelsSeen: z.strictObject({ errorCodes: z.array(z.string()), serverZones: z.array(z.string()) }),
});
export type TextCounts = z.infer<typeof TextCountsSchema>;

/** Where OriginTally hands each entry's texts, here or to another thread. */
export interface TextCounter {
  /** An entry read: its ErrorCode and ServerZone labels, when it has them. */
  seen(errorCode: string | undefined, serverZone: string | undefined): void;
  /**
   * An entry placed (`place`, see OriginTally.place) that passed the filters. The texts are kept
   * as they are: strings of their own, not cut from a larger text.
   */
  counted(place: number, status: string, errorCode: string, serverZone: string, url: string): void;
  /**
   * For a reader that meets the same labels again and again (OriginTally.placeLabels): the counts
   * that a `seen`, and a `counted` in the window alone, of these labels added one to, so that
   * another entry with them is counted by an increment of each; with `windowUrl` for its URL.
   * Absent where the texts are counted elsewhere.
   */
  seenCounts?(errorCode: string, serverZone: string): { count: number }[];
  windowCounts?(status: string, errorCode: string, serverZone: string): { count: number }[];
  windowUrl?(url: string): void;
}

function wordsFor(code: string): string | null {
  return Object.hasOwn(ORIGIN_ERROR_CODES, code)
    ? ORIGIN_ERROR_CODES[code as keyof typeof ORIGIN_ERROR_CODES]
    : null;
}

class Breakdown {
  readonly byStatus = new BoundedTally(LABEL_CAPACITY);
  readonly byErrorCode = new BoundedTally(LABEL_CAPACITY);
  readonly byServerZone = new BoundedTally(LABEL_CAPACITY);
  readonly urls = new SpaceSavingCounter(URL_TRACK_CAPACITY);

  add(status: string, errorCode: string, serverZone: string, url: string): void {
    this.byStatus.add(status || UNKNOWN);
    this.byErrorCode.add(errorCode || UNKNOWN);
    this.byServerZone.add(serverZone || UNKNOWN);
    if (url) this.urls.add(url);
  }

  /** The counts `add` added one to for these labels, after it did. */
  counters(status: string, errorCode: string, serverZone: string): { count: number }[] {
    return [
      this.byStatus.counter(status || UNKNOWN),
      this.byErrorCode.counter(errorCode || UNKNOWN),
      this.byServerZone.counter(serverZone || UNKNOWN),
    ];
  }

  counts(): z.infer<typeof BreakdownSchema> {
    return {
      byStatus: this.byStatus.sorted().map(({ key, count }) => ({ status: key, count })),
      byErrorCode: this.byErrorCode
        .sorted()
        .map(({ key, count }) => ({ code: key, words: wordsFor(key), count })),
      byServerZone: this.byServerZone.sorted().map(({ key, count }) => ({ zone: key, count })),
      topUrls: this.urls.top(TOP_URLS).map(({ key, count, overcount }) => ({ url: key, count, overcount })),
    };
  }
}

/** The counts by text, kept here. */
export class OriginTextCounts implements TextCounter {
  private readonly window = new Breakdown();
  private readonly comparisons: Breakdown[];
  private readonly codesSeen = new BoundedTally(LABEL_CAPACITY);
  private readonly zonesSeen = new BoundedTally(LABEL_CAPACITY);

  constructor(comparisons: number) {
    this.comparisons = Array.from({ length: comparisons }, () => new Breakdown());
  }

  seen(errorCode: string | undefined, serverZone: string | undefined): void {
    if (errorCode !== undefined) this.codesSeen.add(errorCode);
    if (serverZone !== undefined) this.zonesSeen.add(serverZone);
  }

  counted(place: number, status: string, errorCode: string, serverZone: string, url: string): void {
    for (let i = 0; i < this.comparisons.length; i++)
      if (place & (1 << i)) this.comparisons[i]!.add(status, errorCode, serverZone, url);
    if (place & IN_WINDOW) this.window.add(status, errorCode, serverZone, url);
  }

  seenCounts(errorCode: string, serverZone: string): { count: number }[] {
    return [this.codesSeen.counter(errorCode), this.zonesSeen.counter(serverZone)];
  }

  windowCounts(status: string, errorCode: string, serverZone: string): { count: number }[] {
    return this.window.counters(status, errorCode, serverZone);
  }

  windowUrl(url: string): void {
    if (url) this.window.urls.add(url);
  }

  counts(): TextCounts {
    const window = this.window.counts();
    const topKeys = window.topUrls.map((u) => u.url);
    return {
      ...window,
      comparisons: this.comparisons.map((comparison) => ({
        ...comparison.counts(),
        seenTopUrls: topKeys.filter((url) => comparison.urls.has(url)),
        urlsEvicted: comparison.urls.evicted,
      })),
      labelsSeen: {
        errorCodes: this.codesSeen.sorted().flatMap(({ key, cut }) => (cut ? [] : [key])),
        serverZones: this.zonesSeen.sorted().flatMap(({ key, cut }) => (cut ? [] : [key])),
      },
    };
  }
}
