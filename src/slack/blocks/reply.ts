/**
 * Turns the adapter-agnostic Reply into Block Kit, inside Slack's limits and rules. Nothing is
 * cut silently: whatever does not fit (a long line, a long code block, blocks past the budget)
 * makes the whole reply travel as a file too, and the message says so. Every file the reply
 * carries is named in the message with where it went, so a message never names a file that
 * was not delivered (PRODUCT §6).
 */
import type { types } from '@slack/bolt';

type Block = types.Block;
type KnownBlock = types.KnownBlock;

import { markupToPlain } from '../../operations/markup.js';
import type { Reply, ReplyBlock, ReplyButton, ReplyFile } from '../../operations/reply.js';
import { codeBlock, escapeMrkdwn, truncate } from '../escape.js';
import {
  ACTIONS_MAX_ELEMENTS,
  BUTTON_TEXT_MAX,
  BUTTON_VALUE_MAX,
  CONFIRM_BUTTON_MAX,
  CONFIRM_TEXT_MAX,
  CONFIRM_TITLE_MAX,
  CONTEXT_MAX_ELEMENTS,
  HEADER_TEXT_MAX,
  MESSAGE_MAX_BLOCKS,
  MESSAGE_TEXT_BUDGET,
  MESSAGE_TEXT_RECOMMENDED_MAX,
  SECTION_FIELD_TEXT_MAX,
  SECTION_MAX_FIELDS,
  SECTION_TEXT_MAX,
} from '../limits.js';

/** Where a message's files went: below it in the same conversation, or to the requester's DM. */
export interface FileDelivery {
  place: 'below' | 'dm';
  /** Why the files went to the DM, said in the message ("the bot is not in this channel"). */
  why?: string;
  /** Files that could not be delivered, with the reason; the message says so instead. */
  failed?: ReadonlyMap<string, string>;
}

export interface RenderedMessage {
  /** The notification text: plain, escaped. */
  text: string;
  blocks: (KnownBlock | Block)[];
  /** Every file to deliver with the message: the reply's own, and the whole reply when cut. */
  files: ReplyFile[];
  /** Set when something did not fit: the whole reply as plain text (also in `files`). */
  overflow?: string;
}

export const OVERFLOW_FILENAME = 'full-reply.txt';
/** An empty text object is refused by Slack; what an empty value shows instead. */
const NOTHING = '—';

/** Block Kit for one reply block, and whether any of its text had to be cut to fit. */
interface Converted {
  blocks: KnownBlock[];
  cut: boolean;
}

/** Cuts `text` to `max`, reporting the cut. */
function clip(text: string, max: number, cut: { value: boolean }): string {
  if (text.length <= max) return text;
  cut.value = true;
  return truncate(text, max);
}

function button(b: ReplyButton, actionId: string) {
  return {
    type: 'button' as const,
    text: { type: 'plain_text' as const, text: truncate(b.text, BUTTON_TEXT_MAX) || NOTHING, emoji: true },
    action_id: actionId,
    value: b.value.slice(0, BUTTON_VALUE_MAX),
    ...(b.style ? { style: b.style } : {}),
    ...(b.confirm
      ? {
          confirm: {
            title: { type: 'plain_text' as const, text: truncate(b.confirm.title, CONFIRM_TITLE_MAX) },
            text: { type: 'mrkdwn' as const, text: truncate(b.confirm.text, CONFIRM_TEXT_MAX) },
            confirm: { type: 'plain_text' as const, text: truncate(b.confirm.confirm, CONFIRM_BUTTON_MAX) },
            deny: { type: 'plain_text' as const, text: truncate(b.confirm.deny, CONFIRM_BUTTON_MAX) },
          },
        }
      : {}),
  };
}

/**
 * Slack refuses a block whose elements share an action_id. Buttons with the same handler (Previous
 * and Next) get a `#n` suffix, which the engine strips when routing the click.
 */
function uniqueActionIds(buttons: ReplyButton[]): string[] {
  const seen = new Map<string, number>();
  return buttons.map((b) => {
    const count = (seen.get(b.actionId) ?? 0) + 1;
    seen.set(b.actionId, count);
    if (count === 1) return b.actionId;
    return `${b.actionId}${b.actionId.includes('#') ? '-' : '#'}${count}`;
  });
}

/**
 * Splits long markup on line breaks so each section stays under the section limit. A single
 * line longer than a section is cut (and reported), never left as an empty section.
 */
function sections(text: string, cut: { value: boolean }): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    const piece = clip(line, SECTION_TEXT_MAX, cut);
    if (current && current.length + piece.length + 1 > SECTION_TEXT_MAX) {
      out.push(current);
      current = piece;
    } else current = current ? `${current}\n${piece}` : piece;
  }
  if (current.trim()) out.push(current);
  return out.filter((section) => section.trim() !== '');
}

/** Code in as many fenced sections as it needs, split between lines. */
function codeSections(text: string, cut: { value: boolean }): string[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const out: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length > 0) out.push(codeBlock(current.join('\n'), Number.POSITIVE_INFINITY));
    current = [];
  };
  for (const line of lines) {
    const candidate = codeBlock([...current, line].join('\n'), Number.POSITIVE_INFINITY);
    if (candidate.length <= SECTION_TEXT_MAX) {
      current.push(line);
      continue;
    }
    flush();
    if (codeBlock(line, Number.POSITIVE_INFINITY).length > SECTION_TEXT_MAX) {
      cut.value = true;
      out.push(codeBlock(line, SECTION_TEXT_MAX));
    } else current.push(line);
  }
  flush();
  return out;
}

function toBlocks(block: ReplyBlock): Converted {
  const cut = { value: false };
  const done = (blocks: KnownBlock[]): Converted => ({ blocks, cut: cut.value });
  switch (block.type) {
    case 'header': {
      const text = clip(block.text, HEADER_TEXT_MAX, cut);
      return done(text.trim() ? [{ type: 'header', text: { type: 'plain_text', text, emoji: true } }] : []);
    }
    case 'text':
      return done(
        sections(block.text, cut).map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })),
      );
    case 'fields': {
      const out: KnownBlock[] = [];
      for (let i = 0; i < block.fields.length; i += SECTION_MAX_FIELDS) {
        out.push({
          type: 'section',
          fields: block.fields.slice(i, i + SECTION_MAX_FIELDS).map((field) => ({
            type: 'mrkdwn',
            text: clip(
              `*${field.label}*\n${field.value.trim() ? field.value : NOTHING}`,
              SECTION_FIELD_TEXT_MAX,
              cut,
            ),
          })),
        });
      }
      return done(out);
    }
    case 'code':
      return done(
        codeSections(block.text, cut).map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })),
      );
    case 'context': {
      const text = clip(block.text, SECTION_TEXT_MAX, cut);
      return done(text.trim() ? [{ type: 'context', elements: [{ type: 'mrkdwn', text }] }] : []);
    }
    case 'divider':
      return done([{ type: 'divider' }]);
    case 'actions': {
      if (block.buttons.length === 0) return done([]);
      const shown = block.buttons.slice(0, ACTIONS_MAX_ELEMENTS);
      // More buttons than an actions block takes: the rest are not reachable here.
      if (block.buttons.length > shown.length) cut.value = true;
      const ids = uniqueActionIds(shown);
      return done([{ type: 'actions', elements: shown.map((b, i) => button(b, ids[i]!)) }]);
    }
  }
}

/** Characters Slack counts towards a message's text budget. */
function textSize(block: KnownBlock | Block): number {
  return JSON.stringify(block).length;
}

/** The reply as plain text, for consoles, overflow files and the plain-text fallback. */
export function replyToPlainText(reply: Reply): string {
  const lines: string[] = [];
  for (const block of reply.blocks) {
    switch (block.type) {
      case 'header':
        lines.push(block.text, '');
        break;
      case 'text':
      case 'context':
        lines.push(markupToPlain(block.text));
        break;
      case 'fields':
        for (const field of block.fields) lines.push(`${field.label}: ${markupToPlain(field.value)}`);
        break;
      case 'code':
        lines.push(block.text);
        break;
      case 'divider':
        lines.push('');
        break;
      case 'actions':
        break;
    }
  }
  if (lines.length === 0) lines.push(reply.text);
  return lines.join('\n');
}

const overflowFile = (content: string): ReplyFile => ({
  filename: OVERFLOW_FILENAME,
  title: 'Full reply',
  content,
  about: 'the whole answer, which did not fit in a message',
});

/** One line per file, saying what it holds and where it is: plain text, for people. */
export function fileNotes(files: readonly ReplyFile[], delivery: FileDelivery): string[] {
  return files.map((file) => {
    const failed = delivery.failed?.get(file.filename);
    if (failed !== undefined)
      return `⚠ ${file.filename} could not be delivered (${failed}); run the command again to get it.`;
    const about = file.about ? `: ${file.about}` : '';
    const where =
      delivery.place === 'below'
        ? 'attached below'
        : `sent to you in a direct message${delivery.why ? ` (${delivery.why})` : ''}`;
    return `📎 ${file.filename}${about}, ${where}.`;
  });
}

function notesBlocks(notes: string[]): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  for (let i = 0; i < notes.length; i += CONTEXT_MAX_ELEMENTS) {
    blocks.push({
      type: 'context',
      elements: notes
        .slice(i, i + CONTEXT_MAX_ELEMENTS)
        .map((note) => ({ type: 'mrkdwn' as const, text: truncate(escapeMrkdwn(note), SECTION_TEXT_MAX) })),
    });
  }
  return blocks;
}

/** The notification text: plain, escaped like the blocks, within what Slack recommends. */
const notificationText = (reply: Reply) =>
  truncate(
    escapeMrkdwn(reply.text.trim() ? reply.text : replyToPlainText(reply)),
    MESSAGE_TEXT_RECOMMENDED_MAX,
  ) || NOTHING;

export function renderReply(reply: Reply, delivery: FileDelivery = { place: 'below' }): RenderedMessage {
  const converted = reply.blocks.map(toBlocks);
  const all = converted.flatMap((c) => c.blocks);
  let cut = converted.some((c) => c.cut);
  // Keep the trailing actions block (paging, approve) whatever is cut before it.
  const last = all.at(-1);
  const trailing = last?.type === 'actions' ? last : undefined;
  const body = trailing ? all.slice(0, -1) : all;
  const ownFiles = reply.files ?? [];
  // Room for the file notes, the overflow's note included, before anything else is placed.
  const reserved = notesBlocks(fileNotes([...ownFiles, overflowFile('')], delivery));
  let budget = MESSAGE_TEXT_BUDGET - reserved.reduce((sum, b) => sum + textSize(b), 0) - 100;
  const room = MESSAGE_MAX_BLOCKS - reserved.length - (trailing ? 1 : 0);
  if (trailing) budget -= textSize(trailing);
  const kept: (KnownBlock | Block)[] = [];
  for (const block of body) {
    const size = textSize(block);
    if (kept.length >= room || size > budget) {
      cut = true;
      break;
    }
    kept.push(block);
    budget -= size;
  }
  const overflow = cut ? replyToPlainText(reply) : undefined;
  const files = overflow === undefined ? [...ownFiles] : [overflowFile(overflow), ...ownFiles];
  kept.push(...notesBlocks(fileNotes(files, delivery)));
  if (trailing) kept.push(trailing);
  const text = notificationText(reply);
  // A reply with nothing to show in blocks still says what its notification says.
  if (kept.length === 0)
    kept.push({ type: 'section', text: { type: 'mrkdwn', text: truncate(text, SECTION_TEXT_MAX) } });
  return { text, blocks: kept, files, overflow };
}

/**
 * The same reply with no blocks at all, for when Slack refused the rich message: plain text
 * with the file notes, within Slack's recommended length. What does not fit goes to a file.
 */
export function renderPlainReply(
  reply: Reply,
  delivery: FileDelivery = { place: 'below' },
): Omit<RenderedMessage, 'blocks'> {
  const plain = replyToPlainText(reply);
  const ownFiles = reply.files ?? [];
  const room = MESSAGE_TEXT_RECOMMENDED_MAX - 1_000;
  const overflow = plain.length > room ? plain : undefined;
  const files = overflow === undefined ? [...ownFiles] : [overflowFile(overflow), ...ownFiles];
  const shown = overflow === undefined ? plain : `${truncate(plain, room)}`;
  const text = [shown, ...fileNotes(files, delivery)].join('\n');
  return { text: escapeMrkdwn(text) || NOTHING, files, overflow };
}
