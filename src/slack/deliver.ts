/**
 * Sends a reply one way: its message (as plain text when Slack refuses the rich one), then its
 * pictures and files; then its follow-ups, as replies in the thread of its message. Where the
 * reply went without a message to hang a thread on (through a response_url), its follow-ups go
 * the same way it went.
 */
import { OperationFailedError } from '../operations/engine/errors.js';
import type { Reply } from '../reply/model.js';
import { sendRendered, slackErrorCode } from './fallback.js';
import { deliverFiles } from './files.js';
import { type Correct, inConversation, type Outgoing, type Sent, type Way } from './outgoing.js';

/** A message sent by chat.postMessage or chat.update is corrected with chat.update. */
const correctChat =
  (slack: Outgoing): Correct =>
  async (sent, message) => {
    if (sent.via !== 'chat') return;
    try {
      await slack.client.chat.update({ channel: sent.ref.channelId, ts: sent.ref.ts, ...message });
    } catch (error) {
      slack.logger.warn('the message naming a failed file could not be corrected', {
        slackError: slackErrorCode(error),
      });
    }
  };

/** Sends a reply, then its pictures and files (files.ts); `correct` names the failed ones in it. */
export async function deliver(
  slack: Outgoing,
  reply: Reply,
  way: Way,
  correct: Correct = correctChat(slack),
): Promise<Sent> {
  const sentReply = await sendRendered(slack, reply, way.delivery, way.send);
  await deliverFiles(slack, reply, sentReply, way, correct);
  return sentReply.sent;
}

export interface ThreadOptions {
  /** The thread the reply was itself posted in: its follow-ups go there too (Slack has no nested threads). */
  threadTs?: string;
  /** How a message of the thread is corrected when one of its files fails. */
  correct?: Correct;
  /** Where a follow-up goes when Slack will not take it after its headline. */
  elsewhere?: (followUp: Reply, slackError: string) => Promise<unknown>;
}

/**
 * Sends a reply's follow-ups after it: as replies in the thread of `sent` (or of `threadTs`, the
 * thread it was itself posted in), with their files there too; without a message to thread them
 * under, the same way the reply went.
 */
export async function deliverThread(
  slack: Outgoing,
  reply: Reply,
  sent: Sent,
  sameWay: Way,
  { threadTs, correct, elsewhere }: ThreadOptions = {},
): Promise<void> {
  for (const followUp of reply.thread ?? []) {
    try {
      const way =
        sent.via === 'chat' ? inConversation(slack, sent.ref.channelId, threadTs ?? sent.ref.ts) : sameWay;
      await deliver(slack, followUp, way, correct);
    } catch (error) {
      // A failed file is already named in the message sent; anything else lost the follow-up whole.
      if (!elsewhere || error instanceof OperationFailedError) throw error;
      const code = slackErrorCode(error) ?? 'no answer from Slack';
      slack.logger.warn('a follow-up could not be sent after its headline; sending it another way', {
        slackError: code,
        error,
      });
      await elsewhere(followUp, code);
    }
  }
}

/** Sends a reply and its thread one way: the thread under the reply's message, or the same way. */
export async function deliverWithThread(
  slack: Outgoing,
  reply: Reply,
  way: Way,
  thread: ThreadOptions = {},
): Promise<Sent> {
  const sent = await deliver(slack, reply, way, thread.correct);
  await deliverThread(slack, reply, sent, way, thread);
  return sent;
}
