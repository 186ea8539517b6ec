/**
 * What an operation answers, independent of Slack or the console. Adapters render it:
 * the Slack adapter into Block Kit (src/slack/blocks), the console into text.
 */
import type { Markup } from './markup.js';

export interface ReplyButton {
  text: string;
  /** Routed back to the operation that rendered it: `${operationKey}:${name}`, plus `#suffix` when
   * several buttons of one block share a handler (Slack wants action ids unique per block). */
  actionId: string;
  /** Small and free of secrets: an id or a page number, never parameters of a change. */
  value: string;
  style?: 'primary' | 'danger';
  confirm?: { title: string; text: string; confirm: string; deny: string };
}

export type ReplyBlock =
  | { type: 'header'; text: string }
  | { type: 'text'; text: Markup }
  | { type: 'fields'; fields: { label: string; value: Markup }[] }
  /** Preformatted text; adapters escape it. */
  | { type: 'code'; text: string }
  | { type: 'context'; text: Markup }
  | { type: 'divider' }
  | { type: 'actions'; buttons: ReplyButton[] };

export interface ReplyFile {
  filename: string;
  title: string;
  /** A file on disk (removed by the adapter after upload) or content in memory. */
  path?: string;
  content?: string | Buffer;
  comment?: string;
}

export interface Reply {
  /** ephemeral: the requester only; channel: everyone in the channel; dm: the requester's DM. */
  visibility: 'ephemeral' | 'channel' | 'dm';
  /** Notification and fallback text (plain). */
  text: string;
  blocks: ReplyBlock[];
  files?: ReplyFile[];
  /** For paging buttons: replace the message the button was on. */
  replaceOriginal?: boolean;
}

export const ephemeral = (text: string, blocks: ReplyBlock[] = []): Reply => ({
  visibility: 'ephemeral',
  text,
  blocks,
});
export const inChannel = (text: string, blocks: ReplyBlock[] = []): Reply => ({
  visibility: 'channel',
  text,
  blocks,
});
