/** Aligned plain-text tables for code blocks: columns padded, long cells cut to a width. */
export interface TableOptions {
  /** Widest a column may be; longer cells end in "…". */
  maxColumnWidth?: number;
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
  const render = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const [head, ...body] = cells;
  const text = [render(head!), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(render)].join('\n');
  return { text, cut: changed };
}
