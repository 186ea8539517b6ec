/**
 * The Slack implementation of Surface: every answer reaches the person who asked, even when
 * Slack refuses a message (PRODUCT §6).
 *
 * - Ephemeral replies go through the command's response_url (works in any channel the command
 *   was typed in, member or not), or chat.postEphemeral where there is none; their files go to
 *   the requester's DM, so that a private listing never lands in the channel.
 * - Channel replies go through chat.postMessage with their files below; when the channel is the
 *   problem (the bot is not in it, it is archived or unknown), through the response_url in the
 *   channel with the files in the requester's DM, or else to the requester's DM whole.
 * - A message Slack refuses (invalid_blocks, invalid_arguments, msg_too_long) is sent again as
 *   plain text. Each fallback is logged once with Slack's error.
 * - The message names each file and where it went; a file that could not be uploaded is named
 *   as such in the message (updated after the fact), never claimed.
 * - Pictures (charts) are uploaded with the message's files, with their alt text; one that could
 *   not be uploaded is shown in the message as its text form instead, and that is the whole answer.
 * - A reply's follow-ups (its thread) are posted as replies to it, their files and pictures in
 *   the same thread; a request asked in a thread is answered in that thread, follow-ups too (Slack
 *   has no nested threads). Where the reply went without a message to hang a thread on (through a
 *   response_url), its follow-ups go the same way it went.
 * - A reply that takes the place of a progress message updates that message; when Slack will not
 *   update it, the reply is posted anew.
 * - Everything sent passes the secret registry, except the secrets a reply exists to deliver:
 *   messages, views, file titles and comments, and the bytes of every file (upload.ts).
 * - Temporary files of a reply are removed whatever happens.
 */
import { OperationFailedError } from '../operations/engine/errors.js';
import type { MessageRef, Messenger, Surface } from '../operations/engine/types.js';
import type { ModalSpec } from '../reply/form.js';
import { channelRef, md, nest } from '../reply/markup.js';
import { commandButton, ephemeral, type Reply } from '../reply/model.js';
import { wrapMetadata } from './blocks/metadata.js';
import { renderModal, renderPanel } from './blocks/modal.js';
import { deliver, deliverThread, deliverWithThread } from './deliver.js';
import {
  type Correct,
  createSlackDelivery,
  dmChannel,
  type FileTarget,
  inConversation,
  type Message,
  refOf,
  type Sent,
  type SlackMessengerOptions,
  scrub,
  viaChat,
  type Way,
} from './delivery.js';
import { CHANNEL_REASONS, isContentRefusal, slackErrorCode } from './fallback.js';
import { removeTemporaryFiles } from './files.js';
import { BUTTON_VALUE_MAX } from './limits.js';
import { slackMessenger } from './messenger.js';
import { type PostResponse, ResponseUrlError } from './response-url.js';

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

/** Posts, updates and DMs anywhere, outside any request (the approval sweep, a shown card). */
export function createSlackMessenger(options: SlackMessengerOptions): Messenger {
  return slackMessenger(createSlackDelivery(options));
}

/**
 * A form asked for where Slack gave no trigger_id (a mention): a button that runs the command
 * again opens it, since a click comes with one.
 */
function formBehindButton(title: string, command: string): Reply {
  const text = `“${title}” is a form, and Slack opens forms only from a click.`;
  if (command.length > BUTTON_VALUE_MAX)
    return ephemeral(`${text} Type the same command after /edge in the channel instead.`, [
      {
        type: 'text',
        text: md`:memo: ${text} Type the same command after \`/edge\` in the channel instead.`,
      },
    ]);
  return ephemeral(`${text} Click “Open the form” to fill it in.`, [
    { type: 'text', text: md`:memo: ${text} Click *Open the form* to fill it in.` },
    { type: 'actions', buttons: [commandButton('Open the form', command, 'primary')] },
  ]);
}

/** Answers one request (a command, a click, a form) and can post anywhere, as the engine needs. */
export function createSlackSurface(options: SlackSurfaceOptions): Surface {
  const slack = createSlackDelivery(options);
  const { client, logger } = slack;
  const messenger = slackMessenger(slack);
  const { threadTs } = options;

  const viaResponseUrl =
    (respond: PostResponse, responseType: 'ephemeral' | 'in_channel', replaceOriginal: boolean) =>
    async (message: Message): Promise<Sent> => {
      await respond({ response_type: responseType, replace_original: replaceOriginal, ...message });
      return { via: 'response_url', responseType };
    };

  const viaEphemeral = async (message: Message): Promise<Sent> => {
    await client.chat.postEphemeral({
      channel: options.channelId,
      user: options.userId,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...message,
    });
    return { via: 'ephemeral' };
  };

  /** Rewrites a sent message after the fact: the files that failed are named as failed. */
  const correct: Correct = async (sent, message) => {
    try {
      if (sent.via === 'chat')
        await client.chat.update({ channel: sent.ref.channelId, ts: sent.ref.ts, ...message });
      else if (sent.via === 'response_url' && options.respond)
        await options.respond({ response_type: sent.responseType, replace_original: true, ...message });
      else await viaEphemeral(message);
    } catch (error) {
      logger.warn('the message naming a failed file could not be corrected', {
        slackError: slackErrorCode(error),
      });
    }
  };

  /** The answer, whole, in the requester's DM, saying why it is there; its thread under it. */
  async function toRequesterDm(reply: Reply, why: string): Promise<Sent> {
    const moved: Reply = {
      ...reply,
      blocks: [
        {
          type: 'context',
          text: md`I could not answer in ${nest(channelRef(options.channelId))}: ${why}. Here is the answer.`,
        },
        ...reply.blocks,
      ],
    };
    const channel = await dmChannel(slack, options.userId);
    return deliverWithThread(slack, moved, inConversation(slack, channel), { correct });
  }

  /** A follow-up Slack would not take after its headline: to the requester's DM, saying so. */
  const followUpByDm = (followUp: Reply, slackError: string) =>
    toRequesterDm(followUp, `Slack did not take this part of the answer there (${slackError})`);

  const requesterDm = async (): Promise<FileTarget> => ({
    channelId: await dmChannel(slack, options.userId),
  });

  async function answerPrivately(reply: Reply): Promise<void> {
    const privately = (send: Way['send']): Way => ({
      delivery: { place: 'dm' },
      send,
      filesTo: requesterDm,
    });
    let sent: Sent | undefined;
    let sameWay = privately(viaEphemeral);
    if (options.respond) {
      try {
        const way = privately(viaResponseUrl(options.respond, 'ephemeral', reply.replaceOriginal ?? false));
        sent = await deliver(slack, reply, way, correct);
        // Ephemeral messages have no thread: the follow-ups come the same way, as messages of their own.
        sameWay = privately(viaResponseUrl(options.respond, 'ephemeral', false));
      } catch (error) {
        // An expired or used response_url: the same answer by the Web API instead.
        if (!(error instanceof ResponseUrlError)) throw error;
        logger.warn('the response URL refused the answer; answering with chat.postEphemeral', {
          slackError: error.code,
        });
      }
    }
    if (!sent)
      try {
        sent = await deliver(slack, reply, sameWay, correct);
      } catch (error) {
        const why = CHANNEL_REASONS[slackErrorCode(error) ?? ''];
        if (!why) throw error;
        logger.warn('a private answer could not be shown in the channel; sending it by DM', {
          slackError: slackErrorCode(error),
        });
        await toRequesterDm(reply, why);
        return;
      }
    await deliverThread(slack, reply, sent, sameWay, { correct, elsewhere: followUpByDm });
  }

  /**
   * Updates the message a reply takes the place of (a progress message). When Slack will not
   * update it (deleted, too old), the reply is posted anew; a refused layout or a channel the bot
   * cannot post in is left to the fallbacks that handle them.
   */
  const inPlaceOf =
    (ref: MessageRef) =>
    async (message: Message): Promise<Sent> => {
      try {
        // Without blocks of its own, the update must still remove the progress message's.
        await client.chat.update({
          channel: ref.channelId,
          ts: ref.ts,
          ...message,
          blocks: message.blocks ?? [],
        });
        return { via: 'chat', ref };
      } catch (error) {
        const code = slackErrorCode(error);
        if (!code || isContentRefusal(error) || CHANNEL_REASONS[code]) throw error;
        logger.warn('the progress message could not become the answer; posting the answer anew', {
          slackError: code,
        });
        return viaChat(slack, options.channelId, options.threadTs)(message);
      }
    };

  /** Where a channel answer went: its message in the channel, or in the requester's DM when moved there. */
  async function postInChannel(reply: Reply): Promise<MessageRef | undefined> {
    const here = inConversation(slack, options.channelId, options.threadTs);
    const inChannel: Way = reply.inPlaceOf ? { ...here, send: inPlaceOf(reply.inPlaceOf) } : here;
    let sent: Sent;
    let sameWay = inChannel;
    try {
      sent = await deliver(slack, reply, inChannel, correct);
    } catch (error) {
      const code = slackErrorCode(error) ?? '';
      const why = CHANNEL_REASONS[code];
      if (!why) throw error;
      if (!options.respond) {
        logger.warn('cannot post in the channel; sending the answer by DM', { slackError: code });
        return refOf(await toRequesterDm(reply, why));
      }
      logger.warn('cannot post in the channel; answering through the response URL', { slackError: code });
      // Slack shows a response_url answer in the channel; files cannot follow it there.
      sameWay = {
        delivery: { place: 'dm', why: why.replace('that channel', 'this channel') },
        send: viaResponseUrl(options.respond, 'in_channel', false),
        filesTo: requesterDm,
      };
      try {
        sent = await deliver(slack, reply, sameWay, correct);
      } catch (refused) {
        // An expired or used-up response_url (a long job outlives its 30 minutes): the DM is left.
        if (!(refused instanceof ResponseUrlError)) throw refused;
        logger.warn('the response URL refused the answer too; sending it by DM', {
          slackError: refused.code,
        });
        return refOf(await toRequesterDm(reply, why));
      }
    }
    // In the thread the request was asked in, or else under the answer itself.
    await deliverThread(slack, reply, sent, sameWay, {
      threadTs: options.threadTs,
      correct,
      elsewhere: followUpByDm,
    });
    return refOf(sent);
  }

  const surface: Surface = {
    ...messenger,
    ...(options.clicked ? { clicked: options.clicked } : {}),
    // Posts in the channel asked in (progress, an approval card there) stay in the thread asked in.
    postToChannel: (channelId, reply, inThread) =>
      messenger.postToChannel(
        channelId,
        reply,
        inThread ?? (channelId === options.channelId ? threadTs : undefined),
      ),
    async respond(reply) {
      try {
        if (reply.visibility === 'ephemeral') {
          await answerPrivately(reply);
          return undefined;
        }
        if (reply.visibility === 'dm') {
          const channel = await dmChannel(slack, options.userId);
          return refOf(await deliverWithThread(slack, reply, inConversation(slack, channel), { correct }));
        }
        return await postInChannel(reply);
      } finally {
        await removeTemporaryFiles(reply);
      }
    },
    async openModal(modal: ModalSpec) {
      if (!options.triggerId) {
        if (options.formCommand === undefined)
          throw new Error('a form can only be opened from a command or a button');
        await answerPrivately(formBehindButton(modal.title, options.formCommand));
        return;
      }
      const view = scrub(
        slack,
        renderModal({
          ...modal,
          privateMetadata: wrapMetadata(options.channelId, modal.privateMetadata, threadTs),
        }),
      );
      try {
        if (options.viewId) await client.views.update({ view_id: options.viewId, view });
        else await client.views.open({ trigger_id: options.triggerId, view });
      } catch (error) {
        const code = slackErrorCode(error);
        if (code === 'expired_trigger_id' || code === 'exchanged_trigger_id' || code === 'invalid_trigger_id')
          throw new OperationFailedError(
            `The form “${modal.title}” could not be opened in time (Slack allows 3 seconds); run the command again.`,
          );
        throw error;
      }
    },
    async openPanel(panel) {
      if (!options.triggerId) {
        await surface.respond(panel.reply);
        return;
      }
      const view = scrub(
        slack,
        renderPanel(panel.title, panel.reply, wrapMetadata(options.channelId, '', threadTs)),
      );
      try {
        await client.views.open({ trigger_id: options.triggerId, view });
      } catch (error) {
        // Too late for a window (Slack's 3 seconds): the same panel as an answer.
        logger.warn('a panel could not be opened; answering with it instead', {
          slackError: slackErrorCode(error),
        });
        await surface.respond(panel.reply);
      }
    },
  };
  return surface;
}
