/**
 * Long work (big log days, exports) with a progress message: after 2 seconds a message
 * appears in the channel (or the thread the request was asked in), is updated with what is
 * happening, and carries a Cancel button that aborts the work (the download stops, the temporary
 * file goes). Updates to that message are coalesced to at most one every 3 seconds, so a slow
 * Slack is never flooded. An answer in the channel takes the progress message's place (its
 * headline, updated in place, after the same gap); a private one leaves it saying where the
 * answer went. Each job counts against the caps of the job registry; past them it is refused,
 * naming what runs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Markup, markupToPlain, md, mention, nest, trusted } from '../../reply/markup.js';
import { ephemeral, inChannel, type Reply, type ReplyBlock } from '../../reply/model.js';
import { UserFacingError } from '../engine/errors.js';
import type { RunningJob } from '../engine/jobs.js';
import type { MessageRef, RunContext } from '../engine/types.js';
import { formatUtc } from './time-args.js';

export interface Job {
  readonly id: string;
  readonly signal: AbortSignal;
  /** What is happening now, e.g. "fetching 12 MB"; shown at the next update. */
  status(text: string): void;
}

export interface LongJobOptions {
  title: string;
  /** The operation's cancel action id, e.g. `logs:cancel`. */
  cancelActionId: string;
  work(job: Job): Promise<Reply | undefined>;
  /**
   * Where the progress message goes: the channel (or thread) asked in, by default; or the
   * requester's direct messages, for work that is theirs alone to know of (an audit export),
   * which a cap's refusal then lists to others as "a private job", naming no one.
   */
  progressTo?: 'channel' | 'requester';
  /** Told when the job was cancelled (its answer then says so to the one who cancelled). */
  onCancelled?: () => void;
}

function progressReply(
  title: string,
  status: string,
  jobId: string,
  cancelActionId: string,
  seconds: number,
): Reply {
  return inChannel(`${title}: ${status}`, [
    { type: 'text', text: md`:hourglass_flowing_sand: *${title}*: ${status} (${seconds} s)` },
    {
      type: 'actions',
      buttons: [{ text: 'Cancel', actionId: cancelActionId, value: jobId, style: 'danger' }],
    },
  ]);
}

/**
 * Sends the latest of what it is given, at most once per `minGapMs`: what was superseded while
 * it waited is never sent. Elapsed time, not the clock, decides the gap.
 */
function coalescingSender(minGapMs: number, deliver: (reply: Reply) => Promise<void>) {
  let pending: (() => Reply) | undefined;
  let lastSent = Number.NEGATIVE_INFINITY;
  let pumping: Promise<void> | undefined;
  const pump = async () => {
    while (pending) {
      const wait = lastSent + minGapMs - performance.now();
      if (wait > 0) await sleep(wait);
      const render = pending;
      pending = undefined;
      if (!render) continue;
      await deliver(render());
      // Counted from when Slack has the last one, so its arrivals are a full gap apart too.
      lastSent = performance.now();
    }
    pumping = undefined;
  };
  return {
    send(render: () => Reply): Promise<void> {
      pending = render;
      pumping ??= pump();
      return pumping;
    },
    /**
     * Drops what was not sent yet, lets what is being sent arrive, and waits out the gap after
     * it: the message is then free for whatever takes its place.
     */
    async handOver(): Promise<void> {
      pending = undefined;
      await pumping;
      const wait = lastSent + minGapMs - performance.now();
      if (wait > 0) await sleep(wait);
    },
  };
}

/** The refusal past a cap: what runs, and a Cancel button for each of the requester's jobs. */
function refusal(
  ctx: RunContext,
  limit: 'user' | 'process',
  running: readonly RunningJob[],
): UserFacingError {
  const limits = ctx.services.jobs.limits;
  const message =
    limit === 'user'
      ? `You already have ${running.length} long jobs running, the most one person may run at once. Cancel one, or wait for it to finish.`
      : `The bot is already running ${running.length} long jobs, the most it runs at once. Try again in a minute.`;
  const lines = running.map((job) => {
    const mine = job.requester === ctx.userId;
    // Someone else's private job (an audit export): neither what it is nor whose.
    if (job.private && !mine) return md`• A private job, started ${formatUtc(job.startedAt)}`;
    return md`• ${job.title}, started ${formatUtc(job.startedAt)}${nest(mine ? trusted('') : md` by ${nest(mention(job.requester))}`)}`;
  });
  const own = running.filter((job) => job.requester === ctx.userId);
  const blocks: ReplyBlock[] = [
    { type: 'text', text: md`:no_entry: ${message}` },
    { type: 'text', text: trusted(lines.join('\n')) },
    {
      type: 'context',
      text: md`Limits: ${limits.perUser} per person, ${limits.perProcess} in all (EDGEOPS_MAX_JOBS_PER_USER, EDGEOPS_MAX_JOBS).`,
    },
  ];
  if (own.length > 0)
    blocks.push({
      type: 'actions',
      buttons: own.map((job) => ({
        text: `Cancel: ${job.title}`,
        actionId: job.cancelActionId,
        value: job.id,
        style: 'danger' as const,
      })),
    });
  return new UserFacingError(message, ephemeral(message, blocks));
}

export async function runLongJob(ctx: RunContext, options: LongJobOptions): Promise<Reply | undefined> {
  const { jobs } = ctx.services;
  const startedAt = ctx.services.now();
  const started = jobs.start({
    requester: ctx.userId,
    title: options.title,
    cancelActionId: options.cancelActionId,
    startedAt,
    ...(options.progressTo === 'requester' ? { private: true } : {}),
  });
  if (!started.ok) throw refusal(ctx, started.limit, started.running);
  const { job } = started;
  // Recorded across replicas: one whose process stops mid-job leaves its message closed by another.
  // Not waited for: a slow state database holds up neither the job nor its answer.
  const records = ctx.services.jobRecords;
  void records?.begin({
    id: job.id,
    title: options.title,
    userId: ctx.userId,
    channelId: ctx.channelId,
    correlationId: ctx.correlationId,
    startedAt,
  });
  const timing = jobs.progress;
  const elapsed = performance.now();
  let status = 'starting';
  let ref: MessageRef | undefined;
  let finished = false;
  let ticked = false;
  const post = (reply: Reply) =>
    options.progressTo === 'requester'
      ? ctx.surface.sendDirect(ctx.userId, reply)
      : ctx.surface.postToChannel(ctx.channelId, reply, ctx.threadTs);
  const sender = coalescingSender(timing.minGapMs, async (reply) => {
    try {
      if (ref) await ctx.surface.update(ref, reply);
      else if (!finished) {
        ref = await post(reply);
        if (ref) records?.progress(job.id, ref);
      }
    } catch (error) {
      ctx.logger.warn('progress message could not be sent', { error });
    }
  });
  const tick = () => {
    ticked = true;
    void sender.send(() =>
      progressReply(
        options.title,
        status,
        job.id,
        options.cancelActionId,
        Math.round((performance.now() - elapsed) / 1000),
      ),
    );
  };
  let interval: NodeJS.Timeout | undefined;
  const delay = setTimeout(() => {
    tick();
    interval = setInterval(tick, timing.minGapMs);
  }, timing.delayMs);

  const stopTicking = () => {
    finished = true;
    clearTimeout(delay);
    if (interval) clearInterval(interval);
  };

  /** The progress message's last words; sent after the gap, without holding up the answer. */
  const finish = (line: Markup) => {
    stopTicking();
    if (ticked)
      void sender.send(() =>
        inChannel(`${options.title}: ${markupToPlain(line)}`, [
          { type: 'text', text: md`${options.title}: ${nest(line)}` },
        ]),
      );
  };

  try {
    const reply = await options.work({
      id: job.id,
      signal: job.controller.signal,
      status: (text) => {
        status = text;
      },
    });
    if (reply?.visibility === 'channel') {
      stopTicking();
      if (!ticked) return reply;
      // The progress message becomes the answer's headline, once its last update has arrived.
      await sender.handOver();
      return ref ? { ...reply, inPlaceOf: ref } : reply;
    }
    finish(
      reply?.visibility === 'ephemeral'
        ? md`done; the answer went to ${nest(mention(ctx.userId))} only.`
        : md`done.`,
    );
    return reply;
  } catch (error) {
    if (job.controller.signal.aborted) {
      options.onCancelled?.();
      finish(md`cancelled; nothing was posted and the temporary file is removed.`);
      return {
        ...ephemeral(`${options.title} was cancelled.`, [
          { type: 'text', text: md`:heavy_multiplication_x: ${options.title} was cancelled.` },
        ]),
        cancelled: true,
      };
    }
    finish(md`failed.`);
    throw error;
  } finally {
    started.finish();
    void records?.end(job.id);
  }
}

/** Cancels a running job; only the person who started it may. */
export function cancelJob(ctx: RunContext, jobId: string): Reply {
  const job = ctx.services.jobs.get(jobId);
  if (!job)
    return ephemeral('Nothing to cancel', [
      {
        type: 'text',
        text: md`That job has already finished (or runs on another replica of the bot, which cannot cancel it from here).`,
      },
    ]);
  if (job.requester !== ctx.userId) {
    // A private job (an audit export) is named, with its requester, to no one else.
    const only = job.private
      ? md`:no_entry: Only the person who started that job can cancel it.`
      : md`:no_entry: Only ${nest(mention(job.requester))} can cancel ${job.title}.`;
    return { ...ephemeral('Not yours to cancel', [{ type: 'text', text: only }]), refused: true };
  }
  job.controller.abort(new Error('cancelled by the requester'));
  return ephemeral('Cancelling', [{ type: 'text', text: md`Cancelling ${job.title}…` }]);
}
