import { rm } from 'node:fs/promises';
import { UTCDate } from '@date-fns/utc';
import { z } from 'zod';
import { csvCell, csvRowPieces, hasLongValue, tableCell } from '../../database/cells.js';
import {
  type Cell,
  type CustomerDatabase,
  customerDatabaseOf,
  type QuerySummary,
} from '../../database/customer-database.js';
import { MESSAGE_BUDGET } from '../../reply/budget.js';
import { TABLE_COLUMNS, TABLE_ROWS, tableSize } from '../../reply/fit.js';
import { hiddenCharacterError } from '../../reply/hidden-characters.js';
import { md, mention, nest } from '../../reply/markup.js';
import {
  inChannel,
  type Reply,
  type ReplyBlock,
  type ReplyCell,
  type ReplyColumn,
  type ReplyTable,
} from '../../reply/model.js';
import { byteSize, counted } from '../../reply/words.js';
import { CsvFileWriter } from '../../reports/csv/file.js';
import { csvRecord } from '../../reports/csv/safety.js';
import { temporaryCsvPath } from '../../reports/csv/temp-file.js';
import type { SecretRegistry } from '../../secrets/registry.js';
import { format } from '../../time/date-fns.js';
import { UserFacingError } from '../engine/errors.js';
import { defineOperation, parseWith } from '../engine/types.js';

/** Rows the message's table holds under its headers; the rest are in the CSV file. */
export const MAX_TABLE_ROWS = TABLE_ROWS - 1;
/** Longest a value is in the message's table; a longer one is cut there and whole in the CSV. */
export const MAX_CELL_CHARS = 100;
/** Room kept in the message for all but the table and the statement: headings, notes, file names. */
const ROOM_BESIDE_TABLE = 3_000;
/** How much of the statement a file's comment repeats (the message shows it whole). */
const MAX_COMMENT_SQL = 500;

const DbQueryArgsSchema = z.object({
  sql: z
    .string()
    .trim()
    .min(1, { error: 'give the SQL statement to run' })
    .max(20_000, { error: 'the statement is too long (20,000 characters at most)' }),
});
type DbQueryArgs = z.infer<typeof DbQueryArgsSchema>;

const NOT_CONFIGURED =
  'The customer database is not configured. Set SERVICE_DATABASE_URL (libsql://… or https://…) and SERVICE_DATABASE_AUTH_TOKEN, then restart the bot.';

/** `query-YYYYMMDD-HHmmss.csv` in UTC, so everyone in the channel sees the same name. */
export const queryFilename = (nowMs: number): string =>
  `query-${format(new UTCDate(nowMs), 'yyyyMMdd-HHmmss')}.csv`;

/** A value as the table keeps it: NULL and numbers as they are, anything else as its text, cut. */
type Shown = null | number | bigint | string;

/** A query's rows as they were read: the first ones for the table, all of them in a CSV file. */
interface ReadResult {
  summary: QuerySummary;
  /** The first rows' values in the table's columns (a long value cut, a blob as its size). */
  first: Shown[][];
  /** Whether a value of the first rows is longer than the table shows. */
  cut: boolean;
  /** Whether the first rows hold a blob, which the table shows only by its size. */
  blobShown: boolean;
  /** Whether any row read holds a blob, which the file has in hexadecimal. */
  blobs: boolean;
  /** The CSV, header first, written row by row as the rows arrived. */
  path: string;
}

/** A column is a number column when its values are numbers, NULL aside. */
function columnKind(first: readonly Shown[][], index: number): ReplyColumn['kind'] {
  const values = first.map((row) => row[index]).filter((value) => value !== null);
  const numeric = values.every((value) => typeof value === 'number' || typeof value === 'bigint');
  return values.length > 0 && numeric ? 'number' : 'text';
}

/** NULL as today's NULL; an integer past what a number holds exactly stays text, digit for digit. */
function tableValue(value: Shown, kind: ReplyColumn['kind']): ReplyCell {
  if (value === null) return 'NULL';
  if (kind === 'text' || typeof value === 'string') return String(value);
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
  return value;
}

/** The first rows as the message's table: database values as text, numbers as numbers. */
function resultTable(columns: readonly string[], first: readonly Shown[][]): ReplyTable {
  const shown: ReplyColumn[] = columns
    .slice(0, TABLE_COLUMNS)
    .map((header, index) => ({ header, kind: columnKind(first, index) }));
  return {
    columns: shown,
    rows: first.map((row) => shown.map((column, index) => tableValue(row[index] ?? null, column.kind))),
  };
}

const isBlob = (cell: Cell) => cell instanceof ArrayBuffer;

/** Writes one row to the file, a long value in pieces so that it is never copied whole. */
async function writeRow(csv: CsvFileWriter, cells: Cell[]): Promise<void> {
  if (!hasLongValue(cells)) return csv.write(csvRecord(cells.map(csvCell)));
  for (const piece of csvRowPieces(cells)) await csv.write(piece);
}

async function readResult(
  database: CustomerDatabase,
  sql: string,
  secrets: SecretRegistry,
): Promise<ReadResult> {
  const path = temporaryCsvPath();
  const csv = new CsvFileWriter(path);
  const first: Shown[][] = [];
  let cut = false;
  let blobShown = false;
  let blobs = false;
  // The table shows the start of a value: a secret there is redacted whole before the cut, so
  // no part of it shows (the message's own scrub sees only whole secrets).
  const head = MAX_CELL_CHARS + 1 + secrets.longest();
  const shown = (cell: Cell): Shown => {
    if (cell === null || typeof cell === 'number' || typeof cell === 'bigint') return cell;
    const text = tableCell(
      typeof cell === 'string' ? secrets.redact(cell.length > head ? cell.slice(0, head) : cell) : cell,
      MAX_CELL_CHARS,
    );
    if (text.length <= MAX_CELL_CHARS) return text;
    cut = true;
    return `${text.slice(0, MAX_CELL_CHARS - 1)}…`;
  };
  try {
    const summary = await database.streamReadOnlyQuery(sql, {
      columns: (names) => csv.write(csvRecord(names)),
      row: (cells) => {
        blobs ||= cells.some(isBlob);
        if (first.length < MAX_TABLE_ROWS) {
          // Only what the table can show is kept: the value itself goes to the file and is let go.
          const kept = cells.slice(0, TABLE_COLUMNS);
          first.push(kept.map(shown));
          blobShown ||= kept.some(isBlob);
        }
        return writeRow(csv, cells);
      },
    });
    await csv.close();
    return { summary, first, cut, blobShown, blobs, path };
  } catch (error) {
    await csv.discard();
    await rm(path, { force: true });
    throw error;
  }
}

/** Why the reading stopped, in words, naming the setting that moves the cap. */
function stoppedWords(summary: QuerySummary): string {
  const stop = summary.stopped;
  if (!stop) return '';
  const where = summary.rows === 0 ? 'at the first row' : `after ${counted(summary.rows, 'row')}`;
  return stop.cap === 'rows'
    ? `The query stopped at the cap of ${counted(stop.limit, 'row')} (EDGEOPS_DB_QUERY_MAX_ROWS): the result has more. `
    : `The query stopped at the cap of ${byteSize(stop.limit)} of values (EDGEOPS_DB_QUERY_MAX_BYTES) ${where}: the result has more. `;
}

/** What the table shows otherwise than the file has it, in words ('' when nothing). */
function leftOut(columns: number, cut: boolean, blobShown: boolean): string {
  const parts = [
    columns > TABLE_COLUMNS ? `only the first ${TABLE_COLUMNS} of ${columns} columns are shown` : '',
    cut ? 'long values are cut' : '',
    blobShown ? 'blobs are shown by their size' : '',
  ].filter(Boolean);
  if (parts.length === 0) return '';
  const words = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0]!;
  return `${words.charAt(0).toUpperCase()}${words.slice(1)} here`;
}

/** The note under the table: the result's size, where it stopped, and what the file has. */
function resultNote(summary: QuerySummary, read: ReadResult, withFile: boolean): string {
  const total = summary.rows;
  const described = `${counted(total, 'row')}, ${counted(summary.columns.length, 'column')}.`;
  if (!withFile) return described;
  const hex = read.blobs ? ', blobs in hexadecimal' : '';
  const differs = leftOut(summary.columns.length, read.cut, read.blobShown);
  const file = summary.stopped
    ? total === 0
      ? 'The file has the column names.'
      : differs
        ? `${differs}; the file has the rows read${hex}.`
        : `The file has the rows read${hex}.`
    : differs
      ? `${differs}; the file has the complete result${hex}.`
      : `The file has the complete result${hex}.`;
  return `${described} ${stoppedWords(summary)}${file}`;
}

export interface QueryAnswerInput {
  database: CustomerDatabase;
  sql: string;
  userId: string;
  /** When the query ran, on the bot's clock: it names the CSV file. */
  now: number;
  /** Whose values the table never shows, not even in part. */
  secrets: SecretRegistry;
}

/**
 * Runs the query and builds its answer: the statement, a table of the first rows, and the whole
 * result (or, past a cap, every row read) as a CSV file when the table does not show it all.
 */
export async function answerQuery(input: QueryAnswerInput): Promise<Reply> {
  const { sql } = input;
  const read = await readResult(input.database, sql, input.secrets);
  const { summary, first, blobs, path } = read;
  const statement =
    sql.length > MAX_COMMENT_SQL ? `${sql.slice(0, MAX_COMMENT_SQL)}… (whole in the message)` : sql;
  const blocks: ReplyBlock[] = [
    { type: 'text', text: md`*Query* by ${nest(mention(input.userId))}` },
    { type: 'code', text: sql },
  ];
  const { columns } = summary;
  if (columns.length === 0) {
    await rm(path, { force: true });
    blocks.push({ type: 'context', text: md`The statement ran and returned no rows.` });
    return inChannel('The query returned no rows', blocks);
  }
  const total = summary.rows;
  const table = resultTable(columns, first);
  // A table longer than the message holds beside the statement shows its first rows: the CSV has them all.
  const crowded =
    tableSize(table.columns, table.rows) > MESSAGE_BUDGET.textChars - ROOM_BESIDE_TABLE - sql.length;
  // A blob in the table is only its size: the file is where its bytes are.
  const withFile =
    total > first.length ||
    columns.length > TABLE_COLUMNS ||
    read.cut ||
    read.blobShown ||
    crowded ||
    summary.stopped !== undefined;
  const filename = queryFilename(input.now);
  blocks.push(
    { type: 'table', table: withFile ? { ...table, file: filename, totalRows: total } : table },
    { type: 'context', text: md`${resultNote(summary, read, withFile)}` },
  );
  const described = `${counted(total, 'row')}, ${counted(columns.length, 'column')}`;
  const reply = inChannel(
    summary.stopped
      ? `The query stopped at a cap after ${counted(total, 'row')}`
      : `The query returned ${counted(total, 'row')}`,
    blocks,
  );
  if (!withFile) {
    await rm(path, { force: true });
    return reply;
  }
  return {
    ...reply,
    files: [
      {
        filename,
        title: `Query result (${summary.stopped ? 'first ' : ''}${counted(total, 'row')})`,
        path,
        about: summary.stopped
          ? `the first ${counted(total, 'row')}, where the query stopped`
          : `the complete result, ${counted(total, 'row')}`,
        comment: `${summary.stopped ? 'First ' : ''}${described}${summary.stopped ? ' (stopped at a cap; the result has more)' : ''}${blobs ? ', blobs in hexadecimal,' : ''} from: ${statement}`,
      },
    ],
  };
}

/**
 * `/edge db query SQL`: one read-only statement on the customer database.
 *
 * The answer goes to the channel, not ephemerally: a query result is a report the team reads
 * together (PRODUCT §6 posts reports and exports in the channel), its CSV goes to the channel
 * anyway, and a file there without the statement and table that produced it would be read out of
 * context. The policy decides who may run db.query and in which channels.
 */
export const dbQuery = defineOperation({
  id: 'db.query',
  words: ['db', 'query'],
  usage: '/edge db query SQL',
  summary: 'run one read-only SQL statement on the customer database',
  example: '/edge db query SELECT id, status, total FROM orders ORDER BY id LIMIT 10',
  flags: {},
  rawArgument: true,
  // Slack clients may turn typed quotes into curly ones; SQL needs the straight kind.
  parse(positionals) {
    const sql = positionals.join(' ');
    const hidden = hiddenCharacterError(sql, 'the statement');
    if (hidden) return { ok: false, error: hidden };
    return parseWith(DbQueryArgsSchema, { sql: sql.replace(/[“”]/g, '"').replace(/[‘’]/g, "'") });
  },
  auditParams: (args: DbQueryArgs) => ({ sql: args.sql }),
  async run(ctx, args) {
    const database = customerDatabaseOf(ctx.services);
    if (!database) throw new UserFacingError(NOT_CONFIGURED);
    // A DatabaseError reaches the user through the engine's one failure mapper (operations/engine/failure.ts).
    return answerQuery({
      database,
      sql: args.sql,
      userId: ctx.userId,
      now: ctx.services.now(),
      secrets: ctx.services.secrets,
    });
  },
});
