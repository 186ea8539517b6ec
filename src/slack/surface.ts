/**
 * The Slack implementation of Surface. Reply surfaces:
 * - ephemeral replies go through the command's response_url (works in any channel the
 *   command was typed in, member or not), or chat.postEphemeral where there is none;
 * - channel replies go through chat.postMessage, falling back to the response_url with
 *   response_type in_channel when the bot is not in the channel;
 * - secrets go to a DM opened with conversations.open;
 * - files go up with files.uploadV2's three steps (streamed, src/slack/upload.ts) into the channel (or the requester's DM when the reply
 *   was ephemeral, so that a private listing never lands in the channel).
 */
import { rm } from 'node:fs/promises';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log.js';
import { OperationFailedError } from '../operations/engine.js';
import type { ModalSpec } from '../operations/modal.js';
import type { Reply, ReplyFile } from '../operations/reply.js';
import type { MessageRef, Surface } from '../operations/types.js';
import { wrapMetadata } from './blocks/metadata.js';
import { renderModal } from './blocks/modal.js';
import { renderReply } from './blocks/reply.js';
import type { PostResponse } from './response-url.js';
import { UploadError, uploadFile } from './upload.js';

export interface SlackSurfaceOptions {
  client: WebClient;
  userId: string;
  channelId: string;
  /** Answers through the command's or button's response_url, when there is one. */
  respond?: PostResponse;
  triggerId?: string;
  logger: Logger;
}

const slackError = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'data' in error
    ? ((error as { data?: { error?: string } }).data?.error ?? undefined)
    : undefined;

export function createSlackSurface(options: SlackSurfaceOptions): Surface {
  const { client, logger } = options;
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

  async function upload(channelId: string, files: ReplyFile[]): Promise<void> {
    for (const file of files) {
      try {
        await uploadFile(client, {
          channelId,
          filename: file.filename,
          title: file.title,
          comment: file.comment,
          path: file.path,
          content: file.content,
        });
      } catch (error) {
        logger.error('file upload failed', { filename: file.filename, error });
        throw new OperationFailedError(
          `The file ${file.filename} could not be uploaded (${slackError(error) ?? (error instanceof UploadError ? error.code : 'upload failed')}); run the command again to get it.`,
          true,
        );
      } finally {
        if (file.path) await rm(file.path, { force: true });
      }
    }
  }

  async function post(channelId: string, reply: Reply): Promise<MessageRef | undefined> {
    const message = renderReply(reply);
    const posted = await client.chat.postMessage({
      channel: channelId,
      text: message.text,
      blocks: message.blocks,
    });
    const files = [...(reply.files ?? [])];
    if (message.overflow)
      files.unshift({ filename: 'full-reply.txt', title: 'Full reply', content: message.overflow });
    if (files.length > 0) await upload(posted.channel ?? channelId, files);
    return posted.ts ? { channelId: posted.channel ?? channelId, ts: posted.ts } : undefined;
  }

  async function ephemeral(reply: Reply): Promise<void> {
    const message = renderReply(reply);
    if (options.respond) {
      await options.respond({
        response_type: 'ephemeral',
        replace_original: reply.replaceOriginal ?? false,
        text: message.text,
        blocks: message.blocks,
      });
    } else {
      await client.chat.postEphemeral({
        channel: options.channelId,
        user: options.userId,
        text: message.text,
        blocks: message.blocks,
      });
    }
    const files = [...(reply.files ?? [])];
    if (message.overflow)
      files.unshift({ filename: 'full-reply.txt', title: 'Full reply', content: message.overflow });
    if (files.length > 0) await upload(await dmChannel(options.userId), files);
  }

  return {
    async respond(reply) {
      if (reply.visibility === 'ephemeral') {
        await ephemeral(reply);
        return undefined;
      }
      if (reply.visibility === 'dm') return post(await dmChannel(options.userId), reply);
      try {
        return await post(options.channelId, reply);
      } catch (error) {
        const code = slackError(error);
        if ((code === 'not_in_channel' || code === 'channel_not_found') && options.respond) {
          logger.warn('bot is not in the channel; answering through the response URL', { code });
          const message = renderReply(reply);
          await options.respond({ response_type: 'in_channel', text: message.text, blocks: message.blocks });
          return undefined;
        }
        throw error;
      }
    },
    postToChannel: (channelId, reply) => post(channelId, reply),
    async update(ref, reply) {
      const message = renderReply(reply);
      await client.chat.update({
        channel: ref.channelId,
        ts: ref.ts,
        text: message.text,
        blocks: message.blocks,
      });
    },
    async sendDirect(userId, reply) {
      await post(await dmChannel(userId), reply);
    },
    async openModal(modal: ModalSpec) {
      if (!options.triggerId) throw new Error('a form can only be opened from a command or a button');
      const view = renderModal({
        ...modal,
        privateMetadata: wrapMetadata(options.channelId, modal.privateMetadata),
      });
      try {
        await client.views.open({ trigger_id: options.triggerId, view });
      } catch (error) {
        const code = slackError(error);
        if (code === 'expired_trigger_id' || code === 'exchanged_trigger_id' || code === 'invalid_trigger_id')
          throw new OperationFailedError(
            `The form “${modal.title}” could not be opened in time (Slack allows 3 seconds); run the command again.`,
          );
        throw error;
      }
    },
  };
}
