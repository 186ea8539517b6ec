/**
 * What everything the bot sends to Slack shares: the client, the secret scrub, the DM channels
 * opened so far; what a message is, where it went and how a reply goes. Each verb that sends
 * (fallback.ts, files.ts, deliver.ts, messenger.ts, respond.ts, forms.ts) is handed this state.
 */
import type { WebClient } from '@slack/web-api';
import type { MessageRef, Reply } from '../reply/model.js';
import type { SecretRegistry } from '../secrets/registry.js';
import { scrubbed } from '../secrets/scrub.js';
import type { Logger } from '../telemetry/log.js';
import type { FileDelivery, RenderedMessage } from './blocks/reply.js';
import type { TablePolicy } from './tables.js';

export interface SlackMessengerOptions {
  client: WebClient;
  logger: Logger;
  secrets: SecretRegistry;
  /** Whether the workspace asking takes tables; without it every message tries them. */
  tables?: TablePolicy;
}

/** The state every send is handed: the client, the logger, the secrets, each user's DM channel once opened. */
export interface Outgoing extends SlackMessengerOptions {
  readonly dmChannels: Map<string, string>;
}

export const createOutgoing = ({ client, logger, secrets, tables }: SlackMessengerOptions): Outgoing => ({
  client,
  logger,
  secrets,
  ...(tables ? { tables } : {}),
  dmChannels: new Map(),
});

export type Message = { text: string; blocks?: RenderedMessage['blocks'] };

/** Where a message went, so that it can be corrected when one of its files fails. */
export type Sent =
  | { via: 'chat'; ref: MessageRef }
  | { via: 'response_url'; responseType: 'ephemeral' | 'in_channel' }
  | { via: 'ephemeral' };

export const refOf = (sent: Sent): MessageRef | undefined => (sent.via === 'chat' ? sent.ref : undefined);

/** A reply rendered for Slack: with blocks, or as plain text (without). */
export type Rendering = (
  reply: Reply,
  delivery: FileDelivery,
) => Omit<RenderedMessage, 'blocks'> & Partial<RenderedMessage>;

/** What was sent for a reply: where it went, what was rendered (its files are to follow), and how. */
export interface SentReply {
  sent: Sent;
  rendered: Omit<RenderedMessage, 'blocks'>;
  render: Rendering;
}

export const payload = (rendered: Omit<RenderedMessage, 'blocks'> & Partial<RenderedMessage>): Message =>
  rendered.blocks && rendered.blocks.length > 0
    ? { text: rendered.text, blocks: rendered.blocks }
    : { text: rendered.text };

/** Rewrites a sent message after the fact, so the files that failed are named as failed. */
export type Correct = (sent: Sent, message: Message) => Promise<void>;

/** Where a message's files and pictures go: a conversation, and in it a thread when given. */
export interface FileTarget {
  channelId: string;
  threadTs?: string;
}

/**
 * How a reply goes: how its message names its files, how the message is sent, where its files
 * go. A reply's follow-ups go the same way when it has no message of its own to thread them under.
 */
export interface Way {
  delivery: FileDelivery;
  send: (message: Message) => Promise<Sent>;
  filesTo: () => Promise<FileTarget>;
}

/** The one place Slack-bound text passes the secret registry, the secrets the reply delivers aside. */
export const scrub = <T>(slack: Outgoing, value: T, reply?: Reply): T =>
  scrubbed(slack.secrets, value, reply?.reveals ?? []);

/** The app's DM with a user, opened once. */
export async function dmChannel(slack: Outgoing, userId: string): Promise<string> {
  const known = slack.dmChannels.get(userId);
  if (known) return known;
  const opened = await slack.client.conversations.open({ users: userId });
  const id = opened.channel?.id;
  if (!id) throw new Error('conversations.open returned no channel');
  slack.dmChannels.set(userId, id);
  return id;
}

export const viaChat =
  (slack: Outgoing, channelId: string, threadTs?: string) =>
  async (message: Message): Promise<Sent> => {
    const posted = await slack.client.chat.postMessage({
      channel: channelId,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...message,
    });
    return { via: 'chat', ref: { channelId: posted.channel ?? channelId, ts: posted.ts ?? '' } };
  };

/** A reply posted in a conversation (or one of its threads), its files there too. */
export const inConversation = (slack: Outgoing, channelId: string, threadTs?: string): Way => ({
  delivery: { place: 'below' },
  send: viaChat(slack, channelId, threadTs),
  filesTo: async () => ({ channelId, ...(threadTs ? { threadTs } : {}) }),
});
