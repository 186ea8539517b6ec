/**
 * Every CSV the product writes follows one rule, defined here: RFC 4180 framing (CRLF records,
 * quotes only where needed) and formula neutralisation, so a cell from the platform or from an
 * attacker does not run when the file is opened in a spreadsheet.
 *
 * csv-stringify applies the rule itself (`escape_formulas`, cheaper than a cast callback per
 * cell). `csvRecord` writes the very same bytes for rows of text at a fraction of csv-stringify's
 * cost per row, for the million-row origin-log CSV, where csv-stringify alone would take a third
 * of the whole time budget. test/reports/csv/safety.test.ts proves all three agree.
 */
import type { Options as StringifyOptions } from 'csv-stringify';

/**
 * Spreadsheets run a cell starting with `=`, `+`, `-` or `@` (tab and CR are stripped first),
 * and some normalise the full-width forms (＝ ＋ － ＠) to those.
 */
function startsFormula(cell: string): boolean {
  switch (cell.charCodeAt(0)) {
    case 0x3d: // =
    case 0x2b: // +
    case 0x2d: // -
    case 0x40: // @
    case 0x09: // tab
    case 0x0d: // carriage return
    case 0xff1d:
    case 0xff0b:
    case 0xff0d:
    case 0xff20:
      return true;
    default:
      return false;
  }
}

/** A cell that would start a formula gets a leading `'`, which spreadsheets show as text. */
export function neutraliseFormula(cell: string): string {
  return startsFormula(cell) ? `'${cell}` : cell;
}

/** RFC 4180: a cell with a delimiter, a quote or a line break is quoted, its quotes doubled. */
const NEEDS_QUOTES = /[",\r\n]/;
const QUOTES = /"/g;

/** One cell as a record carries it: neutralised, and quoted when it needs to be. */
export function csvCell(text: string): string {
  const cell = neutraliseFormula(text);
  return NEEDS_QUOTES.test(cell) ? `"${cell.replace(QUOTES, '""')}"` : cell;
}

/** One record, CRLF-terminated, exactly as csv-stringify writes it with safeCsvOptions(). */
export function csvRecord(cells: readonly string[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) line += ',';
    line += csvCell(cells[i]!);
  }
  return `${line}\r\n`;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * One cell exactly as csvRecord frames it, in pieces of about `size` characters, so that a cell
 * of many megabytes is written without a copy of it whole. No piece splits a surrogate pair.
 */
export function* csvCellPieces(cell: string, size: number): Generator<string> {
  const quoted = NEEDS_QUOTES.test(cell);
  const head = `${quoted ? '"' : ''}${startsFormula(cell) ? "'" : ''}`;
  if (head) yield head;
  for (let at = 0; at < cell.length; ) {
    let end = Math.min(at + size, cell.length);
    if (end < cell.length && isHighSurrogate(cell.charCodeAt(end - 1))) end += 1;
    const piece = cell.slice(at, end);
    yield quoted ? piece.replace(QUOTES, '""') : piece;
    at = end;
  }
  if (quoted) yield '"';
}

/** csv-stringify options for every file we write: RFC 4180 framing and neutralised cells. */
export function safeCsvOptions(
  extra: Omit<StringifyOptions, 'escape_formulas' | 'quote_record_delimiter'> = {},
): StringifyOptions {
  return {
    record_delimiter: '\r\n',
    quote: '"',
    escape: '"',
    ...extra,
    // With a record_delimiter set, csv-stringify stops quoting bare \n and \r unless told to.
    quote_record_delimiter: true,
    escape_formulas: true,
  };
}
