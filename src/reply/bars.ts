/**
 * A labelled text bar chart for a code block: one line per row, `14:05 ███████▍ 1,234`, bars
 * scaled to the largest count and padded so the numbers line up.
 */

const FULL_BLOCK = '█';
/** Left-aligned partial blocks for 1/8 … 7/8 of a character cell. */
const EIGHTHS = ['▏', '▎', '▍', '▌', '▋', '▊', '▉'] as const;

const countFormat = new Intl.NumberFormat('en-US');

function bar(value: number, max: number, width: number): string {
  if (value <= 0 || max <= 0) return '';
  // At least one eighth, so a row with a single event is still visible next to a busy one.
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return FULL_BLOCK.repeat(Math.floor(eighths / 8)) + (eighths % 8 > 0 ? EIGHTHS[(eighths % 8) - 1] : '');
}

export function labelledBars(rows: readonly { label: string; count: number }[], width = 30): string[] {
  const counts = rows.map((row) => (Number.isFinite(row.count) && row.count > 0 ? row.count : 0));
  const max = Math.max(0, ...counts);
  const labelWidth = Math.max(0, ...rows.map((row) => row.label.length));
  const columns = Math.max(1, Math.floor(width));
  return rows.map(
    (row, i) =>
      `${row.label.padEnd(labelWidth)} ${bar(counts[i]!, max, columns).padEnd(columns, ' ')} ${countFormat.format(counts[i]!)}`,
  );
}
