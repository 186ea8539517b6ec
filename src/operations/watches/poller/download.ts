/**
 * A zone's origin logs downloaded once for all its watches: the days it reads, the deadline that
 * stops it, and what a watch message says when it fails.
 */
import { utc } from '@date-fns/utc';
import { EdgeopsError } from '../../../errors.js';
import { PlatformError } from '../../../platform/errors.js';
import { JsonStreamError, jsonArrayEntries } from '../../../reports/json-entries.js';
import { startOfDay } from '../../../time/date-fns.js';
import { formatDuration } from '../../../time/duration.js';
import { LOOKBACK_MS, lastHourAt, type PollCounter } from '../../../watches/progress.js';
import type { Watch } from '../../../watches/store.js';
import type { PollerState } from './state.js';

/**
 * The days to read at `nowMs`: today (UTC), and yesterday while its last entries may still be new
 * or the sparkline's hour began in it, or while a watch has not been polled since yesterday (a
 * poll slowed down or waiting past midnight).
 */
export function daysToRead(nowMs: number, everyMs: number, watches: readonly Watch[]): number[] {
  const today = startOfDay(nowMs, { in: utc }).getTime();
  const behind = watches.some((watch) => (watch.lastPolledAt ?? watch.startedAt) < today);
  const reachesBack = Math.min(nowMs - LOOKBACK_MS - everyMs, lastHourAt(nowMs).startMs);
  return behind || reachesBack < today ? [today - 86_400_000, today] : [today];
}

/** A download still going at its deadline: stopped, so that its lease never runs out under it. */
class DownloadDeadlineError extends EdgeopsError {
  override name = 'DownloadDeadlineError';
  readonly kind = 'deadline';
  readonly outcome = 'failed';
  readonly unexpected = false;

  constructor(readonly limitMs: number) {
    super(`the download took longer than ${formatDuration(limitMs)}`);
  }

  /** What the watch message says of it. */
  get userMessage(): string {
    return `${this.message} and was stopped`;
  }
}

/**
 * What the watch message says of a failed poll: with the correlation id of its log line when the
 * cause is not one the reader can fix. The watch polls again on its own.
 */
export function failureOf(error: unknown, correlationId: string): string {
  if (error instanceof DownloadDeadlineError) return error.userMessage;
  if (error instanceof PlatformError) return error.shownWith(correlationId);
  const why =
    error instanceof JsonStreamError
      ? 'the response broke off or was not valid JSON'
      : 'the download broke off';
  return `${why} (correlation id ${correlationId})`;
}

/** Downloads the zone's days into the counters, stopped at `deadline` (on the clock) or by close(). */
export async function download(
  state: PollerState,
  pullZoneId: number,
  days: number[],
  counters: PollCounter[],
  deadline: number,
  renew: () => Promise<void>,
) {
  const { now, downloads } = state;
  const limitMs = deadline - now();
  const controller = new AbortController();
  // The clock is checked as entries arrive; the timer stops a download that has stalled.
  const timer = setTimeout(() => controller.abort(new DownloadDeadlineError(limitMs)), limitMs);
  timer.unref();
  downloads.add(controller);
  try {
    for (const day of days) {
      const response = await state.platform.getOriginErrorLogs(pullZoneId, new Date(day), {
        signal: controller.signal,
      });
      for await (const batch of jsonArrayEntries(response.body, 'logs')) {
        if (now() > deadline) {
          controller.abort(new DownloadDeadlineError(limitMs));
          throw controller.signal.reason;
        }
        await renew();
        for (const element of batch) for (const counter of counters) counter.add(element);
      }
    }
  } catch (error) {
    throw controller.signal.aborted ? controller.signal.reason : error;
  } finally {
    clearTimeout(timer);
    downloads.delete(controller);
  }
}
