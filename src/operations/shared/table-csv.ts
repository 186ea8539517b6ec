/**
 * A table longer than a message shows goes whole into a CSV beside it: the message names the
 * rows it shows and the file (src/reply/fit.ts), so nothing is cut silently.
 */
import { TABLE_ROWS } from '../../reply/fit.js';
import type { ReplyFile, ReplyTable } from '../../reply/model.js';
import { cellField } from '../../reply/table.js';
import { csvRecord } from '../../reports/csv/safety.js';

/** The table and, when it has more rows than a table block takes, the CSV of every row. */
export function tableWithCsv(
  table: ReplyTable,
  file: { filename: string; title: string },
): { table: ReplyTable; files: ReplyFile[] } {
  if (table.rows.length < TABLE_ROWS) return { table, files: [] };
  const content = [table.columns.map((c) => c.header), ...table.rows.map((row) => row.map(cellField))]
    .map(csvRecord)
    .join('');
  return {
    table: { ...table, file: file.filename },
    files: [{ ...file, content, about: `all ${table.rows.length} rows` }],
  };
}
