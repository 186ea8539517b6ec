/**
 * A Reply as terminal text: the same content a Slack user sees, within the same limits
 * (PRODUCT §6). What would not fit in a Slack message is cut here too, and the whole reply
 * is returned as plain text for a file, so both adapters agree on when a file appears.
 */
import { markupToPlain } from '../operations/markup.js';
import type { Reply, ReplyBlock, ReplyButton } from '../operations/reply.js';
import { renderReply, replyToPlainText } from '../slack/blocks/reply.js';
import { MESSAGE_MAX_BLOCKS, MESSAGE_TEXT_BUDGET, SECTION_TEXT_MAX } from '../slack/limits.js';
import { type Style, safeForTerminal } from './style.js';

export interface TerminalRenderOptions {
  style: Style;
  /** Columns available; button rows wrap at it. */
  width: number;
  /** Gives each button shown its number for `:click`. */
  numberButton(button: ReplyButton): number;
}

export interface TerminalReply {
  lines: string[];
  /** Set when something was cut: the whole reply as plain text, for a file. */
  overflow?: string;
}

/** The emoji operations use, as terminal symbols; other shortcodes stay as typed. */
const EMOJI: Readonly<Record<string, string>> = {
  warning: '⚠',
  x: '✗',
  no_entry: '⛔',
  white_check_mark: '✓',
  heavy_check_mark: '✓',
  rotating_light: '🚨',
  hourglass_flowing_sand: '⏳',
  lock: '🔒',
  key: '🔑',
  information_source: 'ℹ',
  bulb: '💡',
  bar_chart: '📊',
  page_facing_up: '📄',
};

const CODE_INDENT = '    ';
const CUT_NOTE = '… The rest did not fit in a message; the full reply is in the attached file.';
const ALSO_IN_FILE_NOTE = 'The full reply is also in the attached file.';

function markupToTerminal(markup: string, style: Style): string {
  const safe = safeForTerminal(markup);
  const bolded = style.enabled
    ? safe.replace(/\*([^*\n]+)\*/g, (_all, inner: string) => style.bold(inner))
    : safe;
  return markupToPlain(bolded).replace(/:([a-z0-9_+-]+):/g, (all, name: string) => EMOJI[name] ?? all);
}

function buttonLabel(button: ReplyButton, number: number, style: Style): string {
  const label = `[${number}] ${safeForTerminal(button.text)}`;
  if (button.style === 'primary') return style.green(style.bold(label));
  if (button.style === 'danger') return style.red(style.bold(label));
  return style.cyan(label);
}

/** Visible length of styled text, for wrapping. */
const visibleLength = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '').length;

function buttonRows(buttons: ReplyButton[], options: TerminalRenderOptions): string[] {
  const rows: string[] = [];
  let row = '';
  for (const button of buttons) {
    const label = buttonLabel(button, options.numberButton(button), options.style);
    if (row && visibleLength(row) + 2 + visibleLength(label) > options.width) {
      rows.push(row);
      row = label;
    } else row = row ? `${row}  ${label}` : label;
  }
  if (row) rows.push(row);
  return rows;
}

/** Code longer than one Slack section is cut at a line break, as Slack would cut it. */
function codeLines(text: string): { lines: string[]; cut: boolean } {
  const lines = safeForTerminal(text.replace(/\r\n/g, '\n')).split('\n');
  if (text.length <= SECTION_TEXT_MAX) return { lines: lines.map((line) => CODE_INDENT + line), cut: false };
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > SECTION_TEXT_MAX - 2) break;
    kept.push(CODE_INDENT + line);
    size += line.length + 1;
  }
  kept.push(`${CODE_INDENT}…`);
  return { lines: kept, cut: true };
}

function blockLines(block: Exclude<ReplyBlock, { type: 'actions' }>, style: Style, width: number) {
  switch (block.type) {
    case 'header': {
      const text = safeForTerminal(block.text);
      return style.enabled
        ? { lines: [style.bold(style.underline(text))], cut: false }
        : { lines: [text, '='.repeat(Math.min(text.length, width))], cut: false };
    }
    case 'text':
      return { lines: markupToTerminal(block.text, style).split('\n'), cut: false };
    case 'fields':
      return {
        lines: block.fields.flatMap((field) => {
          const [first = '', ...rest] = markupToTerminal(field.value, style).split('\n');
          return [
            `${style.bold(`${safeForTerminal(field.label)}:`)} ${first}`,
            ...rest.map((line) => `  ${line}`),
          ];
        }),
        cut: false,
      };
    case 'code':
      return codeLines(block.text);
    case 'context':
      return {
        lines: markupToTerminal(block.text, style)
          .split('\n')
          .map((line) => style.dim(`› ${line}`)),
        cut: false,
      };
    case 'divider':
      return { lines: [style.dim('─'.repeat(Math.min(width, 60)))], cut: false };
  }
}

export function renderReplyForTerminal(reply: Reply, options: TerminalRenderOptions): TerminalReply {
  const { style, width } = options;
  const lines: string[] = [];
  let budget = MESSAGE_TEXT_BUDGET;
  let blocks = 0;
  let cut = false;
  let full = false;
  // The closing buttons (paging, Approve) stay after the cut note whatever was cut, as in Slack.
  const last = reply.blocks.at(-1);
  const trailing = last?.type === 'actions' ? last : undefined;
  const body = trailing ? reply.blocks.slice(0, -1) : reply.blocks;
  for (const block of body) {
    if (block.type === 'actions') {
      lines.push(...buttonRows(block.buttons, options));
      continue;
    }
    if (full) continue;
    const shown = blockLines(block, style, width);
    const size = shown.lines.reduce((sum, line) => sum + visibleLength(line) + 1, 0);
    if (size > budget || blocks >= MESSAGE_MAX_BLOCKS - 1) {
      // Like Slack's renderer: the message ends at the first block that does not fit.
      full = true;
      cut = true;
      continue;
    }
    lines.push(...shown.lines);
    budget -= size;
    blocks += 1;
    if (shown.cut) cut = true;
  }
  if (reply.blocks.length === 0) lines.push(...safeForTerminal(reply.text).split('\n'));
  // Slack's own renderer may cut where the terminal did not; the file then comes with both.
  const slackCut = renderReply(reply).overflow !== undefined;
  if (cut) lines.push(style.dim(CUT_NOTE));
  else if (slackCut) lines.push(style.dim(ALSO_IN_FILE_NOTE));
  if (trailing) lines.push(...buttonRows(trailing.buttons, options));
  return { lines, overflow: cut || slackCut ? replyToPlainText(reply) : undefined };
}
