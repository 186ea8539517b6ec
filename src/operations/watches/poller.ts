/**
 * The background side of watches: one poller per bot process. Each tick it takes the lease of
 * every due watch it can (free, expired, or its own), downloads each pull zone's current day
 * once for all the watches of that zone, counts what is new, saves it under the lease, and
 * updates the watch messages and alerts. Time is the injected clock's; the timer only wakes it.
 */
import { performance } from 'node:perf_hooks';
import { utc } from '@date-fns/utc';
import { EdgeopsError } from '../../errors.js';
import type { PlatformClient } from '../../platform/client.js';
import { PlatformError } from '../../platform/errors.js';
import type { Authorizer } from '../../policy/authorizer.js';
import { channelRef, md, nest } from '../../reply/markup.js';
import { ephemeral } from '../../reply/model.js';
import { JsonStreamError, jsonArrayEntries } from '../../reports/json-entries.js';
import type { AuditLog } from '../../state/audit.js';
import type { Logger } from '../../telemetry/log.js';
import type { Metrics } from '../../telemetry/metrics.js';
import type { Clock } from '../../time/clock.js';
import { startOfDay } from '../../time/date-fns.js';
import { formatDuration } from '../../time/duration.js';
import { LOOKBACK_MS, PollCounter, type PollOutcome, type WatchProgress } from '../../watches/progress.js';
import type { EndReason, Watch, WatchHead, WatchStore } from '../../watches/store.js';
import type { Messenger } from '../engine/types.js';
import { goneFromChannel } from '../shared/delivery-errors.js';
import { announceEnd, threadOf } from './endings.js';
import { alertMessage, watchMessage } from './render.js';

/** A token bucket on the injected clock: the platform calls all watches may make per minute. */
export function createCallBudget(perMinute: number, now: Clock): { take(calls: number): boolean } {
  let tokens = perMinute;
  let at = now();
  return {
    take(calls) {
      const current = now();
      tokens = Math.min(perMinute, tokens + ((current - at) / 60_000) * perMinute);
      at = current;
      if (tokens < calls) return false;
      tokens -= calls;
      return true;
    },
  };
}

/** The most a 429 stretches the interval: 2, 4, then 8 times. */
const MAX_SLOW_LEVEL = 3;

export interface WatchPollerOptions {
  store: WatchStore;
  platform: Pick<PlatformClient, 'getOriginErrorLogs'>;
  authorizer: Authorizer;
  audit: AuditLog;
  logger: Logger;
  metrics: Pick<Metrics, 'setRunningWatches' | 'watchPolled' | 'watchTakenOver'>;
  now: Clock;
  /** This replica's name in lease_owner. */
  instanceId: string;
  callsPerMinute: number;
  /** How often the timer wakes the poller (real time); due-ness is decided on the clock. */
  tickMs?: number;
}

export interface WatchPoller {
  /** Starts the timer; `messenger` posts and updates outside any request. */
  start(messenger: Messenger): void;
  /** One pass over the due watches; passes never overlap (a second waits for the first). */
  tick(): Promise<void>;
  /** Stops the timer and frees this replica's leases, so another replica takes over at once. */
  close(): Promise<void>;
}

/**
 * The days to read at `nowMs`: today (UTC), and yesterday while its last entries may still be new,
 * or while a watch has not been polled since yesterday (a poll slowed down or waiting past midnight).
 */
function daysToRead(nowMs: number, everyMs: number, watches: readonly Watch[]): number[] {
  const today = startOfDay(nowMs, { in: utc }).getTime();
  const behind = watches.some((watch) => (watch.lastPolledAt ?? watch.startedAt) < today);
  return behind || nowMs - today < LOOKBACK_MS + everyMs ? [today - 86_400_000, today] : [today];
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

/** Every lease of a download was taken by another replica meanwhile: it stops, saving nothing. */
class LeaseLostError extends EdgeopsError {
  override name = 'LeaseLostError';
  readonly kind = 'lease-lost';
  readonly outcome = 'failed';
  readonly unexpected = false;
  readonly userMessage = 'another replica polls these watches now';

  constructor() {
    super('the leases of this download were taken by another replica');
  }
}

/** How many intervals a poll's download may take before it is stopped. */
const DEADLINE_INTERVALS = 2;

/** What the watch message says of a failed poll. */
function failureOf(error: unknown): string {
  if (error instanceof DownloadDeadlineError || error instanceof PlatformError) return error.userMessage;
  if (error instanceof JsonStreamError) return 'the response broke off or was not valid JSON';
  return 'the download broke off';
}

/**
 * The lease outlives the next poll by half an interval, and a download under way renews it every
 * half interval: a dead replica's watches move within two intervals, and a live one's never while
 * it downloads.
 */
const leaseUntil = (nextPollAt: number, everyMs: number) => nextPollAt + Math.ceil(everyMs / 2);

export function createWatchPoller(options: WatchPollerOptions): WatchPoller {
  const { store, now, logger, instanceId } = options;
  const budget = createCallBudget(options.callsPerMinute, now);
  let messenger: Messenger | undefined;
  let timer: NodeJS.Timeout | undefined;
  let queue: Promise<void> = Promise.resolve();
  let busy = false;
  let closed = false;
  /** The downloads under way, stopped by close(). */
  const downloads = new Set<AbortController>();

  async function end(watch: WatchHead, reason: EndReason): Promise<void> {
    const ended = await store.end(watch.id, reason, null, now());
    if (ended && messenger)
      await announceEnd(ended, { messenger, audit: options.audit, logger, nowMs: now() });
  }

  async function refresh(watch: Watch): Promise<void> {
    if (!messenger || !watch.messageTs) return;
    try {
      await messenger.update({ channelId: watch.channelId, ts: watch.messageTs }, watchMessage(watch, now()));
    } catch (error) {
      logger.warn('a watch message could not be updated', { watch: watch.id, error });
      // Archived, the bot removed, the message deleted: polling on would spend the shared budget
      // for nobody. The watch ends, and its owner is told privately.
      const gone = goneFromChannel(error);
      if (!gone) return;
      await end(watch, 'channel');
      await messenger
        .sendDirect(
          watch.owner,
          ephemeral(`Your watch of pull zone ${watch.pullZoneId} ended`, [
            {
              type: 'text',
              text: md`:stop_sign: Your watch of pull zone ${watch.pullZoneId} in ${nest(channelRef(watch.channelId))} ended: ${gone}. Start it again where the bot can post.`,
            },
          ]),
        )
        .catch((dmError: unknown) => logger.warn('the end of a watch could not be sent', { error: dmError }));
    }
  }

  /** Saves the poll under the lease; the watch as saved, or undefined when the lease was lost. */
  async function save(watch: Watch, progress: WatchProgress, polledAt: number | null, nextPollAt: number) {
    const saved = await store.savePoll(watch.id, instanceId, watch.version, {
      progress,
      nextPollAt,
      polledAt,
      leaseExpiresAt: leaseUntil(nextPollAt, watch.everyMs),
    });
    if (!saved) {
      logger.info('a watch lease was lost during its poll; its counts were left to the new holder', {
        watch: watch.id,
      });
      return undefined;
    }
    return {
      ...watch,
      progress,
      lastPolledAt: polledAt ?? watch.lastPolledAt,
      nextPollAt,
      version: watch.version + 1,
    };
  }

  async function postAlerts(watch: Watch, outcome: PollOutcome, nowMs: number): Promise<void> {
    if (!messenger || !watch.alert) return;
    const episode = watch.progress.episode;
    if (outcome.change === 'tripped' && episode) {
      if (watch.snoozedUntil !== null && watch.snoozedUntil > nowMs) return;
      const ref = await messenger.postToChannel(
        watch.channelId,
        alertMessage(watch, episode),
        threadOf(watch),
      );
      if (ref)
        await save(
          watch,
          { ...watch.progress, episode: { ...episode, alertTs: ref.ts } },
          null,
          watch.nextPollAt,
        );
    } else if (outcome.change === 'peak' && episode?.alertTs) {
      await messenger.update(
        { channelId: watch.channelId, ts: episode.alertTs },
        alertMessage(watch, episode),
      );
    } else if (outcome.change === 'cleared' && outcome.ended?.alertTs) {
      await messenger.update(
        { channelId: watch.channelId, ts: outcome.ended.alertTs },
        alertMessage(watch, outcome.ended, outcome.ended.endMs),
      );
    }
  }

  /** Keeps the leases of a download under way, every half interval; the watches whose lease held. */
  function leaseKeeper(watches: readonly Watch[]) {
    const everyMs = Math.min(...watches.map((watch) => watch.everyMs));
    let renewedAt = now();
    return async () => {
      const at = now();
      if (at - renewedAt < everyMs / 2) return;
      renewedAt = at;
      const held = await Promise.all(
        watches.map((watch) =>
          store
            .renewLease(watch.id, instanceId, watch.version, leaseUntil(at + watch.everyMs, watch.everyMs))
            .catch((error: unknown) => {
              logger.warn('a watch lease could not be renewed during its download', {
                watch: watch.id,
                error,
              });
              // Not known to be lost: the save decides.
              return true;
            }),
        ),
      );
      // Another replica holds every lease: it polls these watches, this download is wasted.
      if (!held.includes(true)) throw new LeaseLostError();
    };
  }

  /** Downloads the zone's days into the counters, stopped at `deadline` (on the clock) or by close(). */
  async function download(
    pullZoneId: number,
    days: number[],
    counters: PollCounter[],
    deadline: number,
    renew: () => Promise<void>,
  ) {
    const limitMs = deadline - now();
    const controller = new AbortController();
    // The clock is checked as entries arrive; the timer stops a download that has stalled.
    const timer = setTimeout(() => controller.abort(new DownloadDeadlineError(limitMs)), limitMs);
    timer.unref();
    downloads.add(controller);
    try {
      for (const day of days) {
        const response = await options.platform.getOriginErrorLogs(pullZoneId, new Date(day), {
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

  async function pollZone(pullZoneId: number, watches: Watch[], nowMs: number, deadline: number) {
    const days = daysToRead(nowMs, Math.max(...watches.map((watch) => watch.everyMs)), watches);
    if (!budget.take(days.length)) {
      logger.info('watch poll waits for the shared platform budget', { pullZone: pullZoneId });
      return;
    }
    const counters = watches.map((watch) => new PollCounter(watch.progress, watch, watch.startedAt));
    const started = performance.now();
    try {
      await download(pullZoneId, days, counters, deadline, leaseKeeper(watches));
    } catch (error) {
      // Stopped by close(): the leases are handed back, the next holder polls again.
      if (closed) return;
      if (error instanceof LeaseLostError) {
        logger.info('a watch download stopped: another replica holds its leases now', {
          pullZone: pullZoneId,
        });
        return;
      }
      const slowed = error instanceof PlatformError && error.kind === 'rate-limited';
      logger.warn(slowed ? 'the platform asked watches to wait' : 'a watch poll failed', {
        pullZone: pullZoneId,
        error,
      });
      for (const watch of watches) {
        const level = slowed ? Math.min(MAX_SLOW_LEVEL, (watch.progress.slowed?.level ?? 0) + 1) : 0;
        const progress: WatchProgress = {
          ...watch.progress,
          slowed: slowed ? { level } : watch.progress.slowed,
          failure: slowed ? null : failureOf(error),
        };
        const saved = await save(watch, progress, null, nowMs + watch.everyMs * 2 ** level);
        if (saved) await refresh(saved);
      }
      return;
    }
    options.metrics.watchPolled((performance.now() - started) / 1000);
    for (const [index, watch] of watches.entries()) {
      const outcome = counters[index]!.finish(nowMs, watch.alert);
      const saved = await save(watch, outcome.progress, nowMs, nowMs + watch.everyMs);
      if (!saved) continue;
      await refresh(saved);
      await postAlerts(saved, outcome, nowMs).catch((error: unknown) =>
        logger.warn('a watch alert could not be posted', { watch: watch.id, error }),
      );
    }
  }

  async function pass(): Promise<void> {
    if (closed) return;
    const nowMs = now();
    const due = new Map<number, WatchHead[]>();
    for (const watch of await store.due(nowMs, instanceId)) {
      if (nowMs >= watch.endsAt) {
        await end(watch, 'finished');
        continue;
      }
      // Its replica died between storing it and posting its message: nobody saw it start.
      if (!watch.messageTs) {
        await end(watch, 'stopped');
        continue;
      }
      const decision = await options.authorizer.decide('watch.logs', {
        userId: watch.owner,
        channelId: watch.channelId,
      });
      // Run only as approved: a rule that came after the watch started stops it, saying why.
      if (decision.allowed && decision.approval && watch.approvalId === null) {
        await end(watch, 'approval');
        continue;
      }
      if (!decision.allowed) {
        // A group Slack did not answer for may be the only reason: no ending on a guess.
        const unsure = decision.denial.code === 'not-in-role' && decision.denial.unread.length > 0;
        if (!unsure) {
          await end(watch, 'policy');
          continue;
        }
        logger.warn('the owner of a watch could not be checked against the policy; it goes on', {
          watch: watch.id,
        });
      }
      due.set(watch.pullZoneId, [...(due.get(watch.pullZoneId) ?? []), watch]);
    }
    for (const [pullZoneId, heads] of due) {
      if (closed) break;
      // Leased just before the download; the download renews the leases while it runs.
      const startedAt = now();
      const deadline = startedAt + DEADLINE_INTERVALS * Math.min(...heads.map((head) => head.everyMs));
      const watches: Watch[] = [];
      for (const head of heads) {
        const lease = await store.takeLease(
          head.id,
          instanceId,
          startedAt,
          leaseUntil(startedAt + head.everyMs, head.everyMs),
        );
        if (!lease) continue;
        if (lease.previousOwner !== null && lease.previousOwner !== instanceId) {
          options.metrics.watchTakenOver();
          logger.info('took over a watch from a replica that stopped renewing it', { watch: head.id });
        }
        watches.push(lease.watch);
      }
      if (watches.length > 0) await pollZone(pullZoneId, watches, startedAt, deadline);
    }
    options.metrics.setRunningWatches(await store.countRunning());
  }

  function tick(): Promise<void> {
    queue = queue.then(pass).catch((error: unknown) => logger.warn('a watch poll pass failed', { error }));
    return queue;
  }

  return {
    start(surface) {
      messenger = surface;
      timer = setInterval(() => {
        if (busy) return;
        busy = true;
        void tick().finally(() => {
          busy = false;
        });
      }, options.tickMs ?? 5_000);
      timer.unref();
    },
    tick,
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      for (const controller of downloads) controller.abort(new Error('the bot is shutting down'));
      await queue;
      await store
        .releaseLeases(instanceId)
        .catch((error: unknown) => logger.warn('watch leases could not be released', { error }));
    },
  };
}
