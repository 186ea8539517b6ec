/**
 * What an operation answers, independent of Slack or the console. Adapters render it:
 * the Slack adapter into Block Kit (src/slack/blocks), the console into text.
 */
import type { FileSecretCount } from '../secrets/file-scrub.js';
import type { Markup } from './markup.js';

/**
 * The action id of a button that runs a command line (its value) as if the clicker had typed
 * it: next steps on a listing, items of a menu. The same policy, audit and approvals apply.
 */
export const RUN_COMMAND_ACTION = 'edge:run';

/** A button that runs `/edge <command>` for whoever clicks it. */
export const commandButton = (text: string, command: string, style?: 'primary' | 'danger'): ReplyButton => ({
  text,
  actionId: RUN_COMMAND_ACTION,
  value: command,
  ...(style ? { style } : {}),
});

/**
 * The action id of a menu below a table. Its options are buttons the adapter carries in each
 * option's value (`${actionId} ${value}`), so a pick runs what that button would.
 */
export const MENU_ACTION = 'edge:menu';

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
  /**
   * Buttons. `closing` ones act on the whole message (paging) and stay when what is above them is
   * cut to fit; any others belong to the blocks just above them and are cut with those.
   */
  | { type: 'actions'; buttons: ReplyButton[]; closing?: boolean }
  /** A picture in its place among the blocks; see ReplyImage for how each adapter shows it. */
  | { type: 'image'; image: ReplyImage }
  /** Rows under headers; see ReplyTable for how each adapter shows it. */
  | { type: 'table'; table: ReplyTable }
  /**
   * One menu of next steps below a table, which has no buttons of its own: each group names a
   * row. Never an approval decision: Approve and Reject stay buttons beside what they decide.
   */
  | { type: 'menu'; placeholder: string; groups: ReplyMenuGroup[] };

/** A menu option: a button without a style or a confirmation, which a menu cannot carry. */
export type ReplyMenuOption = Pick<ReplyButton, 'text' | 'actionId' | 'value'>;

export interface ReplyMenuGroup {
  /** Plain: the row the options act on. */
  label: string;
  options: ReplyMenuOption[];
}

/** How a column's cells read: numbers are right-aligned; text (ids, hosts, names) is left as it is. */
export type ReplyColumnKind = 'text' | 'number';

export interface ReplyColumn {
  header: string;
  kind: ReplyColumnKind;
}

/**
 * A cell: plain text from the platform (never markup), a number a number column shows as it is,
 * a link, or a Slack member.
 */
export type ReplyCell = string | number | ReplyLinkCell | ReplyUserCell;

/** Our own plain words linking to a page the transport gave (a request's card); never markup. */
export interface ReplyLinkCell {
  text: string;
  url: string;
}

/** A Slack member by an id the bot holds: Slack shows their name, every text form the id. */
export interface ReplyUserCell {
  user: string;
}

/**
 * A table: Slack draws it as a `table` block (one a message), the console and every plain form as
 * aligned text. Rows past what a message holds are named in it, with the file that has them all.
 */
export interface ReplyTable {
  columns: ReplyColumn[];
  rows: ReplyCell[][];
  /** The filename of one of the reply's files that holds every row (a CSV), for when not all fit. */
  file?: string;
  /** How many rows that file holds, when more than `rows` (a result the reply keeps only the start of). */
  totalRows?: number;
}

/**
 * A picture (a chart) with its text form. An adapter that shows pictures uploads the PNG, with
 * its alt text, beside the message; everywhere else (the console, a plain-text fallback, a
 * picture whose upload failed) the title and `text` stand in its place.
 */
export interface ReplyImage {
  filename: string;
  /** Plain; adapters escape it. */
  title: string;
  png: Buffer;
  /** Plain: what the picture shows, in words, for screen readers. */
  altText: string;
  /** The same content as preformatted text, e.g. the text bars of a chart. */
  text: string;
}

export interface ReplyFile {
  filename: string;
  title: string;
  /** A file on disk (removed by the adapter after upload) or content in memory. */
  path?: string;
  content?: string | Buffer;
  /** Plain text; the adapter escapes it. */
  comment?: string;
  /** The bot's secrets in the file at `path`, counted as it was written: the adapter need not read it twice. */
  secretCount?: FileSecretCount;
  /**
   * What the file holds, in a few plain words ("all 177 entries"). The adapter names the file
   * in the message with this and says where it went, so operations never claim a file
   * themselves: a message never names a file that was not delivered.
   */
  about?: string;
}

/** Where a message went, so that it can be updated later (progress, approval cards). */
export interface MessageRef {
  channelId: string;
  ts: string;
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
  /**
   * Follow-ups that belong under this reply, in its thread: a compact headline in the channel,
   * the breakdown and the files below it. Slack posts them as replies to this message (or in the
   * thread it was asked in); the console prints them after it, marked as its thread. Each goes
   * where this reply went, with the same visibility.
   */
  thread?: Reply[];
  /**
   * A message already shown (a long job's progress message) that this reply takes the place of:
   * updated in place, not posted anew. Adapters post it anew when that message cannot be updated.
   */
  inPlaceOf?: MessageRef;
  /**
   * The answer refuses what was asked (a click someone may not make): the audit row says
   * `refused`, with this reply's text, not that it was done.
   */
  refused?: boolean;
  /**
   * The answer files an approval request (this id) instead of doing what was asked: the audit
   * row says `requested`, not that it ran.
   */
  requested?: string;
  /**
   * The answer says that what was asked was cancelled before it finished (a long job's Cancel):
   * the audit row says `cancelled`, not that it ran, and an approval that ran it says so too.
   */
  cancelled?: boolean;
  /**
   * Secrets this reply exists to deliver (a new key, in a DM to the person who asked). Every
   * other registered secret is scrubbed from whatever the adapter sends.
   */
  reveals?: readonly string[];
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
