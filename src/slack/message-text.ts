/**
 * The readable text of a Slack message, for the "Investigate" shortcut: alerting tools put what
 * matters in `text`, in attachments (title, text, fields) or in blocks. Bounded: collection stops
 * at `max` characters, and blocks are walked to a fixed depth.
 */
import { z } from 'zod';

const AttachmentSchema = z
  .object({
    pretext: z.string(),
    title: z.string(),
    text: z.string(),
    fallback: z.string(),
    fields: z.array(z.object({ title: z.string().optional(), value: z.string().optional() })),
  })
  .partial();

const MessageSchema = z.object({
  text: z.string().optional().catch(undefined),
  attachments: z.array(AttachmentSchema.catch({})).optional().catch(undefined),
  blocks: z.array(z.unknown()).optional().catch(undefined),
});

const MAX_DEPTH = 8;

export function messageText(message: unknown, max: number): string {
  const parsed = MessageSchema.safeParse(message);
  if (!parsed.success) return '';
  const parts: string[] = [];
  let length = 0;
  const add = (text: string | undefined) => {
    if (!text || length >= max) return;
    const kept = text.slice(0, max - length);
    parts.push(kept);
    length += kept.length + 1;
  };
  /** Every `text` string in a block tree (sections, fields, rich text), to MAX_DEPTH. */
  const walk = (value: unknown, depth: number) => {
    if (length >= max || depth > MAX_DEPTH || typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, depth + 1);
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === 'text' && typeof child === 'string') add(child);
      else walk(child, depth + 1);
    }
  };
  const { text, attachments, blocks } = parsed.data;
  add(text);
  for (const attachment of attachments ?? []) {
    add(attachment.pretext);
    add(attachment.title);
    add(attachment.text ?? attachment.fallback);
    for (const field of attachment.fields ?? []) add(`${field.title ?? ''}: ${field.value ?? ''}`);
  }
  walk(blocks, 0);
  return parts.join('\n');
}
