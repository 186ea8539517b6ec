/**
 * A Reply as terminal text: the same content a Slack user sees, within the same limits
 * (PRODUCT §6). What would not fit in a Slack message is cut here too, and the whole reply
 * is returned as plain text for a file, so both adapters agree on when a file appears.
 */
import { type FittedBlock, fitReply } from '../reply/fit.js';
import { markupToPlain } from '../reply/markup.js';
import type { Reply, ReplyButton } from '../reply/model.js';
import { replyTableText } from '../reply/table.js';
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
  heavy_multiplication_x: '✖',
  shield: '🛡',
  memo: '📝',
  pencil2: '✏',
  no_entry_sign: '🚫',
  link: '🔗',
  gear: '⚙',
  ballot_box_with_check: '☑',
  alarm_clock: '⏰',
  arrow_up: '⬆',
  broom: '🧹',
  busts_in_silhouette: '👥',
  eyes: '👀',
  hourglass: '⌛',
  stop_sign: '🛑',
  wastebasket: '🗑',
  zzz: '💤',
};

const CODE_INDENT = '    ';
const CUT_NOTE = '… The rest did not fit in a message; the full reply is in the attached file.';

function markupToTerminal(markup: string, style: Style): string {
  const safe = safeForTerminal(markup);
  const bolded = style.enabled
    ? safe.replace(/\*([^*\n]+)\*/g, (_all, inner: string) => style.bold(inner))
    : safe;
  // Own names only: a typed `:constructor:` is not what every object inherits.
  return markupToPlain(bolded).replace(/:([a-z0-9_+-]+):/g, (all, name: string) =>
    Object.hasOwn(EMOJI, name) ? EMOJI[name]! : all,
  );
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

/** A menu as a line per group: the row it names, then its options numbered like buttons. */
function menuLines(block: Extract<FittedBlock, { type: 'menu' }>, options: TerminalRenderOptions): string[] {
  return [
    options.style.dim(`${safeForTerminal(block.placeholder)}:`),
    ...block.groups.flatMap((group) =>
      buttonRows(group.options, { ...options, width: options.width - 2 }).map((row, i) =>
        i === 0 ? `  ${safeForTerminal(group.label)}: ${row}` : `    ${row}`,
      ),
    ),
  ];
}

function blockLines(
  block: Exclude<FittedBlock, { type: 'actions' | 'menu' }>,
  style: Style,
  width: number,
): string[] {
  switch (block.type) {
    case 'header': {
      const text = safeForTerminal(block.text);
      return style.enabled
        ? [style.bold(style.underline(text))]
        : [text, '='.repeat(Math.min(text.length, width))];
    }
    case 'text':
      return markupToTerminal(block.text, style).split('\n');
    case 'code':
      return safeForTerminal(block.text)
        .split('\n')
        .map((line) => CODE_INDENT + line);
    case 'fields':
      return block.fields.flatMap((field) => {
        const [first = '', ...rest] = markupToTerminal(field.value, style).split('\n');
        return [
          `${style.bold(`${safeForTerminal(field.label)}:`)} ${first}`,
          ...rest.map((line) => `  ${line}`),
        ];
      });
    case 'context':
      return block.texts.flatMap((text) =>
        markupToTerminal(text, style)
          .split('\n')
          .map((line) => style.dim(`› ${line}`)),
      );
    case 'divider':
      return [style.dim('─'.repeat(Math.min(width, 60)))];
    case 'table':
      return safeForTerminal(replyTableText({ columns: block.columns, rows: block.rows }))
        .split('\n')
        .map((line) => CODE_INDENT + line);
  }
}

/**
 * The reply as Slack would show it, cut in the same place (fitReply decides for both); what
 * did not fit is the whole reply as plain text, for the file the console writes.
 */
export function renderReplyForTerminal(reply: Reply, options: TerminalRenderOptions): TerminalReply {
  const { style, width } = options;
  const fitted = fitReply(reply);
  const lines: string[] = [];
  const last = fitted.blocks.at(-1);
  const trailing = last?.type === 'actions' ? last : undefined;
  const body = trailing ? fitted.blocks.slice(0, -1) : fitted.blocks;
  for (const block of body) {
    if (block.type === 'actions') lines.push(...buttonRows(block.buttons, options));
    else if (block.type === 'menu') lines.push(...menuLines(block, options));
    else lines.push(...blockLines(block, style, width));
  }
  if (fitted.overflow !== undefined) lines.push(style.dim(CUT_NOTE));
  if (trailing) lines.push(...buttonRows(trailing.buttons, options));
  return { lines, overflow: fitted.overflow };
}
