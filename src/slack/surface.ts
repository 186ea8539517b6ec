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
 * - Everything sent passes the secret registry, except the secrets a reply exists to deliver.
 * - Temporary files of a reply are removed whatever happens.
 */
import { rm } from 'node:fs/promises';
import type { WebClient } from '@slack/web-api';
import type { Logger, SecretRegistry } from '../log.js';
import { OperationFailedError } from '../operations/engine.js';
import type { ModalSpec } from '../operations/modal.js';
import type { MessageRef, Surface } from '../operations/types.js';
import { channelRef, md, nest } from '../reply/markup.js';
import type { Reply, ReplyFile } from '../reply/model.js';
import { wrapMetadata } from './blocks/metadata.js';
import { renderModal } from './blocks/modal.js';
import { type FileDelivery, type RenderedMessage, renderPlainReply, renderReply } from './blocks/reply.js';
import { type PostResponse, ResponseUrlError } from './response-url.js';
import { UploadError, uploadFile } from './upload.js';

export interface SlackSurfaceOptions {
  client: WebClient;
  userId: string;
  channelId: string;
  /** Answers through the command's or button's response_url, when there is one. */
  respond?: PostResponse;
  triggerId?: string;
  logger: Logger;
  secrets: SecretRegistry;
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

/** Applies `change` to every string in a JSON-like value. */
function mapStrings<T>(value: T, change: (text: string) => string): T {
  if (typeof value === 'string') return change(value) as T;
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, change)) as T;
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [key, mapStrings(child, change)]),
    ) as T;
  return value;
}

export function createSlackSurface(options: SlackSurfaceOptions): Surface {
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
  const scrub = <T>(value: T, reply?: Reply): T =>
    mapStrings(value, (text) => secrets.redact(text, reply?.reveals ?? []));

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
    (channelId: string) =>
    async (message: Message): Promise<Sent> => {
      const posted = await client.chat.postMessage({ channel: channelId, ...message });
      return { via: 'chat', ref: { channelId: posted.channel ?? channelId, ts: posted.ts ?? '' } };
    };

  const viaResponseUrl =
    (respond: PostResponse, responseType: 'ephemeral' | 'in_channel', replaceOriginal: boolean) =>
    async (message: Message): Promise<Sent> => {
      await respond({ response_type: responseType, replace_original: replaceOriginal, ...message });
      return { via: 'response_url', responseType };
    };

  const viaEphemeral = async (message: Message): Promise<Sent> => {
    await client.chat.postEphemeral({ channel: options.channelId, user: options.userId, ...message });
    return { via: 'ephemeral' };
  };

  /** Rewrites a sent message after the fact: the files that failed are named as failed. */
  async function correct(sent: Sent, message: Message): Promise<void> {
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
  }

  /** Uploads each file into `channelId`; returns the ones that failed, with Slack's reason. */
  async function upload(channelId: string, files: ReplyFile[], reply: Reply): Promise<Map<string, string>> {
    const failed = new Map<string, string>();
    for (const file of files) {
      try {
        await uploadFile(client, {
          channelId,
          filename: file.filename,
          title: scrub(file.title, reply),
          comment: file.comment === undefined ? undefined : scrub(file.comment, reply),
          path: file.path,
          content: file.content,
        });
      } catch (error) {
        const code = slackErrorCode(error) ?? 'upload failed';
        logger.error('file upload failed', { filename: file.filename, slackError: code, error });
        failed.set(file.filename, code);
      }
    }
    return failed;
  }

  /**
   * Sends a reply, then its files into `filesTo`. A failed file is named as such in the message,
   * and reported to the requester as an unexpected failure (with a correlation id).
   */
  async function deliver(
    reply: Reply,
    delivery: FileDelivery,
    send: (message: Message) => Promise<Sent>,
    filesTo: () => Promise<string>,
  ): Promise<Sent> {
    const { sent, rendered, render } = await sendRendered(reply, delivery, send);
    if (rendered.files.length === 0) return sent;
    let failed: Map<string, string>;
    try {
      failed = await upload(await filesTo(), rendered.files, reply);
    } catch (error) {
      const code = slackErrorCode(error) ?? 'no conversation for the files';
      failed = new Map(rendered.files.map((file) => [file.filename, code]));
    }
    if (failed.size === 0) return sent;
    await correct(sent, scrub(payload(render(reply, { ...delivery, failed })), reply));
    const names = [...failed].map(([name, code]) => `${name} (${code})`).join(', ');
    throw new OperationFailedError(
      `The file${failed.size === 1 ? '' : 's'} ${names} could not be uploaded; run the command again to get ${failed.size === 1 ? 'it' : 'them'}.`,
      true,
    );
  }

  /** The answer, whole, in the requester's DM, saying why it is there. */
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
    return deliver(moved, { place: 'below' }, viaChat(channel), async () => channel);
  }

  async function answerPrivately(reply: Reply): Promise<void> {
    const delivery: FileDelivery = { place: 'dm' };
    const filesTo = () => dmChannel(options.userId);
    if (options.respond) {
      try {
        await deliver(
          reply,
          delivery,
          viaResponseUrl(options.respond, 'ephemeral', reply.replaceOriginal ?? false),
          filesTo,
        );
        return;
      } catch (error) {
        // An expired or used response_url: the same answer by the Web API instead.
        if (!(error instanceof ResponseUrlError)) throw error;
        logger.warn('the response URL refused the answer; answering with chat.postEphemeral', {
          slackError: error.code,
        });
      }
    }
    try {
      await deliver(reply, delivery, viaEphemeral, filesTo);
    } catch (error) {
      const why = CHANNEL_REASONS[slackErrorCode(error) ?? ''];
      if (!why) throw error;
      logger.warn('a private answer could not be shown in the channel; sending it by DM', {
        slackError: slackErrorCode(error),
      });
      await toRequesterDm(reply, why);
    }
  }

  async function postInChannel(reply: Reply): Promise<MessageRef | undefined> {
    try {
      const sent = await deliver(
        reply,
        { place: 'below' },
        viaChat(options.channelId),
        async () => options.channelId,
      );
      return sent.via === 'chat' ? sent.ref : undefined;
    } catch (error) {
      const code = slackErrorCode(error) ?? '';
      const why = CHANNEL_REASONS[code];
      if (!why) throw error;
      if (options.respond) {
        logger.warn('cannot post in the channel; answering through the response URL', { slackError: code });
        // Slack shows a response_url answer in the channel; files cannot follow it there.
        await deliver(
          reply,
          { place: 'dm', why: why.replace('that channel', 'this channel') },
          viaResponseUrl(options.respond, 'in_channel', false),
          () => dmChannel(options.userId),
        );
        return undefined;
      }
      logger.warn('cannot post in the channel; sending the answer by DM', { slackError: code });
      await toRequesterDm(reply, why);
      return undefined;
    }
  }

  /** Removes the reply's temporary files, delivered or not. */
  async function cleanUp(reply: Reply): Promise<void> {
    await Promise.all(
      (reply.files ?? []).flatMap((file) =>
        file.path ? [rm(file.path, { force: true }).catch(() => undefined)] : [],
      ),
    );
  }

  return {
    async respond(reply) {
      try {
        if (reply.visibility === 'ephemeral') {
          await answerPrivately(reply);
          return undefined;
        }
        if (reply.visibility === 'dm') {
          const channel = await dmChannel(options.userId);
          const sent = await deliver(reply, { place: 'below' }, viaChat(channel), async () => channel);
          return sent.via === 'chat' ? sent.ref : undefined;
        }
        return await postInChannel(reply);
      } finally {
        await cleanUp(reply);
      }
    },
    async postToChannel(channelId, reply) {
      try {
        const sent = await deliver(reply, { place: 'below' }, viaChat(channelId), async () => channelId);
        return sent.via === 'chat' ? sent.ref : undefined;
      } finally {
        await cleanUp(reply);
      }
    },
    async update(ref, reply) {
      try {
        await deliver(
          reply,
          { place: 'below' },
          async (message) => {
            await client.chat.update({ channel: ref.channelId, ts: ref.ts, ...message });
            return { via: 'chat', ref };
          },
          async () => ref.channelId,
        );
      } finally {
        await cleanUp(reply);
      }
    },
    async sendDirect(userId, reply) {
      try {
        const channel = await dmChannel(userId);
        await deliver(reply, { place: 'below' }, viaChat(channel), async () => channel);
      } finally {
        await cleanUp(reply);
      }
    },
    async openModal(modal: ModalSpec) {
      if (!options.triggerId) throw new Error('a form can only be opened from a command or a button');
      const view = scrub(
        renderModal({ ...modal, privateMetadata: wrapMetadata(options.channelId, modal.privateMetadata) }),
      );
      try {
        await client.views.open({ trigger_id: options.triggerId, view });
      } catch (error) {
        const code = slackErrorCode(error);
        if (code === 'expired_trigger_id' || code === 'exchanged_trigger_id' || code === 'invalid_trigger_id')
          throw new OperationFailedError(
            `The form “${modal.title}” could not be opened in time (Slack allows 3 seconds); run the command again.`,
          );
        throw error;
      }
    },
  };
}
