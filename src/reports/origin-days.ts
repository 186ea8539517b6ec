/**
 * The days of one origin-error window, read in turn by one worker task: each UTC day is its own
 * response body (`{"logs":[…]}`), all of them counted by the same tally. This keeps what the
 * summary needs to know per day, above all whether the platform sent any entry for it: a day it
 * no longer keeps looks exactly like a day without errors.
 */
import { z } from 'zod';
import { JsonArraySplitter } from '../platform/json-entries.js';
import type { OriginTally } from './origin-tally.js';

export const OriginDayReadSchema = z.strictObject({
  /** Array elements in that day's body, entries or not, before window and filters. */
  entries: z.number().int().nonnegative(),
  /** False when the body had no `logs` array (`{}`, `{"logs":null}`). */
  listed: z.boolean(),
});
export type OriginDayRead = z.infer<typeof OriginDayReadSchema>;

export class OriginDayLedger {
  private readonly read: OriginDayRead[] = [];
  private scannedAtStart = 0;
  /** Totals of the days already closed. */
  skipped = 0;
  bytes = 0;
  listed = false;

  constructor(
    private readonly tally: OriginTally,
    /** The day (by position) whose entries without a timestamp belong to the window, if any. */
    private readonly untimedDay: number | undefined,
  ) {
    this.placeUntimed();
  }

  /** What was read of each day so far, in order. */
  get days(): readonly OriginDayRead[] {
    return this.read;
  }

  /** Ends the current day's document and gives the splitter for the next one. */
  next(splitter: JsonArraySplitter): JsonArraySplitter {
    this.close(splitter);
    return new JsonArraySplitter('logs');
  }

  /** Ends the current day's document: a body cut short fails here, as for a single day. */
  close(splitter: JsonArraySplitter): void {
    splitter.end();
    const scanned = this.tally.scannedCount;
    this.read.push({ entries: scanned - this.scannedAtStart + splitter.skipped, listed: splitter.listed });
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
