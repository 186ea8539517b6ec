/**
 * Long work (big log days, exports) with a progress message: after 2 seconds a message
 * appears in the channel, is updated every few seconds with what is happening, and carries
 * a Cancel button that aborts the work (the download stops, the temporary file goes).
 */
import { randomBytes } from 'node:crypto';
import { md } from './markup.js';
import { ephemeral, inChannel, type Reply } from './reply.js';
import type { MessageRef, RunContext } from './types.js';

export interface Job {
  readonly id: string;
  readonly signal: AbortSignal;
  /** What is happening now, e.g. "fetching 12 MB"; shown at the next update. */
  status(text: string): void;
}

interface RunningJob {
  controller: AbortController;
  requester: string;
  title: string;
}

/** Jobs running in this process, by id. A Cancel click reaching another replica is told so. */
const running = new Map<string, RunningJob>();

export const PROGRESS_DELAY_MS = 2_000;
export const PROGRESS_INTERVAL_MS = 3_000;

export interface LongJobOptions {
  title: string;
  /** The operation's cancel action id, e.g. `logs:cancel`. */
  cancelActionId: string;
  work(job: Job): Promise<Reply | undefined>;
  delayMs?: number;
  intervalMs?: number;
}

function progressReply(
  title: string,
  status: string,
  jobId: string,
  cancelActionId: string,
  started: number,
  now: number,
): Reply {
  const seconds = Math.round((now - started) / 1000);
  return inChannel(`${title}: ${status}`, [
    { type: 'text', text: md`:hourglass_flowing_sand: *${title}*: ${status} (${seconds} s)` },
    {
      type: 'actions',
      buttons: [{ text: 'Cancel', actionId: cancelActionId, value: jobId, style: 'danger' }],
    },
  ]);
}

export async function runLongJob(ctx: RunContext, options: LongJobOptions): Promise<Reply | undefined> {
  const id = `job_${randomBytes(6).toString('hex')}`;
  const controller = new AbortController();
  running.set(id, { controller, requester: ctx.userId, title: options.title });
  const started = ctx.services.now();
  let status = 'starting';
  let ref: MessageRef | undefined;
  let closed = false;
  // Progress updates are sent one at a time, so a slow Slack call never piles them up.
  let sending: Promise<void> = Promise.resolve();
  const send = (render: () => Reply) => {
    sending = sending.then(async () => {
      try {
        if (ref) await ctx.surface.update(ref, render());
        else if (!closed) ref = await ctx.surface.postToChannel(ctx.channelId, render());
      } catch (error) {
        ctx.logger.warn('progress message could not be sent', { error });
      }
    });
    return sending;
  };
  const tick = () =>
    send(() => progressReply(options.title, status, id, options.cancelActionId, started, ctx.services.now()));
  let interval: NodeJS.Timeout | undefined;
  const delay = setTimeout(() => {
    void tick();
    interval = setInterval(() => void tick(), options.intervalMs ?? PROGRESS_INTERVAL_MS);
  }, options.delayMs ?? PROGRESS_DELAY_MS);

  const finish = async (line: string) => {
    closed = true;
    clearTimeout(delay);
    if (interval) clearInterval(interval);
    await sending;
    if (ref)
      await send(() =>
        inChannel(`${options.title}: ${line}`, [{ type: 'text', text: md`${options.title}: ${line}` }]),
      );
  };

  try {
    const reply = await options.work({
      id,
      signal: controller.signal,
      status: (text) => {
        status = text;
      },
    });
    await finish('done (below).');
    return reply;
  } catch (error) {
    if (controller.signal.aborted) {
      await finish('cancelled; nothing was posted and the temporary file is removed.');
      return ephemeral(`${options.title} was cancelled.`, [
        { type: 'text', text: md`:heavy_multiplication_x: ${options.title} was cancelled.` },
      ]);
    }
    await finish('failed.');
    throw error;
  } finally {
    running.delete(id);
  }
}

/** Cancels a running job; only the person who started it may. */
export function cancelJob(jobId: string, userId: string): Reply {
  const job = running.get(jobId);
  if (!job)
    return ephemeral('Nothing to cancel', [
      {
        type: 'text',
        text: md`That job has already finished (or runs on another replica of the bot, which cannot cancel it from here).`,
      },
    ]);
  if (job.requester !== userId)
    return ephemeral('Not yours to cancel', [
      { type: 'text', text: md`:no_entry: Only <@${job.requester}> can cancel ${job.title}.` },
    ]);
  job.controller.abort(new Error('cancelled by the requester'));
  return ephemeral('Cancelling', [{ type: 'text', text: md`Cancelling ${job.title}…` }]);
}

/** For tests: how many jobs are running in this process. */
export const runningJobs = (): number => running.size;
