/**
 * Turns the adapter-agnostic Reply into Block Kit, inside Slack's limits. What does not fit
 * is cut with a note, and the full text is returned so the caller can attach it as a file.
 */
import type { types } from '@slack/bolt';

type Block = types.Block;
type KnownBlock = types.KnownBlock;

import { markupToPlain } from '../../operations/markup.js';
import type { Reply, ReplyBlock, ReplyButton } from '../../operations/reply.js';
import { codeBlock, escapeMrkdwn, truncate } from '../escape.js';
import {
  ACTIONS_MAX_ELEMENTS,
  BUTTON_TEXT_MAX,
  BUTTON_VALUE_MAX,
  CONFIRM_BUTTON_MAX,
  CONFIRM_TEXT_MAX,
  CONFIRM_TITLE_MAX,
  HEADER_TEXT_MAX,
  MESSAGE_MAX_BLOCKS,
  MESSAGE_TEXT_BUDGET,
  MESSAGE_TEXT_RECOMMENDED_MAX,
  SECTION_FIELD_TEXT_MAX,
  SECTION_MAX_FIELDS,
  SECTION_TEXT_MAX,
} from '../limits.js';

export interface RenderedMessage {
  text: string;
  blocks: (KnownBlock | Block)[];
  /** Set when something was cut: the whole reply as plain text, for a file. */
  overflow?: string;
}

const OVERFLOW_NOTE = '_The rest did not fit in a message; it is in the attached file._';

function button(b: ReplyButton) {
  return {
    type: 'button' as const,
    text: { type: 'plain_text' as const, text: truncate(b.text, BUTTON_TEXT_MAX), emoji: true },
    action_id: b.actionId,
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

/** Splits long markup on line breaks so each section stays under the section limit. */
function sections(text: string): string[] {
  if (text.length <= SECTION_TEXT_MAX) return [text];
  const out: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    const piece = truncate(line, SECTION_TEXT_MAX);
    if (current.length + piece.length + 1 > SECTION_TEXT_MAX) {
      out.push(current);
      current = piece;
    } else current = current ? `${current}\n${piece}` : piece;
  }
  if (current) out.push(current);
  return out;
}

function toBlocks(block: ReplyBlock): KnownBlock[] {
  switch (block.type) {
    case 'header':
      return [
        {
          type: 'header',
          text: { type: 'plain_text', text: truncate(block.text, HEADER_TEXT_MAX), emoji: true },
        },
      ];
    case 'text':
      return sections(block.text || ' ').map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } }));
    case 'fields': {
      const out: KnownBlock[] = [];
      for (let i = 0; i < block.fields.length; i += SECTION_MAX_FIELDS) {
        out.push({
          type: 'section',
          fields: block.fields.slice(i, i + SECTION_MAX_FIELDS).map((field) => ({
            type: 'mrkdwn',
            text: truncate(`*${field.label}*\n${field.value || ' '}`, SECTION_FIELD_TEXT_MAX),
          })),
        });
      }
      return out;
    }
    case 'code':
      return [{ type: 'section', text: { type: 'mrkdwn', text: codeBlock(block.text) } }];
    case 'context':
      return [
        { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(block.text, SECTION_TEXT_MAX) }] },
      ];
    case 'divider':
      return [{ type: 'divider' }];
    case 'actions':
      if (block.buttons.length === 0) return [];
      return [{ type: 'actions', elements: block.buttons.slice(0, ACTIONS_MAX_ELEMENTS).map(button) }];
  }
}

/** Characters Slack counts towards a message's text budget. */
function textSize(block: KnownBlock | Block): number {
  return JSON.stringify(block).length;
}

/** The reply as plain text, for consoles and overflow files. */
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
  return lines.join('\n');
}

export function renderReply(reply: Reply): RenderedMessage {
  const all = reply.blocks.flatMap(toBlocks);
  const kept: (KnownBlock | Block)[] = [];
  let budget = MESSAGE_TEXT_BUDGET - OVERFLOW_NOTE.length - 100;
  let cut = false;
  // Keep the trailing actions block (paging, approve) whatever is cut before it.
  const last = all.at(-1);
  const trailing = last?.type === 'actions' ? last : undefined;
  const body = trailing ? all.slice(0, -1) : all;
  const room = MESSAGE_MAX_BLOCKS - (trailing ? 2 : 1);
  if (trailing) budget -= textSize(trailing);
  for (const block of body) {
    const size = textSize(block);
    if (kept.length >= room || size > budget) {
      cut = true;
      break;
    }
    kept.push(block);
    budget -= size;
  }
  if (cut) kept.push({ type: 'context', elements: [{ type: 'mrkdwn', text: OVERFLOW_NOTE }] });
  if (trailing) kept.push(trailing);
  return {
    // The notification text is plain and may carry platform text: escaped like the blocks.
    text: truncate(escapeMrkdwn(reply.text), MESSAGE_TEXT_RECOMMENDED_MAX),
    blocks: kept,
    overflow: cut ? replyToPlainText(reply) : undefined,
  };
}
