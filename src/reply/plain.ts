/**
 * A reply as plain text: for terminals, for the file that carries a cut reply, and for the
 * plain-text answer sent when Slack refuses a message's layout.
 */
import { MESSAGE_BUDGET as BUDGET } from './budget.js';
import { truncate } from './escape.js';
import { markupToPlain } from './markup.js';
import type { Reply, ReplyFile } from './model.js';
import { replyTableText } from './table.js';

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
      case 'image':
        lines.push(block.image.title, block.image.text);
        break;
      case 'table':
        lines.push(replyTableText(block.table));
        break;
      case 'actions':
      case 'menu':
        break;
    }
  }
  if (lines.length === 0) lines.push(reply.text);
  return lines.join('\n');
}

export const OVERFLOW_FILENAME = 'full-reply.txt';

/** The file that carries a whole reply whose message had to be cut. */
export const overflowFile = (content: string): ReplyFile => ({
  filename: OVERFLOW_FILENAME,
  title: 'Full reply',
  content,
  about: 'the whole answer, which did not fit in a message',
});

export interface PlainReply {
  /** Plain text (adapters escape it), the notes about files included, within the budget. */
  text: string;
  files: ReplyFile[];
  overflow?: string;
}

/**
 * The reply with no layout at all, and its file notes (plain lines) at the end. What does not
 * fit in a notification-sized text goes, whole, into a file.
 */
export function plainReply(
  reply: Reply,
  notes: (files: readonly ReplyFile[]) => string[] = () => [],
): PlainReply {
  const plain = replyToPlainText(reply);
  const ownFiles = reply.files ?? [];
  const room = BUDGET.notificationChars - 1_000;
  const overflow = plain.length > room ? plain : undefined;
  const files = overflow === undefined ? [...ownFiles] : [overflowFile(overflow), ...ownFiles];
  const shown = overflow === undefined ? plain : truncate(plain, room);
  return { text: [shown, ...notes(files)].join('\n').trim() || '—', files, overflow };
}
