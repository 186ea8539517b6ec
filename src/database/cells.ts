/**
 * Query results as text: for the chat table (NULL spelled out, blobs as their size, integers
 * exact) and as an RFC 4180 CSV whose cells cannot run as spreadsheet formulas.
 */
import { stringify } from 'csv-stringify/sync';
import { safeCsvOptions } from '../reports/csv-safety.js';
import type { Cell, QueryResult } from './customer-database.js';

const blobText = (blob: ArrayBuffer) => `<blob ${blob.byteLength} byte${blob.byteLength === 1 ? '' : 's'}>`;

/** A cell for the chat table. */
export function tableCell(cell: Cell): string {
  if (cell === null) return 'NULL';
  if (cell instanceof ArrayBuffer) return blobText(cell);
  return String(cell);
}

/** A cell for the CSV file: NULL is an empty cell, as spreadsheets and most tools expect. */
export function csvCell(cell: Cell): string {
  if (cell === null) return '';
  if (cell instanceof ArrayBuffer) return blobText(cell);
  return String(cell);
}

/** The whole result as CSV text, header row first. */
export function resultCsv(result: QueryResult): string {
  return stringify([result.columns, ...result.rows.map((row) => row.map(csvCell))], safeCsvOptions());
}
