/**
 * Where each hour's entries lie in a day's body: built while the day is read whole, so that a
 * kept copy of it can later be read for a few hours only (the comparison with the day before
 * needs the same hours of yesterday, not all of it). The vendor promises no order: runs of
 * entries that keep to one UTC hour are noted, and a day whose hours are mixed is not indexed.
 */
import { z } from 'zod';
import { MAX_TIME_MS } from './tally.js';
import { HOUR_MS, type OriginWindow } from './window.js';

/** Past this many runs the hours are too mixed for the index to save any reading. */
export const MAX_HOUR_RUNS = 2_000;

const OffsetSchema = z.number().int().nonnegative();

export const OriginDayIndexSchema = z.strictObject({
  /** Array elements in the body, as the day's read counts them. */
  entries: z.number().int().nonnegative(),
  /** Length of the body the offsets are in. */
  bytes: OffsetSchema,
  /**
   * `[start, end, firstMs, lastMs]`: bytes from an entry's `{` to a later entry's `}`, and the
   * times of its entries; null times when one of them has none (such a run is always read).
   */
  runs: z.array(z.tuple([OffsetSchema, OffsetSchema, z.number().nullable(), z.number().nullable()])),
});
export type OriginDayIndex = z.infer<typeof OriginDayIndexSchema>;
type HourRun = OriginDayIndex['runs'][number];

const hourOf = (ms: number) => Math.floor(ms / HOUR_MS);

/** An element's time as the index reads it: its timestamp floored, or NaN when it has none that can be a time. */
export function indexedTime(element: unknown): number {
  const timestamp = (element as { timestamp?: unknown }).timestamp;
  return typeof timestamp === 'number' && Math.abs(timestamp) <= MAX_TIME_MS
    ? Math.floor(timestamp)
    : Number.NaN;
}

/** Builds one day's index from its elements, told in the order of the body. */
export class OriginHourIndexer {
  private readonly runs: HourRun[] = [];
  private mixed = false;

  /** One element, from `start` to `end` in the body; `ms` its time, NaN for none (see indexedTime). */
  element(start: number, end: number, ms: number): void {
    if (this.mixed) return;
    const timeless = Number.isNaN(ms);
    const previous = this.runs.at(-1);
    if (previous && this.joins(previous, ms, ms, timeless)) {
      previous[1] = end;
      if (previous[2] !== null) {
        previous[2] = Math.min(previous[2], ms);
        previous[3] = Math.max(previous[3]!, ms);
      }
      return;
    }
    this.runs.push(timeless ? [start, end, null, null] : [start, end, ms, ms]);
    if (this.runs.length > MAX_HOUR_RUNS) this.mixed = true;
  }

  /** A run joins the one before when both are timeless, or both keep to the same hour. */
  private joins(previous: HourRun, first: number, last: number, timeless: boolean): boolean {
    if (timeless || previous[2] === null) return timeless && previous[2] === null;
    const hour = hourOf(previous[2]);
    return hourOf(previous[3]!) === hour && hourOf(first) === hour && hourOf(last) === hour;
  }

  /** The index of the day read, or undefined when its hours were too mixed to index. */
  finish(entries: number, bytes: number): OriginDayIndex | undefined {
    return this.mixed ? undefined : { entries, bytes, runs: this.runs };
  }
}

/** The runs that may hold an entry of one of `windows`, as `[start, end)` byte ranges, in order. */
export function runsWithin(index: OriginDayIndex, windows: readonly OriginWindow[]): [number, number][] {
  return index.runs
    .filter(
      ([, , first, last]) =>
        first === null ||
        last === null ||
        windows.some((window) => last >= window.startMs && first < window.endMs),
    )
    .map(([start, end]) => [start, end]);
}
