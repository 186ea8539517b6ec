/**
 * fitReply: what of a reply a message shows, and what goes to a file, inside the product's
 * message budget. Nothing is cut silently: a line longer than a section, a code block longer
 * than the message, blocks past the budget all send the whole reply as a file too, and the
 * message says so. Every adapter renders the fitted reply, so all of them cut in the same place.
 */
import { MESSAGE_BUDGET as BUDGET } from './budget.js';
import { codeBlock, truncate } from './escape.js';
import { type Markup, md } from './markup.js';
import type {
  Reply,
  ReplyBlock,
  ReplyButton,
  ReplyCell,
  ReplyColumn,
  ReplyFile,
  ReplyImage,
  ReplyMenuGroup,
} from './model.js';
import { overflowFile, replyToPlainText } from './plain.js';
import { blocksWithTablesAsCode, cellText } from './table.js';

/** A reply block cut to the budget: each fits one block of any adapter. */
export type FittedBlock =
  | { type: 'header'; text: string }
  /** At most one section of text. */
  | { type: 'text'; text: Markup }
  /** Preformatted lines whose fenced form fits one section. */
  | { type: 'code'; text: string }
  /** At most `fieldsPerBlock` fields, each within `fieldChars` with its label. */
  | { type: 'fields'; fields: { label: string; value: Markup }[] }
  | { type: 'context'; texts: Markup[] }
  | { type: 'divider' }
  /** At most a row of buttons, each action id unique within the row. */
  | { type: 'actions'; buttons: ReplyButton[]; closing?: boolean }
  /** One menu: at most `menuOptions` options across its groups, none empty. */
  | { type: 'menu'; placeholder: string; groups: ReplyMenuGroup[] }
  /** The one table of a message: at most TABLE_ROWS rows with its headers, TABLE_COLUMNS columns. */
  | { type: 'table'; columns: ReplyColumn[]; rows: ReplyCell[][] };

/** Rows of a table block, its header row included, and its cells a row (Slack's limits). */
export const TABLE_ROWS = 100;
export const TABLE_COLUMNS = 20;
/** A cell longer than this is cut, and the whole reply goes to a file. */
const TABLE_CELL_CHARS = 1_000;

export interface FittedReply {
  /** The notification text, plain (adapters escape it), within `notificationChars`. */
  text: string;
  blocks: FittedBlock[];
  /** Every file to deliver with the message: the whole reply first when it was cut, then its own. */
  files: ReplyFile[];
  /** The pictures to upload beside the message (uploadImage chose them); the rest are text above. */
  images: ReplyImage[];
  /** The whole reply as plain text, when something did not fit. */
  overflow?: string;
}

export interface FitOptions {
  /**
   * Lines naming each file and uploaded picture and where it went, shown before the closing
   * buttons (the Slack adapter's notes). Room for them is kept whatever else is cut.
   */
  notes?: (files: readonly ReplyFile[], images: readonly ReplyImage[]) => Markup[];
  /**
   * Which pictures the adapter uploads beside the message. The others (all, by default) are
   * shown in their place as their title and text form.
   */
  uploadImage?: (image: ReplyImage) => boolean;
}

/** An empty text is refused by Slack and shows nothing anywhere: an empty value reads as this. */
const NOTHING = '—';

/** Cuts `text` to `max`, reporting the cut. */
function clip(text: string, max: number, cut: { value: boolean }): string {
  if (text.length <= max) return text;
  cut.value = true;
  return truncate(text, max);
}

/**
 * Buttons with the same handler (Previous and Next) in one row get a `#n` suffix: adapters need
 * ids unique within a row, and the engine strips the suffix when it routes the click.
 */
function uniqueActionIds(buttons: readonly ReplyButton[]): ReplyButton[] {
  const seen = new Map<string, number>();
  return buttons.map((button) => {
    const count = (seen.get(button.actionId) ?? 0) + 1;
    seen.set(button.actionId, count);
    if (count === 1) return button;
    return { ...button, actionId: `${button.actionId}${button.actionId.includes('#') ? '-' : '#'}${count}` };
  });
}

/** Long markup split on line breaks into sections; a single overlong line is cut and reported. */
export function textSections(text: string, cut: { value: boolean }): string[] {
  // Text that fits one section is one section (leading line breaks dropped), as the split below
  // would make it, without its copies.
  if (text.length <= BUDGET.sectionChars) {
    const section = text.charCodeAt(0) === 10 ? text.replace(/^\n+/, '') : text;
    return section.trim() === '' ? [] : [section];
  }
  return sectionsByLine(text, cut);
}

/** textSections line by line: what its shortcut must agree with (exported for that test). */
export function sectionsByLine(text: string, cut: { value: boolean }): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    const piece = clip(line, BUDGET.sectionChars, cut);
    if (current && current.length + piece.length + 1 > BUDGET.sectionChars) {
      out.push(current);
      current = piece;
    } else current = current ? `${current}\n${piece}` : piece;
  }
  out.push(current);
  return out.filter((section) => section.trim() !== '');
}

/** Code in as many pieces as it needs, split between lines, each fitting one section fenced. */
function codePieces(text: string, cut: { value: boolean }): string[] {
  const fits = (lines: string[]) =>
    codeBlock(lines.join('\n'), Number.POSITIVE_INFINITY).length <= BUDGET.sectionChars;
  const out: string[] = [];
  let current: string[] = [];
  for (const line of text.replace(/\r\n/g, '\n').split('\n')) {
    if (fits([...current, line])) {
      current.push(line);
      continue;
    }
    if (current.length > 0) out.push(current.join('\n'));
    current = [];
    if (fits([line])) current.push(line);
    else {
      // One line longer than a section: shown cut, and the whole reply goes to a file.
      cut.value = true;
      let piece = line.slice(0, BUDGET.sectionChars);
      while (piece && !fits([`${piece}…`])) piece = piece.slice(0, -64);
      out.push(`${piece}…`);
    }
  }
  if (current.length > 0) out.push(current.join('\n'));
  return out;
}

function fitButton(button: ReplyButton, cut: { value: boolean }): ReplyButton {
  if (button.value.length > BUDGET.buttonValueChars) cut.value = true;
  return {
    ...button,
    text: truncate(button.text, BUDGET.buttonTextChars) || NOTHING,
    value: button.value.slice(0, BUDGET.buttonValueChars),
    ...(button.confirm
      ? {
          confirm: {
            title: truncate(button.confirm.title, BUDGET.confirmTitleChars),
            text: truncate(button.confirm.text, BUDGET.confirmTextChars),
            confirm: truncate(button.confirm.confirm, BUDGET.confirmButtonChars),
            deny: truncate(button.confirm.deny, BUDGET.confirmButtonChars),
          },
        }
      : {}),
  };
}

/**
 * A menu within its budget. An option whose value would not fit, or past the options a menu
 * takes, is not reachable from this message: the whole reply goes to a file as for buttons.
 */
function fitMenu(
  placeholder: string,
  groups: readonly ReplyMenuGroup[],
  cut: { value: boolean },
): FittedBlock[] {
  let room = BUDGET.menuOptions;
  const fitted: ReplyMenuGroup[] = [];
  for (const group of groups) {
    const options = group.options.filter(
      (option) => option.actionId.length + 1 + option.value.length <= BUDGET.optionValueChars,
    );
    if (options.length < group.options.length || options.length > room) cut.value = true;
    const shown = options.slice(0, room).map((option) => ({
      ...option,
      text: truncate(option.text, BUDGET.optionTextChars) || NOTHING,
    }));
    room -= shown.length;
    if (shown.length > 0)
      fitted.push({ label: truncate(group.label, BUDGET.optionTextChars) || NOTHING, options: shown });
  }
  if (fitted.length === 0) return [];
  return [
    {
      type: 'menu',
      placeholder: truncate(placeholder, BUDGET.menuPlaceholderChars) || NOTHING,
      groups: fitted,
    },
  ];
}

/**
 * A reply block as the budget allows it, whether any of its content had to be cut, and the
 * picture it is when that is uploaded rather than shown.
 */
function fitBlock(
  block: ReplyBlock,
  uploadImage: (image: ReplyImage) => boolean,
): { blocks: FittedBlock[]; cut: boolean; image?: ReplyImage } {
  const cut = { value: false };
  const done = (blocks: FittedBlock[]) => ({ blocks, cut: cut.value });
  switch (block.type) {
    case 'header': {
      const text = clip(block.text, BUDGET.headerChars, cut);
      return done(text.trim() ? [{ type: 'header', text }] : []);
    }
    case 'text':
      return done(textSections(block.text, cut).map((text) => ({ type: 'text', text: text as Markup })));
    case 'code':
      return done(codePieces(block.text, cut).map((text) => ({ type: 'code', text })));
    case 'fields': {
      const fields = block.fields.map((field) => {
        const value = (field.value.trim() ? field.value : NOTHING) as Markup;
        // The label and its line break count towards the field's length.
        const room = BUDGET.fieldChars - field.label.length - 3;
        return { label: field.label, value: clip(value, Math.max(1, room), cut) as Markup };
      });
      const out: FittedBlock[] = [];
      for (let i = 0; i < fields.length; i += BUDGET.fieldsPerBlock)
        out.push({ type: 'fields', fields: fields.slice(i, i + BUDGET.fieldsPerBlock) });
      return done(out);
    }
    case 'context': {
      const text = clip(block.text, BUDGET.sectionChars, cut);
      return done(text.trim() ? [{ type: 'context', texts: [text as Markup] }] : []);
    }
    case 'divider':
      return done([{ type: 'divider' }]);
    case 'actions': {
      if (block.buttons.length === 0) return done([]);
      const shown = block.buttons.slice(0, BUDGET.buttonsPerRow);
      // More buttons than a row takes: the rest are not reachable from this message.
      if (block.buttons.length > shown.length) cut.value = true;
      const buttons = uniqueActionIds(shown.map((b) => fitButton(b, cut)));
      return done([{ type: 'actions', buttons, ...(block.closing ? { closing: true } : {}) }]);
    }
    case 'menu':
      return done(fitMenu(block.placeholder, block.groups, cut));
    case 'table': {
      const { columns, rows } = block.table;
      if (columns.length > TABLE_COLUMNS) cut.value = true;
      const width = Math.min(columns.length, TABLE_COLUMNS);
      const text = (value: string | undefined) =>
        clip(value?.trim() ? value : NOTHING, TABLE_CELL_CHARS, cut);
      const cell = (value: ReplyCell | undefined): ReplyCell => {
        if (typeof value === 'number') return value;
        if (typeof value !== 'object') return text(value);
        return 'url' in value ? { ...value, text: text(value.text) } : value;
      };
      return done([
        {
          type: 'table',
          columns: columns
            .slice(0, width)
            .map((c) => ({ ...c, header: clip(c.header, TABLE_CELL_CHARS, cut) })),
          rows: rows.map((row) => columns.slice(0, width).map((_, i) => cell(row[i]))),
        },
      ]);
    }
    case 'image': {
      if (uploadImage(block.image)) return { blocks: [], cut: false, image: block.image };
      const title = textSections(md`*${block.image.title}*`, cut).map(
        (text): FittedBlock => ({ type: 'text', text: text as Markup }),
      );
      const text = codePieces(block.image.text, cut).map(
        (piece): FittedBlock => ({ type: 'code', text: piece }),
      );
      return done([...title, ...text]);
    }
  }
}

/** What a table's text costs: its cells, with room for each cell's framing. */
export const tableSize = (columns: readonly ReplyColumn[], rows: readonly ReplyCell[][]) =>
  columns.reduce((sum, c) => sum + c.header.length + 4, 40) +
  rows.reduce((sum, row) => sum + row.reduce<number>((n, cell) => n + cellText(cell).length + 4, 0), 0);

/** What a block costs of the message's text budget: its text, with room for its framing. */
/** What a menu costs: the words it shows; its values are carried back, not shown. */
const menuSize = (block: Extract<FittedBlock, { type: 'menu' }>) =>
  block.groups.reduce(
    (sum, group) => sum + group.label.length + group.options.reduce((n, o) => n + o.text.length + 8, 8),
    block.placeholder.length + 40,
  );

const size = (block: FittedBlock) =>
  block.type === 'table'
    ? tableSize(block.columns, block.rows)
    : block.type === 'menu'
      ? menuSize(block)
      : JSON.stringify(block).length + 40;

/** The note under a table showing only its first rows, naming where all of them are. */
const rowsNote = (shown: number, total: number, inFile: boolean): FittedBlock => ({
  type: 'context',
  texts: [
    md`Showing the first ${shown} of ${total} rows; ${inFile ? 'every row is in the attached CSV' : 'the whole answer is in the attached file'}.`,
  ],
});

/**
 * The first rows of a table that fit the rows a table takes and `budget` (with room for the note
 * naming the rest), or none when not even one fits.
 */
function firstRows(table: Extract<FittedBlock, { type: 'table' }>, budget: number) {
  let rows = table.rows.slice(0, TABLE_ROWS - 1);
  const room = budget - 200;
  while (rows.length > 0 && tableSize(table.columns, rows) > room)
    rows = rows.slice(0, Math.floor(rows.length * 0.9));
  return rows;
}

function noteBlocks(notes: readonly Markup[]): FittedBlock[] {
  const out: FittedBlock[] = [];
  for (let i = 0; i < notes.length; i += BUDGET.contextElements)
    out.push({ type: 'context', texts: notes.slice(i, i + BUDGET.contextElements) });
  return out;
}

/** The notification text: the reply's own, or its plain text, within the budget. */
const notification = (reply: Reply) =>
  truncate(reply.text.trim() ? reply.text : replyToPlainText(reply), BUDGET.notificationChars) || NOTHING;

/** One table a message: any after the first are shown as aligned text. */
function oneTable(blocks: readonly ReplyBlock[]): ReplyBlock[] {
  const first = blocks.findIndex((block) => block.type === 'table');
  if (first < 0) return [...blocks];
  return [...blocks.slice(0, first + 1), ...blocksWithTablesAsCode(blocks.slice(first + 1))];
}

export function fitReply(reply: Reply, options: FitOptions = {}): FittedReply {
  const uploadImage = options.uploadImage ?? (() => false);
  const fitted = oneTable(reply.blocks).map((block) => fitBlock(block, uploadImage));
  const table = reply.blocks.find((block) => block.type === 'table')?.table;
  const fileOfTable = table?.file !== undefined && (reply.files ?? []).some((f) => f.filename === table.file);
  // Rows only the file has: a table that shows them all is still named as showing the first ones.
  const fileRows = fileOfTable ? (table?.totalRows ?? 0) : 0;
  const images = fitted.flatMap((f) => (f.image ? [f.image] : []));
  const all = fitted.flatMap((f) => f.blocks);
  let cut = fitted.some((f) => f.cut);
  // Closing buttons (paging) stay whatever is cut before them. Buttons about the blocks above them
  // (a request's Approve) go with those: never left beside another request's words.
  const last = all.at(-1);
  const trailing = last?.type === 'actions' && last.closing ? last : undefined;
  const body = trailing ? all.slice(0, -1) : all;
  const ownFiles = reply.files ?? [];
  const notesFor = (files: readonly ReplyFile[]) => noteBlocks(options.notes?.(files, images) ?? []);
  // Room for the file notes, the overflow's note included, before anything else is placed.
  const reserved = notesFor([...ownFiles, overflowFile('')]);
  let budget =
    BUDGET.textChars - reserved.reduce((sum, b) => sum + size(b), 0) - (trailing ? size(trailing) : 0);
  const room = BUDGET.blocks - reserved.length - (trailing ? 1 : 0);
  const kept: FittedBlock[] = [];
  for (const [index, block] of body.entries()) {
    if (
      block.type === 'table' &&
      (block.rows.length >= TABLE_ROWS || size(block) > budget || fileRows > block.rows.length)
    ) {
      // What follows the table (its note, the menu acting on its rows) keeps its room: the rows
      // left out are in a file, a menu left out would be nowhere. At most half, so rows still show.
      const after = body.slice(index + 1).reduce((sum, b) => sum + size(b), 0);
      const rows = firstRows(block, budget - Math.min(after, budget / 2));
      if (rows.length > 0 && kept.length + 2 <= room) {
        // Rows left out are in the table's CSV, or in the whole reply's file when it has none.
        if (!fileOfTable) cut = true;
        const shown: FittedBlock = { ...block, rows };
        const note = rowsNote(rows.length, Math.max(block.rows.length, fileRows), fileOfTable);
        kept.push(shown, note);
        budget -= size(shown) + size(note);
        continue;
      }
    }
    const cost = size(block);
    if (kept.length >= room || cost > budget) {
      cut = true;
      break;
    }
    kept.push(block);
    budget -= cost;
  }
  const overflow = cut ? replyToPlainText(reply) : undefined;
  const files = overflow === undefined ? [...ownFiles] : [overflowFile(overflow), ...ownFiles];
  kept.push(...notesFor(files));
  if (trailing) kept.push(trailing);
  const text = notification(reply);
  // A reply with nothing else to show still says what its notification says.
  if (kept.length === 0) kept.push({ type: 'text', text: md`${truncate(text, BUDGET.sectionChars - 200)}` });
  return { text, blocks: kept, files, images, overflow };
}
