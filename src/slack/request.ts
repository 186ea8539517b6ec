/**
 * One request being answered (a command, a click, a form): where it was asked, and the ways its
 * answer can go from there: the response_url, chat.postEphemeral, the requester's DM. A message
 * sent one of these ways is corrected the same way when one of its files fails.
 */
import { channelRef, md, nest } from '../reply/markup.js';
import type { MessageRef, Reply } from '../reply/model.js';
import { deliver, deliverThread, deliverWithThread, type ThreadOptions } from './deliver.js';
import { slackErrorCode } from './fallback.js';
import {
  type Correct,
  dmChannel,
  type FileTarget,
  inConversation,
  type Message,
  type Outgoing,
  type Sent,
  type SlackMessengerOptions,
  type Way,
} from './outgoing.js';
import type { PostResponse } from './response-url.js';

export interface SlackSurfaceOptions extends SlackMessengerOptions {
  userId: string;
  channelId: string;
  /** The thread the request was asked in (a mention, a message shortcut): every answer goes there. */
  threadTs?: string;
  /** Answers through the command's or button's response_url, when there is one. */
  respond?: PostResponse;
  triggerId?: string;
  /** The modal a click came from (the menu): a form the click opens takes its place. */
  viewId?: string;
  /**
   * The command line being answered when no trigger_id came with it (a mention): a form it
   * needs is offered behind a button that runs it again, since a click brings a trigger_id.
   */
  formCommand?: string;
  /** The message whose button was clicked. */
  clicked?: MessageRef;
}

/** The state of one request's answer: what every send is handed, and where the request was asked. */
export interface SlackRequest {
  slack: Outgoing;
  asked: SlackSurfaceOptions;
}

export const viaResponseUrl =
  (respond: PostResponse, responseType: 'ephemeral' | 'in_channel', replaceOriginal: boolean) =>
  async (message: Message): Promise<Sent> => {
    await respond({ response_type: responseType, replace_original: replaceOriginal, ...message });
    return { via: 'response_url', responseType };
  };

export const viaEphemeral =
  ({ slack, asked }: SlackRequest) =>
  async (message: Message): Promise<Sent> => {
    await slack.client.chat.postEphemeral({
      channel: asked.channelId,
      user: asked.userId,
      ...(asked.threadTs ? { thread_ts: asked.threadTs } : {}),
      ...message,
    });
    return { via: 'ephemeral' };
  };

/** Rewrites a sent message after the fact: the files that failed are named as failed. */
const correctHere =
  (request: SlackRequest): Correct =>
  async (sent, message) => {
    const { slack, asked } = request;
    try {
      if (sent.via === 'chat')
        await slack.client.chat.update({ channel: sent.ref.channelId, ts: sent.ref.ts, ...message });
      else if (sent.via === 'response_url' && asked.respond)
        await asked.respond({ response_type: sent.responseType, replace_original: true, ...message });
      else await viaEphemeral(request)(message);
    } catch (error) {
      slack.logger.warn('the message naming a failed file could not be corrected', {
        slackError: slackErrorCode(error),
      });
    }
  };

/** Sends a reply for this request (deliver.ts), corrected the way it went. */
export const deliverHere = (request: SlackRequest, reply: Reply, way: Way): Promise<Sent> =>
  deliver(request.slack, reply, way, correctHere(request));

/** Sends a reply's follow-ups for this request (deliver.ts), each corrected the way it went. */
export const deliverThreadHere = (
  request: SlackRequest,
  reply: Reply,
  sent: Sent,
  sameWay: Way,
  options: Omit<ThreadOptions, 'correct'> = {},
): Promise<void> =>
  deliverThread(request.slack, reply, sent, sameWay, { ...options, correct: correctHere(request) });

/** A reply and its thread in the requester's DM. */
export async function deliverInRequesterDm(request: SlackRequest, reply: Reply): Promise<Sent> {
  const channel = await dmChannel(request.slack, request.asked.userId);
  return deliverWithThread(request.slack, reply, inConversation(request.slack, channel), {
    correct: correctHere(request),
  });
}

export const requesterDm = async ({ slack, asked }: SlackRequest): Promise<FileTarget> => ({
  channelId: await dmChannel(slack, asked.userId),
});

/** The answer, whole, in the requester's DM, saying why it is there; its thread under it. */
export function toRequesterDm(request: SlackRequest, reply: Reply, why: string): Promise<Sent> {
  const moved: Reply = {
    ...reply,
    blocks: [
      {
        type: 'context',
        text: md`I could not answer in ${nest(channelRef(request.asked.channelId))}: ${why}. Here is the answer.`,
      },
      ...reply.blocks,
    ],
  };
  return deliverInRequesterDm(request, moved);
}

/** A follow-up Slack would not take after its headline: to the requester's DM, saying so. */
export const followUpByDm = (request: SlackRequest) => (followUp: Reply, slackError: string) =>
  toRequesterDm(request, followUp, `Slack did not take this part of the answer there (${slackError})`);
