/**
 * What goes instead when Slack refuses (PRODUCT §6). A message or a Home whose content Slack
 * refuses (invalid_blocks, invalid_arguments, msg_too_long) is sent again as plain text, each
 * fallback logged once with Slack's error; a channel the bot cannot post in sends the answer
 * another way (respond.ts).
 */
import type { Reply } from '../reply/model.js';
import { hasTable } from '../reply/table.js';
import type { LogFields, Logger } from '../telemetry/log.js';
import {
  type FileDelivery,
  renderPlainReply,
  renderReply,
  renderReplyWithoutTables,
} from './blocks/reply.js';
import {
  type Message,
  type Outgoing,
  payload,
  type Rendering,
  type Sent,
  type SentReply,
  scrub,
} from './outgoing.js';
import { ResponseUrlError } from './response-url.js';
import { refusesTable } from './tables.js';
import { UploadError } from './upload.js';

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
  // The blocks are longer than Slack takes, below the documented limits (about 13,000 characters).
  'msg_blocks_too_long',
  'no_text',
]);
/** Slack refused the content of a message or view (not the channel, nor the token). */
export const isContentRefusal = (error: unknown): boolean => CONTENT_REFUSED.has(slackErrorCode(error) ?? '');

/** The channel is the problem: the answer goes another way. */
export const CHANNEL_REASONS: Readonly<Record<string, string>> = {
  not_in_channel: 'the bot is not in that channel',
  channel_not_found: 'the bot cannot see that channel',
  is_archived: 'that channel is archived',
  // Slack's restrictions on who posts where and how (chat.postMessage's errors).
  restricted_action: 'the workspace does not let the bot post in that channel',
  restricted_action_read_only_channel: 'that channel is read-only',
  restricted_action_thread_only_channel: 'that channel takes messages in threads only',
  restricted_action_non_threadable_channel: 'that channel takes no thread replies',
  no_permission: 'the bot has no permission to post in that channel',
};

/**
 * The one plain-text fallback: sends the rich form; when Slack refuses its content, logs that
 * once with Slack's error and sends the plain form instead. Any other failure is thrown.
 */
export async function withPlainFallback<T>(
  send: { rich: () => Promise<T>; plain: () => Promise<T> },
  refused: { logger: Logger; message: string; fields?: LogFields },
): Promise<T> {
  try {
    return await send.rich();
  } catch (error) {
    if (!isContentRefusal(error)) throw error;
    refused.logger.warn(refused.message, { ...refused.fields, slackError: slackErrorCode(error) });
    return send.plain();
  }
}

/**
 * Sends the rendered reply; when Slack refuses its table, sends it again with its tables as code
 * blocks (and remembers the workspace refuses them); when Slack refuses its content, as plain
 * text. Returns where it went and what was sent (whose files are to follow it).
 */
export async function sendRendered(
  slack: Outgoing,
  reply: Reply,
  delivery: FileDelivery,
  send: (message: Message) => Promise<Sent>,
): Promise<SentReply> {
  const sendAs = (render: Rendering) => async (): Promise<SentReply> => {
    const rendered = render(reply, delivery);
    return { sent: await send(scrub(slack, payload(rendered), reply)), rendered, render };
  };
  const withoutTables = () =>
    withPlainFallback(
      { rich: sendAs(renderReplyWithoutTables), plain: sendAs(renderPlainReply) },
      { logger: slack.logger, message: 'Slack refused a message; sending it again as plain text' },
    );
  const tables = slack.tables;
  if (!hasTable(reply) || tables?.memory.refused(tables.teamId)) return withoutTables();
  try {
    return await sendAs(renderReply)();
  } catch (error) {
    const code = slackErrorCode(error);
    if (!refusesTable(code)) {
      // Refused for something else than its table (too long, no text, …): plain text, as any reply.
      if (!isContentRefusal(error)) throw error;
      slack.logger.warn('Slack refused a message; sending it again as plain text', { slackError: code });
      return sendAs(renderPlainReply)();
    }
    if (tables) tables.memory.remember(tables.teamId, code ?? '');
    else
      slack.logger.warn('Slack refused a table; sending the answer again with code blocks', {
        slackError: code,
      });
    return withoutTables();
  }
}
