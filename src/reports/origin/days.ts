/**
 * The days of one origin-error window, read in turn by one worker task: each UTC day is its own
 * response body (`{"logs":[…]}`), all of them counted by the same tally. This keeps what the
 * summary needs to know per day, above all whether the platform sent any entry for it: a day it
 * no longer keeps looks exactly like a day without errors.
 */
import { z } from 'zod';
import { type ElementReader, JsonArraySplitter, JsonStreamError } from '../json-entries.js';
import type { OriginTally } from './tally.js';

export const OriginDayReadSchema = z.strictObject({
  /** Array elements in that day's body, entries or not, before window and filters. */
  entries: z.number().int().nonnegative(),
  /** False when the body had no `logs` array (`{}`, `{"logs":null}`). */
  listed: z.boolean(),
  /** A day only comparisons need whose body broke (cut off, not JSON): those comparisons are left out. */
  broken: z.literal(true).optional(),
});
export type OriginDayRead = z.infer<typeof OriginDayReadSchema>;

export class OriginDayLedger {
  private readonly read: OriginDayRead[] = [];
  private scannedAtStart = 0;
  /** Totals of the days already closed. */
  skipped = 0;
  bytes = 0;
  listed = false;

  /** The current day's body broke and the rest of it is passed over, up to the next day. */
  private passingOver = false;

  constructor(
    private readonly tally: OriginTally,
    /** The day (by position) whose entries without a timestamp belong to the window, if any. */
    private readonly untimedDay: number | undefined,
    /** Days from this position on serve only comparisons: a broken body there is noted, not fatal. */
    private readonly comparisonsFrom = Number.POSITIVE_INFINITY,
  ) {
    this.placeUntimed();
  }

  /** True while the rest of a broken day is passed over: its bytes are not read. */
  get skipping(): boolean {
    return this.passingOver;
  }

  /**
   * Notes that the current day's body could not be read. A day of the window itself fails the
   * whole summary (rethrown); a day only comparisons need is marked broken, and the summary goes on.
   */
  broke(splitter: JsonArraySplitter, error: unknown): void {
    if (this.read.length < this.comparisonsFrom || !(error instanceof JsonStreamError)) throw error;
    this.record(splitter, true);
    this.passingOver = true;
  }

  /** What was read of each day so far, in order. */
  get days(): readonly OriginDayRead[] {
    return this.read;
  }

  /** Ends the current day's document and gives the splitter for the next one, handing its entries to `reader`. */
  next(splitter: JsonArraySplitter, reader?: ElementReader): JsonArraySplitter {
    this.close(splitter);
    this.passingOver = false;
    return new JsonArraySplitter('logs', reader);
  }

  /** Ends the current day's document: a body cut short fails here, as for a single day. */
  close(splitter: JsonArraySplitter): void {
    if (this.passingOver) return;
    try {
      splitter.end();
    } catch (error) {
      this.broke(splitter, error);
      return;
    }
    this.record(splitter, false);
  }

  private record(splitter: JsonArraySplitter, broken: boolean): void {
    const scanned = this.tally.scannedCount;
    this.read.push({
      entries: scanned - this.scannedAtStart + splitter.skipped,
      listed: splitter.listed,
      ...(broken ? { broken: true as const } : {}),
    });
    this.scannedAtStart = scanned;
    this.skipped += splitter.skipped;
    this.bytes += splitter.bytes;
    this.listed ||= splitter.listed;
    this.placeUntimed();
  }

  private placeUntimed(): void {
    if (this.untimedDay !== undefined) this.tally.untimedInWindow = this.read.length === this.untimedDay;
  }
}
