/**
 * A fitted reply (src/reply/fit.ts) as Block Kit: one Slack block per fitted block, with the
 * notes naming each file and where it went. What is shown and what goes to a file is decided
 * by fitReply, the same way for every adapter; this module only knows Block Kit.
 */
import type { types } from '@slack/bolt';
import { codeBlock, escapeMrkdwn } from '../../reply/escape.js';
import { type FileDelivery, fileNotes, imageNotes } from '../../reply/files.js';
import { type FittedBlock, fitReply } from '../../reply/fit.js';
import { isSafeLink, type Markup, md } from '../../reply/markup.js';
import {
  MENU_ACTION,
  type Reply,
  type ReplyButton,
  type ReplyCell,
  type ReplyColumn,
  type ReplyFile,
  type ReplyImage,
  type ReplyMenuOption,
} from '../../reply/model.js';
import { plainReply } from '../../reply/plain.js';
import { cellField, replyWithTablesAsCode } from '../../reply/table.js';

type Block = types.Block;
type KnownBlock = types.KnownBlock;

export type { FileDelivery };

export interface RenderedMessage {
  /** The notification text: plain, escaped. */
  text: string;
  blocks: (KnownBlock | Block)[];
  /** Every file to deliver with the message: the reply's own, and the whole reply when cut. */
  files: ReplyFile[];
  /** Pictures to upload below the message, each with its alt text; the others are in the blocks as text. */
  images: ReplyImage[];
  /** Set when something did not fit: the whole reply as plain text (also in `files`). */
  overflow?: string;
}

const plainText = (text: string) => ({ type: 'plain_text' as const, text, emoji: true });
const mrkdwn = (text: string) => ({ type: 'mrkdwn' as const, text });

function button(b: ReplyButton) {
  return {
    type: 'button' as const,
    text: plainText(b.text),
    action_id: b.actionId,
    value: b.value,
    ...(b.style ? { style: b.style } : {}),
    ...(b.confirm
      ? {
          confirm: {
            title: { type: 'plain_text' as const, text: b.confirm.title },
            text: mrkdwn(b.confirm.text),
            confirm: { type: 'plain_text' as const, text: b.confirm.confirm },
            deny: { type: 'plain_text' as const, text: b.confirm.deny },
          },
        }
      : {}),
  };
}

/** A member id as Slack writes one; anything else is shown as text, never as a mention. */
const SLACK_USER_ID = /^[UW][A-Z0-9]+$/;

/** A rich_text cell holding one element: its text is never read as mrkdwn, so it cannot ping. */
const richCell = (element: types.RichTextElement): types.RichTextBlock => ({
  type: 'rich_text',
  elements: [{ type: 'rich_text_section', elements: [element] }],
});

/**
 * Platform text stays text: a raw_text cell cannot mention, link or format. Links (https only) and
 * members are rich_text elements of our own; any other is shown as its text.
 */
function tableCell(cell: ReplyCell, column: ReplyColumn | undefined) {
  if (typeof cell === 'number' && column?.kind === 'number' && Number.isFinite(cell))
    return { type: 'raw_number' as const, value: cell, text: String(cell) };
  if (typeof cell === 'object' && 'url' in cell && isSafeLink(cell.url))
    return richCell({ type: 'link', url: cell.url, text: cell.text });
  if (typeof cell === 'object' && 'user' in cell && SLACK_USER_ID.test(cell.user))
    return richCell({ type: 'user', user_id: cell.user });
  return { type: 'raw_text' as const, text: cellField(cell) };
}

function tableBlock(block: Extract<FittedBlock, { type: 'table' }>): KnownBlock {
  return {
    type: 'table',
    rows: [
      block.columns.map((column) => ({ type: 'raw_text' as const, text: column.header })),
      ...block.rows.map((row) => row.map((cell, i) => tableCell(cell, block.columns[i]))),
    ],
    column_settings: block.columns.map((column) =>
      column.kind === 'number' ? { align: 'right' as const } : { align: 'left' as const, is_wrapped: true },
    ),
  };
}

/** What a menu option carries back: the action id and value of the button it stands for. */
export const menuOptionValue = (option: ReplyMenuOption): string => `${option.actionId} ${option.value}`;

/** The button a picked option stands for; undefined for a value no menu of ours made. */
export function pickedButton(value: string): { actionId: string; value: string } | undefined {
  const space = value.indexOf(' ');
  if (space <= 0) return undefined;
  return { actionId: value.slice(0, space), value: value.slice(space + 1) };
}

function menuBlock(block: Extract<FittedBlock, { type: 'menu' }>): KnownBlock {
  return {
    type: 'actions',
    elements: [
      {
        type: 'static_select',
        action_id: MENU_ACTION,
        placeholder: { type: 'plain_text', text: block.placeholder },
        option_groups: block.groups.map((group) => ({
          label: { type: 'plain_text' as const, text: group.label },
          options: group.options.map((option) => ({
            text: { type: 'plain_text' as const, text: option.text },
            value: menuOptionValue(option),
          })),
        })),
      },
    ],
  };
}

function toBlock(block: FittedBlock): KnownBlock {
  switch (block.type) {
    case 'header':
      return { type: 'header', text: plainText(block.text) };
    case 'text':
      return { type: 'section', text: mrkdwn(block.text) };
    case 'code':
      return { type: 'section', text: mrkdwn(codeBlock(block.text, Number.POSITIVE_INFINITY)) };
    case 'fields':
      return {
        type: 'section',
        fields: block.fields.map((field) => mrkdwn(`*${field.label}*\n${field.value}`)),
      };
    case 'context':
      return { type: 'context', elements: block.texts.map(mrkdwn) };
    case 'divider':
      return { type: 'divider' };
    case 'actions':
      return { type: 'actions', elements: block.buttons.map(button) };
    case 'table':
      return tableBlock(block);
    case 'menu':
      return menuBlock(block);
  }
}

const escapedNotes =
  (delivery: FileDelivery) =>
  (files: readonly ReplyFile[], images: readonly ReplyImage[]): Markup[] =>
    [...imageNotes(images, delivery), ...fileNotes(files, delivery)].map((note) => md`${note}`);

/**
 * A picture is uploaded wherever the message's files go (below it, or to the requester's DM with
 * them, and the note says which); one whose upload failed is shown in the message as its text form.
 */
const uploadsImage =
  (delivery: FileDelivery) =>
  (image: ReplyImage): boolean =>
    !delivery.failed?.has(image.filename);

export function renderReply(reply: Reply, delivery: FileDelivery = { place: 'below' }): RenderedMessage {
  const fitted = fitReply(reply, { notes: escapedNotes(delivery), uploadImage: uploadsImage(delivery) });
  return {
    // The notification text is plain and may carry platform text: escaped like the blocks.
    text: escapeMrkdwn(fitted.text),
    blocks: fitted.blocks.map(toBlock),
    files: fitted.files,
    images: fitted.images,
    overflow: fitted.overflow,
  };
}

/** The reply with its tables as aligned text in code blocks: for where Slack will not draw a table. */
export const renderReplyWithoutTables = (
  reply: Reply,
  delivery: FileDelivery = { place: 'below' },
): RenderedMessage => renderReply(replyWithTablesAsCode(reply), delivery);

/**
 * The same reply with no blocks at all, for when Slack refused the rich message: plain text
 * with the file notes, escaped, within what Slack recommends.
 */
export function renderPlainReply(
  reply: Reply,
  delivery: FileDelivery = { place: 'below' },
): Omit<RenderedMessage, 'blocks'> {
  const plain = plainReply(reply, (files) => fileNotes(files, delivery));
  // Pictures are in the plain text as their text form.
  return { text: escapeMrkdwn(plain.text), files: plain.files, images: [], overflow: plain.overflow };
}
