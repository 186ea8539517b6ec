/**
 * Counting what is new in an unordered day: each matching entry once, by log id and time, late
 * entries within the lookback included; and the alert's episodes: one trip, its peak, its end.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  initialProgress,
  LOOKBACK_MS,
  MAX_CURSOR_KEYS,
  PollCounter,
  sparkline,
  type WatchFilters,
  type WatchProgress,
  WatchProgressSchema,
} from '../../src/watches/progress.js';

const T0 = Date.parse('2026-11-21T14:00:00Z');
const SECOND = 1_000;
const MINUTE = 60_000;

let n = 0;
const entry = (ts: number, status = 502, code = 'dns_lookup', logId = `id-${n++}`) => ({
  logId,
  timestamp: ts,
  log: '{}',
  labels: { ErrorCode: code, StatusCode: String(status), ServerZone: 'DE' },
});

function poll(
  progress: WatchProgress,
  entries: unknown[],
  nowMs: number,
  filters: WatchFilters = { status: '5xx', code: null },
) {
  const counter = new PollCounter(progress, filters, T0, nowMs);
  for (const element of entries) counter.add(element);
  return counter.finish({ count: 3, windowMs: MINUTE });
}

describe('a watch counts each entry once', () => {
  it('keeps at most MAX_CURSOR_KEYS keys in a burst, and counts none of the burst twice', () => {
    // 30,000 entries within one minute: more than the cap, all within the lookback.
    const burst = Array.from({ length: 30_000 }, (_, index) => entry(T0 + 2 * MINUTE + index * 2));
    const first = poll(initialProgress(T0), burst, T0 + 3 * MINUTE);
    expect(first.added).toBe(30_000);
    expect(first.progress.cursor.recent.length).toBeLessThanOrEqual(MAX_CURSOR_KEYS);
    expect(JSON.stringify(first.progress).length).toBeLessThan(1_000_000);
    const floor = first.progress.cursor.floor!;
    expect(floor).toBeGreaterThan(T0 + 2 * MINUTE);
    // The same day again, with one late entry before the floor and one new entry: only the new one counts.
    const again = poll(
      first.progress,
      [...[...burst].reverse(), entry(floor - 1), entry(T0 + 4 * MINUTE)],
      T0 + 5 * MINUTE,
    );
    expect(again.added).toBe(1);
    expect(again.progress.total).toBe(30_001);
  });

  it('counts entries in any order, and none again on the next poll of the same day', () => {
    const day = [entry(T0 + 30 * SECOND), entry(T0 + 10 * SECOND), entry(T0 + 20 * SECOND)].reverse();
    const first = poll(initialProgress(T0), day, T0 + MINUTE);
    expect(first.added).toBe(3);
    const again = poll(first.progress, [...day].reverse(), T0 + 2 * MINUTE);
    expect(again.added).toBe(0);
    expect(again.progress.total).toBe(3);
  });

  it('knows an entry by its log id and its time together', () => {
    const first = poll(initialProgress(T0), [entry(T0 + SECOND, 502, 'dns_lookup', 'same')], T0 + MINUTE);
    const again = poll(
      first.progress,
      [entry(T0 + SECOND, 502, 'dns_lookup', 'same'), entry(T0 + 2 * SECOND, 502, 'dns_lookup', 'same')],
      T0 + 2 * MINUTE,
    );
    expect(again.added).toBe(1);
  });

  it('counts a late entry within the lookback, and ignores entries before the watch began', () => {
    const first = poll(initialProgress(T0), [entry(T0 + 5 * MINUTE), entry(T0 - SECOND)], T0 + 6 * MINUTE);
    expect(first.added).toBe(1);
    const late = poll(first.progress, [entry(T0 + 2 * MINUTE)], T0 + 7 * MINUTE);
    expect(late.added).toBe(1);
  });

  it('takes entries older than the lookback before the newest as seen', () => {
    const first = poll(initialProgress(T0), [entry(T0 + LOOKBACK_MS + 5 * MINUTE)], T0 + 20 * MINUTE);
    expect(poll(first.progress, [entry(T0 + MINUTE)], T0 + 21 * MINUTE).added).toBe(0);
  });

  it('counts only entries that match the status class and code', () => {
    const filters = { status: '5xx', code: 'http_timeout' };
    const result = poll(
      initialProgress(T0),
      [entry(T0 + SECOND, 504, 'http_timeout'), entry(T0 + SECOND, 404, 'http_timeout'), entry(T0 + SECOND)],
      T0 + MINUTE,
      filters,
    );
    expect(result.added).toBe(1);
  });
});

describe('alerts: one episode per burst', () => {
  it('trips when more than N fall within the window, raises its peak, and clears once quiet', () => {
    const burst = [1, 2, 3, 4].map((s) => entry(T0 + s * SECOND));
    const tripped = poll(initialProgress(T0), burst, T0 + 10 * SECOND);
    expect(tripped.change).toBe('tripped');
    expect(tripped.progress.episode).toMatchObject({ startMs: T0 + 4 * SECOND, peak: 4 });
    const more = poll(tripped.progress, [entry(T0 + 11 * SECOND)], T0 + 12 * SECOND);
    expect(more.change).toBe('peak');
    expect(more.progress.episode?.peak).toBe(5);
    const still = poll(more.progress, [], T0 + 20 * SECOND);
    expect(still.change).toBe('none');
    const cleared = poll(still.progress, [], T0 + 2 * MINUTE);
    expect(cleared.change).toBe('cleared');
    expect(cleared.ended).toMatchObject({ startMs: T0 + 4 * SECOND, peak: 5, endMs: T0 + 2 * MINUTE });
    expect(cleared.progress.episodes).toBe(1);
  });

  it('does not trip at exactly N, nor when N are spread wider than the window', () => {
    const three = poll(
      initialProgress(T0),
      [1, 2, 3].map((s) => entry(T0 + s * SECOND)),
      T0 + 5 * SECOND,
    );
    expect(three.change).toBe('none');
    const spread = [0, 30, 61, 95].map((s) => entry(T0 + s * SECOND));
    expect(poll(initialProgress(T0), spread, T0 + 2 * MINUTE).change).toBe('none');
  });
});

describe('entries stamped after the poll', () => {
  it('are counted by the first poll after their time, each once, and none before it', () => {
    const day = [
      entry(T0 + 30 * SECOND),
      entry(T0 + MINUTE),
      entry(T0 + 2 * MINUTE),
      entry(T0 + 5 * MINUTE),
      entry(T0 + 5 * MINUTE),
    ];
    // At T0 + 1m the entry stamped exactly then has not happened before the poll's now either.
    const first = poll(initialProgress(T0), day, T0 + MINUTE);
    expect(first.added).toBe(1);
    expect(first.progress.cursor.maxTs).toBe(T0 + 30 * SECOND);
    const second = poll(first.progress, [...day].reverse(), T0 + 3 * MINUTE);
    expect(second.added).toBe(2);
    const third = poll(second.progress, day, T0 + 6 * MINUTE);
    expect(third.added).toBe(2);
    const fourth = poll(third.progress, day, T0 + 7 * MINUTE);
    expect(fourth.added).toBe(0);
    expect(fourth.progress.total).toBe(day.length);
  });

  it('do not trip an alert before their time', () => {
    const ahead = [1, 2, 3, 4].map((s) => entry(T0 + MINUTE + s * SECOND));
    const early = poll(initialProgress(T0), ahead, T0 + 30 * SECOND);
    expect(early.change).toBe('none');
    expect(poll(early.progress, ahead, T0 + 2 * MINUTE).change).toBe('tripped');
  });

  it('still count once their time comes when a burst filled the cursor and raised its floor', () => {
    const burst = Array.from({ length: 30_000 }, (_, index) => entry(T0 + 2 * MINUTE + index * 2));
    const ahead = entry(T0 + 3 * MINUTE);
    const first = poll(initialProgress(T0), [ahead, ...burst], T0 + 3 * MINUTE);
    expect(first.added).toBe(30_000);
    expect(first.progress.cursor.floor).toBeGreaterThan(T0 + 2 * MINUTE);
    const second = poll(first.progress, [...burst, ahead], T0 + 4 * MINUTE);
    expect(second.added).toBe(1);
    expect(poll(second.progress, [...burst, ahead], T0 + 5 * MINUTE).added).toBe(0);
  });
});

describe('the sparkline', () => {
  it('shows the hour before the poll as /edge logs --last 1h charts it, errors from before the watch included', () => {
    const polledAt = T0 + 59 * MINUTE + 30 * SECOND;
    const result = poll(
      initialProgress(T0),
      [
        entry(T0 - 31 * SECOND),
        entry(T0 - 20 * SECOND),
        entry(T0 + 30 * MINUTE),
        entry(T0 + 30 * MINUTE + SECOND),
        entry(T0 + 59 * MINUTE),
        entry(polledAt),
      ],
      polledAt,
    );
    const spark = sparkline(result.progress);
    expect(spark.hour).toEqual({ startMs: polledAt - 60 * MINUTE, endMs: polledAt });
    // From T0 - 30 s up to the poll, on the minute grid: 61 minutes, the first and the last in part.
    expect([...spark.line]).toHaveLength(61);
    expect(spark.total).toBe(4);
    expect(spark.peak).toBe(2);
    expect([...spark.line][0]).toBe('▅');
    expect([...spark.line][31]).toBe('█');
    expect([...spark.line][60]).toBe('▅');
    // Since the start counts only what came after it.
    expect(result.added).toBe(3);
  });

  it('is the lowest bar throughout, counting nothing, until the first poll', () => {
    const spark = sparkline(initialProgress(T0));
    expect(spark).toEqual({ line: '▁'.repeat(60), peak: 0, total: 0 });
  });

  it('saves a watch a replica still on the previous version can read, during a rolling upgrade', () => {
    // That version's schema required the per-minute counts it kept in place of lastHour.
    const previous = WatchProgressSchema.omit({ lastHour: true, minutes: true }).extend({
      minutes: z.array(z.tuple([z.number(), z.number()])),
    });
    const started = initialProgress(T0);
    const polled = poll(started, [entry(T0 + SECOND)], T0 + MINUTE).progress;
    expect(previous.safeParse(JSON.parse(JSON.stringify(started))).success).toBe(true);
    expect(previous.safeParse(JSON.parse(JSON.stringify(polled))).success).toBe(true);
  });

  it('waits for the next poll on a watch saved before it was kept', () => {
    const { lastHour: _kept, ...saved } = initialProgress(T0);
    const progress = WatchProgressSchema.parse({ ...saved, minutes: [[T0, 3]] });
    expect(sparkline(progress).hour).toBeUndefined();
  });
});
