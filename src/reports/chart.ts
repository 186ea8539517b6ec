/**
 * Errors per hour as a text bar chart, one line per hour, for a code block in chat or the
 * terminal: no image rendering, no native dependency, readable at a glance.
 */

const FULL_BLOCK = '█';
/** Left-aligned partial blocks for 1/8 … 7/8 of a character cell. */
const EIGHTHS = ['▏', '▎', '▍', '▌', '▋', '▊', '▉'] as const;

const countFormat = new Intl.NumberFormat('en-US');

function bar(value: number, max: number, width: number): string {
  if (value <= 0 || max <= 0) return '';
  // At least one eighth, so an hour with a single error is still visible next to a busy one.
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  const full = Math.floor(eighths / 8);
  const rest = eighths % 8;
  return FULL_BLOCK.repeat(full) + (rest > 0 ? EIGHTHS[rest - 1] : '');
}

/**
 * One line per entry of `counts` (index = UTC hour): `14:00 ████████████▍ 1,234`. Bars are
 * scaled to the busiest hour, padded to `width` so the numbers line up.
 */
export function hourlyBars(counts: readonly number[], width = 30): string[] {
  const clean = counts.map((count) => (Number.isFinite(count) && count > 0 ? count : 0));
  const max = Math.max(0, ...clean);
  const columns = Math.max(1, Math.floor(width));
  return clean.map((count, hour) => {
    const label = `${String(hour).padStart(2, '0')}:00`;
    return `${label} ${bar(count, max, columns).padEnd(columns, ' ')} ${countFormat.format(count)}`;
  });
}
