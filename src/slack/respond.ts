/**
 * Answers a request where its reply belongs; every answer reaches the person who asked, even
 * when Slack refuses a message (PRODUCT §6).
 *
 * - Ephemeral replies go through the command's response_url (works in any channel the command
 *   was typed in, member or not), or chat.postEphemeral where there is none; their files go to
 *   the requester's DM, so that a private listing never lands in the channel.
 * - Channel replies go through chat.postMessage with their files below; when the channel is the
 *   problem (the bot is not in it, it is archived or unknown), through the response_url in the
 *   channel with the files in the requester's DM, or else to the requester's DM whole.
 * - A reply's follow-ups (its thread) are posted as replies to it; a request asked in a thread is
 *   answered in that thread, follow-ups too (Slack has no nested threads).
 * - A reply that takes the place of a progress message updates that message; when Slack will not
 *   update it, the reply is posted anew.
 * - Temporary files of a reply are removed whatever happens.
 */
import type { MessageRef, Reply } from '../reply/model.js';
import { CHANNEL_REASONS, isContentRefusal, slackErrorCode } from './fallback.js';
import { removeTemporaryFiles } from './files.js';
import { inConversation, type Message, refOf, type Sent, viaChat, type Way } from './outgoing.js';
import {
  deliverHere,
  deliverInRequesterDm,
  deliverThreadHere,
  followUpByDm,
  requesterDm,
  type SlackRequest,
  toRequesterDm,
  viaEphemeral,
  viaResponseUrl,
} from './request.js';
import { ResponseUrlError } from './response-url.js';

/** An ephemeral reply: through the response_url, else chat.postEphemeral, else the requester's DM. */
export async function answerPrivately(request: SlackRequest, reply: Reply): Promise<void> {
  const { slack, asked } = request;
  const privately = (send: Way['send']): Way => ({
    delivery: { place: 'dm' },
    send,
    filesTo: () => requesterDm(request),
  });
  let sent: Sent | undefined;
  let sameWay = privately(viaEphemeral(request));
  if (asked.respond) {
    try {
      const way = privately(viaResponseUrl(asked.respond, 'ephemeral', reply.replaceOriginal ?? false));
      sent = await deliverHere(request, reply, way);
      // Ephemeral messages have no thread: the follow-ups come the same way, as messages of their own.
      sameWay = privately(viaResponseUrl(asked.respond, 'ephemeral', false));
    } catch (error) {
      // An expired or used response_url: the same answer by the Web API instead.
      if (!(error instanceof ResponseUrlError)) throw error;
      slack.logger.warn('the response URL refused the answer; answering with chat.postEphemeral', {
        slackError: error.code,
      });
    }
  }
  if (!sent)
    try {
      sent = await deliverHere(request, reply, sameWay);
    } catch (error) {
      const why = CHANNEL_REASONS[slackErrorCode(error) ?? ''];
      if (!why) throw error;
      slack.logger.warn('a private answer could not be shown in the channel; sending it by DM', {
        slackError: slackErrorCode(error),
      });
      await toRequesterDm(request, reply, why);
      return;
    }
  await deliverThreadHere(request, reply, sent, sameWay, { elsewhere: followUpByDm(request) });
}

/**
 * Updates the message a reply takes the place of (a progress message). When Slack will not
 * update it (deleted, too old), the reply is posted anew; a refused layout or a channel the bot
 * cannot post in is left to the fallbacks that handle them.
 */
const inPlaceOf =
  ({ slack, asked }: SlackRequest, ref: MessageRef) =>
  async (message: Message): Promise<Sent> => {
    try {
      // Without blocks of its own, the update must still remove the progress message's.
      await slack.client.chat.update({
        channel: ref.channelId,
        ts: ref.ts,
        ...message,
        blocks: message.blocks ?? [],
      });
      return { via: 'chat', ref };
    } catch (error) {
      const code = slackErrorCode(error);
      if (!code || isContentRefusal(error) || CHANNEL_REASONS[code]) throw error;
      slack.logger.warn('the progress message could not become the answer; posting the answer anew', {
        slackError: code,
      });
      return viaChat(slack, asked.channelId, asked.threadTs)(message);
    }
  };

/** Where a channel answer went: its message in the channel, or in the requester's DM when moved there. */
async function postInChannel(request: SlackRequest, reply: Reply): Promise<MessageRef | undefined> {
  const { slack, asked } = request;
  const here = inConversation(slack, asked.channelId, asked.threadTs);
  const inChannel: Way = reply.inPlaceOf ? { ...here, send: inPlaceOf(request, reply.inPlaceOf) } : here;
  let sent: Sent;
  let sameWay = inChannel;
  try {
    sent = await deliverHere(request, reply, inChannel);
  } catch (error) {
    const code = slackErrorCode(error) ?? '';
    const why = CHANNEL_REASONS[code];
    if (!why) throw error;
    if (!asked.respond) {
      slack.logger.warn('cannot post in the channel; sending the answer by DM', { slackError: code });
      return refOf(await toRequesterDm(request, reply, why));
    }
    slack.logger.warn('cannot post in the channel; answering through the response URL', {
      slackError: code,
    });
    // Slack shows a response_url answer in the channel; files cannot follow it there.
    sameWay = {
      delivery: { place: 'dm', why: why.replace('that channel', 'this channel') },
      send: viaResponseUrl(asked.respond, 'in_channel', false),
      filesTo: () => requesterDm(request),
    };
    try {
      sent = await deliverHere(request, reply, sameWay);
    } catch (refused) {
      // An expired or used-up response_url (a long job outlives its 30 minutes): the DM is left.
      if (!(refused instanceof ResponseUrlError)) throw refused;
      slack.logger.warn('the response URL refused the answer too; sending it by DM', {
        slackError: refused.code,
      });
      return refOf(await toRequesterDm(request, reply, why));
    }
  }
  // In the thread the request was asked in, or else under the answer itself.
  await deliverThreadHere(request, reply, sent, sameWay, {
    threadTs: asked.threadTs,
    elsewhere: followUpByDm(request),
  });
  return refOf(sent);
}

/** Answers the requester where the reply's visibility says; the message it became, when there is one. */
export async function respond(request: SlackRequest, reply: Reply): Promise<MessageRef | undefined> {
  try {
    if (reply.visibility === 'ephemeral') {
      await answerPrivately(request, reply);
      return undefined;
    }
    if (reply.visibility === 'dm') return refOf(await deliverInRequesterDm(request, reply));
    return await postInChannel(request, reply);
  } finally {
    await removeTemporaryFiles(reply);
  }
}
