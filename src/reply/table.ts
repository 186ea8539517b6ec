/** Aligned plain-text tables for code blocks: columns padded, long cells cut to a width. */
import type { Reply, ReplyBlock, ReplyCell, ReplyTable } from './model.js';

export interface TableOptions {
  /** Widest a column may be; longer cells end in "…". */
  maxColumnWidth?: number;
  /** Columns whose cells are padded on the left (numbers), by index. */
  rightAligned?: ReadonlySet<number>;
}

const cut = (text: string, width: number) =>
  text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text;

/** Control characters and line breaks would break the alignment; show them as spaces. */
const flatten = (text: string) => text.replace(/[\u0000-\u001f\u007f]/g, ' ');

export function formatTable(headers: string[], rows: string[][], options: TableOptions = {}): string {
  return tableWithCuts(headers, rows, options).text;
}

/** The table, and whether any cell differs from its value (cut, or flattened). */
export function tableWithCuts(
  headers: string[],
  rows: string[][],
  options: TableOptions = {},
): { text: string; cut: boolean } {
  const max = options.maxColumnWidth ?? 40;
  let changed = false;
  const cells = [headers, ...rows].map((row) =>
    headers.map((_, i) => {
      const value = row[i] ?? '';
      const shown = cut(flatten(value), max);
      if (shown !== value) changed = true;
      return shown;
    }),
  );
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const right = options.rightAligned ?? new Set<number>();
  const render = (row: string[]) =>
    row
      .map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const [head, ...body] = cells;
  const text = [render(head!), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(render)].join('\n');
  return { text, cut: changed };
}

/** A cell as text: a number as it is written, a link with its URL, a member as @id, an empty cell as a dash. */
export function cellText(cell: ReplyCell): string {
  if (typeof cell === 'number') return String(cell);
  if (typeof cell === 'object')
    return 'url' in cell ? `${cellText(cell.text)} (${cell.url})` : `@${cell.user}`;
  return cell.trim() === '' ? '—' : cell;
}

/** A cell as a CSV field: a link's words without its URL, a member's id. */
export function cellField(cell: ReplyCell): string {
  if (typeof cell === 'object') return 'url' in cell ? cellText(cell.text) : cell.user;
  return cellText(cell);
}

/**
 * A reply table as aligned text: headers, then every row, numbers right-aligned, every cell whole
 * (a table's rows may move to a file, and the message says so; its cells are never cut).
 */
export function replyTableText(table: ReplyTable): string {
  const rightAligned = new Set(table.columns.flatMap((column, i) => (column.kind === 'number' ? [i] : [])));
  return formatTable(
    table.columns.map((column) => column.header),
    table.rows.map((row) => row.map(cellText)),
    { maxColumnWidth: Number.POSITIVE_INFINITY, rightAligned },
  );
}

/** The same blocks with every table as a code block: where tables cannot be drawn, or were refused. */
export const blocksWithTablesAsCode = (blocks: readonly ReplyBlock[]): ReplyBlock[] =>
  blocks.map((block) =>
    block.type === 'table' ? { type: 'code', text: replyTableText(block.table) } : block,
  );

/** The reply with its tables as code blocks (its thread keeps its own). */
export const replyWithTablesAsCode = (reply: Reply): Reply => ({
  ...reply,
  blocks: blocksWithTablesAsCode(reply.blocks),
});

export const hasTable = (reply: Reply): boolean => reply.blocks.some((block) => block.type === 'table');
