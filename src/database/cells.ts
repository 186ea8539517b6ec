/**
 * Query results as text: for the chat table (NULL spelled out, blobs as their size, integers
 * exact, long values cut) and for the CSV file (blobs in hexadecimal, written record by record,
 * neutralised against formulas, by the operation that writes it).
 */
import { csvCellPieces } from '../reports/csv/safety.js';
import type { Cell } from './hrana-value.js';

const blobText = (blob: ArrayBuffer) => `<blob ${blob.byteLength} byte${blob.byteLength === 1 ? '' : 's'}>`;

/**
 * A cell for the chat table; a longer text than `width` is cut to its first `width + 1`
 * characters, as a copy of its own: a slice would keep the whole value alive.
 */
export function tableCell(cell: Cell, width = Number.POSITIVE_INFINITY): string {
  if (cell === null) return 'NULL';
  if (cell instanceof ArrayBuffer) return blobText(cell);
  const text = String(cell);
  return text.length > width + 1 ? [...text.slice(0, width + 1)].join('') : text;
}

/** A cell for the CSV file: NULL is an empty cell, as spreadsheets and most tools expect; a blob is its bytes in hexadecimal. */
export function csvCell(cell: Cell): string {
  if (cell === null) return '';
  if (cell instanceof ArrayBuffer) return Buffer.from(cell).toString('hex');
  return String(cell);
}

/**
 * A value this long goes to the file in pieces of this many characters, never copied whole;
 * pieces this small die young, so the garbage of writing them does not pile up.
 */
export const CSV_PIECE_CHARS = 64 * 1024;

const isLong = (cell: Cell) =>
  cell instanceof ArrayBuffer
    ? cell.byteLength * 2 > CSV_PIECE_CHARS
    : typeof cell === 'string' && cell.length > CSV_PIECE_CHARS;

/** Whether the row has a value long enough to be written in pieces (csvRowPieces). */
export const hasLongValue = (cells: readonly Cell[]) => cells.some(isLong);

/** One row of the CSV file exactly as csvRecord writes it, in pieces of CSV_PIECE_CHARS or so. */
export function* csvRowPieces(cells: readonly Cell[]): Generator<string> {
  for (const [index, cell] of cells.entries()) {
    if (index > 0) yield ',';
    if (cell instanceof ArrayBuffer) {
      const step = CSV_PIECE_CHARS / 2;
      for (let at = 0; at < cell.byteLength; at += step)
        yield Buffer.from(cell, at, Math.min(step, cell.byteLength - at)).toString('hex');
    } else yield* csvCellPieces(csvCell(cell), CSV_PIECE_CHARS);
  }
  yield '\r\n';
}
