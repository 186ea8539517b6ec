/**
 * Query results as text: for the chat table (NULL spelled out, blobs as their size, integers
 * exact) and for the CSV file (written record by record, neutralised against formulas, by the
 * operation that writes it).
 */
import type { Cell } from './read-query.js';

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
