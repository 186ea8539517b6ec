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
import { rm } from 'node:fs/promises';
import type { WebClient } from '@slack/web-api';
import { OperationFailedError } from '../operations/engine/errors.js';
import type { MessageRef, Messenger, Surface } from '../operations/engine/types.js';
import type { ModalSpec } from '../reply/form.js';
import { channelRef, md, nest } from '../reply/markup.js';
import { commandButton, ephemeral, type Reply, type ReplyFile, type ReplyImage } from '../reply/model.js';
import { createFileScrub } from '../secrets/file-scrub.js';
import type { SecretRegistry } from '../secrets/registry.js';
import { scrubbed } from '../secrets/scrub.js';
import type { Logger } from '../telemetry/log.js';
import { wrapMetadata } from './blocks/metadata.js';
import { renderModal, renderPanel } from './blocks/modal.js';
import { type FileDelivery, type RenderedMessage, renderPlainReply, renderReply } from './blocks/reply.js';
import { BUTTON_VALUE_MAX } from './limits.js';
import { type PostResponse, ResponseUrlError } from './response-url.js';
import { UploadError, uploadFile } from './upload.js';

export interface SlackMessengerOptions {
  client: WebClient;
  logger: Logger;
  secrets: SecretRegistry;
}

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

/** Slack's word for a failed call: a Web API error code, or a response_url's answer. */
export function slackErrorCode(error: unknown): string | undefined {
  if (error instanceof ResponseUrlError) return error.code;
  if (error instanceof UploadError) return error.code;
  if (typeof error === 'object' && error !== null && 'data' in error)
    return (error as { data?: { error?: string } }).data?.error ?? undefined;
  return undefined;
}

/** Slack refused what the message says or how it is laid out: the plain-text version goes. */
const CONTENT_REFUSED = new Set([
  'invalid_blocks',
  'invalid_blocks_format',
  'invalid_arguments',
  'msg_too_long',
  'no_text',
]);
/** Slack refused the content of a message or view (not the channel, nor the token). */
export const isContentRefusal = (error: unknown): boolean => CONTENT_REFUSED.has(slackErrorCode(error) ?? '');

/** The channel is the problem: the answer goes another way. */
const CHANNEL_REASONS: Readonly<Record<string, string>> = {
  not_in_channel: 'the bot is not in that channel',
  channel_not_found: 'the bot cannot see that channel',
  is_archived: 'that channel is archived',
};

type Message = { text: string; blocks?: RenderedMessage['blocks'] };

/** Where a message went, so that it can be corrected when one of its files fails. */
type Sent =
  | { via: 'chat'; ref: MessageRef }
  | { via: 'response_url'; responseType: 'ephemeral' | 'in_channel' }
  | { via: 'ephemeral' };

type Rendering = (
  reply: Reply,
  delivery: FileDelivery,
) => Omit<RenderedMessage, 'blocks'> & Partial<RenderedMessage>;

const payload = (rendered: Omit<RenderedMessage, 'blocks'> & Partial<RenderedMessage>): Message =>
  rendered.blocks && rendered.blocks.length > 0
    ? { text: rendered.text, blocks: rendered.blocks }
    : { text: rendered.text };

/** Rewrites a sent message after the fact, so the files that failed are named as failed. */
type Correct = (sent: Sent, message: Message) => Promise<void>;

/** Where a message's files and pictures go: a conversation, and in it a thread when given. */
interface FileTarget {
  channelId: string;
  threadTs?: string;
}

/** How a reply's follow-ups go when it has no message of its own to thread them under. */
interface SameWay {
  delivery: FileDelivery;
  send: (message: Message) => Promise<Sent>;
  filesTo: () => Promise<FileTarget>;
}

/** What answering and posting share: the client, the secret scrub, the DM channels, file delivery. */
function slackDelivery(options: SlackMessengerOptions) {
  const { client, logger, secrets } = options;
  const dmChannels = new Map<string, string>();

  async function dmChannel(userId: string): Promise<string> {
    const known = dmChannels.get(userId);
    if (known) return known;
    const opened = await client.conversations.open({ users: userId });
    const id = opened.channel?.id;
    if (!id) throw new Error('conversations.open returned no channel');
    dmChannels.set(userId, id);
    return id;
  }

  /** The one place Slack-bound text passes the secret registry. */
  const scrub = <T>(value: T, reply?: Reply): T => scrubbed(secrets, value, reply?.reveals ?? []);

  /**
   * Sends the rendered reply; when Slack refuses its content, sends it again as plain text.
   * Returns where it went and what was sent (whose files are to follow it).
   */
  async function sendRendered(
    reply: Reply,
    delivery: FileDelivery,
    send: (message: Message) => Promise<Sent>,
  ): Promise<{ sent: Sent; rendered: Omit<RenderedMessage, 'blocks'>; render: Rendering }> {
    const rich = renderReply(reply, delivery);
    try {
      return { sent: await send(scrub(payload(rich), reply)), rendered: rich, render: renderReply };
    } catch (error) {
      const code = slackErrorCode(error);
      if (!code || !CONTENT_REFUSED.has(code)) throw error;
      logger.warn('Slack refused a message; sending it again as plain text', { slackError: code });
      const plain = renderPlainReply(reply, delivery);
      return { sent: await send(scrub(payload(plain), reply)), rendered: plain, render: renderPlainReply };
    }
  }

  const viaChat =
    (channelId: string, threadTs?: string) =>
    async (message: Message): Promise<Sent> => {
      const posted = await client.chat.postMessage({
        channel: channelId,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        ...message,
      });
      return { via: 'chat', ref: { channelId: posted.channel ?? channelId, ts: posted.ts ?? '' } };
    };

  /** A message sent by chat.postMessage or chat.update is corrected with chat.update. */
  const correctChat: Correct = async (sent, message) => {
    if (sent.via !== 'chat') return;
    try {
      await client.chat.update({ channel: sent.ref.channelId, ts: sent.ref.ts, ...message });
    } catch (error) {
      logger.warn('the message naming a failed file could not be corrected', {
        slackError: slackErrorCode(error),
      });
    }
  };

  /** The one place the bytes of Slack-bound files pass the secret registry, the reply's own secrets aside. */
  const fileScrub = (reply: Reply) => createFileScrub(secrets, reply.reveals ?? []);

  /** Uploads each file to `target`; returns the ones that failed, with Slack's reason. */
  async function upload(target: FileTarget, files: ReplyFile[], reply: Reply): Promise<Map<string, string>> {
    const failed = new Map<string, string>();
    for (const file of files) {
      try {
        await uploadFile(client, {
          ...target,
          filename: file.filename,
          title: scrub(file.title, reply),
          comment: file.comment === undefined ? undefined : scrub(file.comment, reply),
          path: file.path,
          content: file.content,
          scrub: fileScrub(reply),
        });
      } catch (error) {
        const code = slackErrorCode(error) ?? 'upload failed';
        logger.error('file upload failed', { filename: file.filename, slackError: code, error });
        failed.set(file.filename, code);
      }
    }
    return failed;
  }

  /** Uploads each picture with its alt text; returns the ones that failed, with Slack's reason. */
  async function uploadImages(
    target: FileTarget,
    images: ReplyImage[],
    reply: Reply,
  ): Promise<Map<string, string>> {
    const failed = new Map<string, string>();
    for (const image of images) {
      try {
        await uploadFile(client, {
          ...target,
          filename: image.filename,
          title: scrub(image.title, reply),
          altText: scrub(image.altText, reply),
          content: image.png,
          scrub: fileScrub(reply),
        });
      } catch (error) {
        const code = slackErrorCode(error) ?? 'upload failed';
        logger.warn('a picture could not be uploaded; its text form is shown instead', {
          filename: image.filename,
          slackError: code,
        });
        failed.set(image.filename, code);
      }
    }
    return failed;
  }

  /**
   * Sends a reply, then its pictures and files into `filesTo`. A failed file is named as such in
   * the message, and reported to the requester as an unexpected failure (with a correlation id);
   * a failed picture is shown in the message as its text form.
   */
  async function deliver(
    reply: Reply,
    delivery: FileDelivery,
    send: (message: Message) => Promise<Sent>,
    filesTo: () => Promise<FileTarget>,
    correct: Correct = correctChat,
  ): Promise<Sent> {
    const { sent, rendered, render } = await sendRendered(reply, delivery, send);
    if (rendered.files.length === 0 && rendered.images.length === 0) return sent;
    let failedImages: Map<string, string>;
    let failed: Map<string, string>;
    try {
      const target = await filesTo();
      failedImages = await uploadImages(target, rendered.images, reply);
      failed = await upload(target, rendered.files, reply);
    } catch (error) {
      const code = slackErrorCode(error) ?? 'no conversation for the files';
      failedImages = new Map(rendered.images.map((image) => [image.filename, code]));
      failed = new Map(rendered.files.map((file) => [file.filename, code]));
    }
    if (failed.size === 0 && failedImages.size === 0) return sent;
    await correct(
      sent,
      scrub(payload(render(reply, { ...delivery, failed: new Map([...failedImages, ...failed]) })), reply),
    );
    if (failed.size === 0) return sent;
    const names = [...failed].map(([name, code]) => `${name} (${code})`).join(', ');
    throw new OperationFailedError(
      `The file${failed.size === 1 ? '' : 's'} ${names} could not be uploaded; run the command again to get ${failed.size === 1 ? 'it' : 'them'}.`,
      true,
    );
  }

  /** Removes the temporary files of the reply and of its follow-ups, delivered or not. */
  async function cleanUp(reply: Reply): Promise<void> {
    const replies = [reply, ...(reply.thread ?? [])];
    await Promise.all(
      replies.flatMap((each) =>
        (each.files ?? []).flatMap((file) =>
          file.path ? [rm(file.path, { force: true }).catch(() => undefined)] : [],
        ),
      ),
    );
  }

  /**
   * Sends a reply's follow-ups after it: as replies in the thread of `sent` (or of `threadTs`, the
   * thread it was itself posted in), with their files there too; without a message to thread them
   * under, the same way the reply went.
   */
  async function deliverThread(
    reply: Reply,
    sent: Sent,
    sameWay: SameWay,
    threadTs?: string,
    deliverOne: typeof deliver = deliver,
    elsewhere?: (followUp: Reply, slackError: string) => Promise<unknown>,
  ): Promise<void> {
    for (const followUp of reply.thread ?? []) {
      try {
        if (sent.via === 'chat') {
          const target = { channelId: sent.ref.channelId, threadTs: threadTs ?? sent.ref.ts };
          await deliverOne(
            followUp,
            { place: 'below' },
            viaChat(target.channelId, target.threadTs),
            async () => target,
          );
        } else await deliverOne(followUp, sameWay.delivery, sameWay.send, sameWay.filesTo);
      } catch (error) {
        // A failed file is already named in the message sent; anything else lost the follow-up whole.
        if (!elsewhere || error instanceof OperationFailedError) throw error;
        const code = slackErrorCode(error) ?? 'no answer from Slack';
        logger.warn('a follow-up could not be sent after its headline; sending it another way', {
          slackError: code,
          error,
        });
        await elsewhere(followUp, code);
      }
    }
  }

  /** Posts a reply and its thread in a conversation (or in one of its threads). */
  async function postWithThread(channelId: string, reply: Reply, threadTs?: string): Promise<Sent> {
    const target = { channelId, ...(threadTs ? { threadTs } : {}) };
    const sameWay: SameWay = {
      delivery: { place: 'below' },
      send: viaChat(channelId, threadTs),
      filesTo: async () => target,
    };
    const sent = await deliver(reply, sameWay.delivery, sameWay.send, sameWay.filesTo);
    await deliverThread(reply, sent, sameWay, threadTs);
    return sent;
  }

  const messenger: Messenger = {
    async postToChannel(channelId, reply, threadTs) {
      try {
        const sent = await postWithThread(channelId, reply, threadTs);
        return sent.via === 'chat' ? sent.ref : undefined;
      } finally {
        await cleanUp(reply);
      }
    },
    async update(ref, reply) {
      try {
        const sameWay: SameWay = {
          delivery: { place: 'below' },
          send: async (message) => {
            await client.chat.update({ channel: ref.channelId, ts: ref.ts, ...message });
            return { via: 'chat', ref };
          },
          filesTo: async () => ({ channelId: ref.channelId }),
        };
        const sent = await deliver(reply, sameWay.delivery, sameWay.send, sameWay.filesTo);
        await deliverThread(reply, sent, sameWay);
      } finally {
        await cleanUp(reply);
      }
    },
    async sendDirect(userId, reply) {
      try {
        const sent = await postWithThread(await dmChannel(userId), reply);
        return sent.via === 'chat' ? sent.ref : undefined;
      } finally {
        await cleanUp(reply);
      }
    },
    async deleteMessage(ref) {
      await client.chat.delete({ channel: ref.channelId, ts: ref.ts });
    },
    async permalink(ref) {
      try {
        const answer = await client.chat.getPermalink({ channel: ref.channelId, message_ts: ref.ts });
        return answer.permalink;
      } catch (error) {
        logger.warn('Slack gave no link to a message', { slackError: slackErrorCode(error) });
        return undefined;
      }
    },
  };

  return {
    client,
    logger,
    dmChannel,
    scrub,
    deliver,
    deliverThread,
    viaChat,
    cleanUp,
    messenger,
  };
}

const refOf = (sent: Sent): MessageRef | undefined => (sent.via === 'chat' ? sent.ref : undefined);

/** Posts, updates and DMs anywhere, outside any request (the approval sweep, a shown card). */
export function createSlackMessenger(options: SlackMessengerOptions): Messenger {
  return slackDelivery(options).messenger;
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
  const delivery = slackDelivery(options);
  const { client, logger, dmChannel, scrub, viaChat, cleanUp, messenger } = delivery;
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

  /** Sends for this request: a message sent by response_url or ephemerally is corrected the same way. */
  const deliver = (...args: Parameters<typeof delivery.deliver>) =>
    delivery.deliver(args[0], args[1], args[2], args[3], correct);

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
    const channel = await dmChannel(options.userId);
    const sameWay: SameWay = {
      delivery: { place: 'below' },
      send: viaChat(channel),
      filesTo: async () => ({ channelId: channel }),
    };
    const sent = await deliver(moved, sameWay.delivery, sameWay.send, sameWay.filesTo);
    await delivery.deliverThread(moved, sent, sameWay, undefined, deliver);
    return sent;
  }

  /** A follow-up Slack would not take after its headline: to the requester's DM, saying so. */
  const followUpByDm = (followUp: Reply, slackError: string) =>
    toRequesterDm(followUp, `Slack did not take this part of the answer there (${slackError})`);

  const requesterDm = async (): Promise<FileTarget> => ({ channelId: await dmChannel(options.userId) });

  async function answerPrivately(reply: Reply): Promise<void> {
    const privately = (send: SameWay['send']): SameWay => ({
      delivery: { place: 'dm' },
      send,
      filesTo: requesterDm,
    });
    let sent: Sent | undefined;
    let sameWay = privately(viaEphemeral);
    if (options.respond) {
      try {
        const way = privately(viaResponseUrl(options.respond, 'ephemeral', reply.replaceOriginal ?? false));
        sent = await deliver(reply, way.delivery, way.send, way.filesTo);
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
        sent = await deliver(reply, sameWay.delivery, sameWay.send, sameWay.filesTo);
      } catch (error) {
        const why = CHANNEL_REASONS[slackErrorCode(error) ?? ''];
        if (!why) throw error;
        logger.warn('a private answer could not be shown in the channel; sending it by DM', {
          slackError: slackErrorCode(error),
        });
        await toRequesterDm(reply, why);
        return;
      }
    await delivery.deliverThread(reply, sent, sameWay, undefined, deliver, followUpByDm);
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
        if (!code || CONTENT_REFUSED.has(code) || CHANNEL_REASONS[code]) throw error;
        logger.warn('the progress message could not become the answer; posting the answer anew', {
          slackError: code,
        });
        return viaChat(options.channelId, options.threadTs)(message);
      }
    };

  /** Where a channel answer went: its message in the channel, or in the requester's DM when moved there. */
  async function postInChannel(reply: Reply): Promise<MessageRef | undefined> {
    const here: FileTarget = {
      channelId: options.channelId,
      ...(options.threadTs ? { threadTs: options.threadTs } : {}),
    };
    const inChannel: SameWay = {
      delivery: { place: 'below' },
      send: reply.inPlaceOf ? inPlaceOf(reply.inPlaceOf) : viaChat(options.channelId, options.threadTs),
      filesTo: async () => here,
    };
    let sent: Sent;
    let sameWay = inChannel;
    try {
      sent = await deliver(reply, inChannel.delivery, inChannel.send, inChannel.filesTo);
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
        sent = await deliver(reply, sameWay.delivery, sameWay.send, sameWay.filesTo);
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
    await delivery.deliverThread(reply, sent, sameWay, options.threadTs, deliver, followUpByDm);
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
          const channel = await dmChannel(options.userId);
          const sameWay: SameWay = {
            delivery: { place: 'below' },
            send: viaChat(channel),
            filesTo: async () => ({ channelId: channel }),
          };
          const sent = await deliver(reply, sameWay.delivery, sameWay.send, sameWay.filesTo);
          await delivery.deliverThread(reply, sent, sameWay, undefined, deliver);
          return sent.via === 'chat' ? sent.ref : undefined;
        }
        return await postInChannel(reply);
      } finally {
        await cleanUp(reply);
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
