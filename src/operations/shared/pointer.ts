/**
 * What an asker who joined a shared answer is told (operations/engine/shared-answers.ts): privately,
 * who asked first, and where the answer is: a link to its headline and thread when Slack gives
 * one, else the message named by who asked and when. Only the first asker can cancel the
 * download; the others are told so, and told when it was cancelled.
 */

import { linkTo, md, mention, nest } from '../../reply/markup.js';
import { ephemeral, type Reply } from '../../reply/model.js';
import type { SharedOutcome, SharedStart } from '../engine/shared-answers.js';
import type { RunContext } from '../engine/types.js';
import { formatAgo, formatUtc } from './time-args.js';

/** Sent at once to an asker who joins a download still under way. */
export function joinedNote(what: string, start: SharedStart, nowMs: number): Reply {
  const text = `${what}: already being fetched for the same request.`;
  return ephemeral(text, [
    {
      type: 'text',
      text: md`:hourglass_flowing_sand: ${nest(mention(start.starter))} asked for the same ${what} ${formatAgo(start.startedAt, nowMs)}; it is being fetched once for both of you, and I will point you to the answer here. Only ${nest(mention(start.starter))} can cancel it.`,
    },
  ]);
}

/** The answer to an asker who joined: where the shared answer is, or what became of it. */
export async function pointerReply(
  ctx: RunContext,
  what: string,
  start: SharedStart,
  outcome: Exclude<SharedOutcome, { kind: 'unshared' }>,
): Promise<Reply> {
  const starter = nest(mention(start.starter));
  switch (outcome.kind) {
    case 'private':
      return outcome.reply;
    case 'cancelled':
      // Nothing ran for this asker either: their audit row says cancelled, not succeeded.
      return {
        ...ephemeral(`${what} was cancelled by the person who asked first.`, [
          {
            type: 'text',
            text: md`:heavy_multiplication_x: ${starter} cancelled the download of ${what} that your request shared; nothing was posted. Run the command again to fetch it yourself.`,
          },
        ]),
        cancelled: true,
      };
    case 'posted': {
      const asked = formatUtc(start.startedAt);
      const link = outcome.ref ? await ctx.surface.permalink(outcome.ref) : undefined;
      const linked = link ? linkTo(link, 'its headline and thread') : undefined;
      const where =
        linked ??
        (outcome.ref
          ? md`the message in this channel asked by ${starter} at ${asked}; its thread has the breakdown and the files`
          : md`the answer to ${starter}'s request of ${asked}, which I cannot link to`);
      return ephemeral(`${what}: answered once, for the same request of another person.`, [
        {
          type: 'text',
          text: md`:link: ${starter} asked for the same ${what} ${formatAgo(start.startedAt, ctx.services.now())}, so it was fetched once: ${nest(where)}.`,
        },
      ]);
    }
  }
}
