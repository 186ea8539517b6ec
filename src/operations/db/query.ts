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
import { codeBlock } from '../../reply/escape.js';
import { hiddenCharacterError } from '../../reply/hidden-characters.js';
import { md, mention, nest } from '../../reply/markup.js';
import { inChannel, type Reply, type ReplyBlock } from '../../reply/model.js';
import { formatTable } from '../../reply/table.js';
import { byteSize, counted, number } from '../../reply/words.js';
import { CsvFileWriter } from '../../reports/csv/file.js';
import { csvRecord } from '../../reports/csv/safety.js';
import { temporaryCsvPath } from '../../reports/csv/temp-file.js';
import type { SecretRegistry } from '../../secrets/registry.js';
import { format } from '../../time/date-fns.js';
import { UserFacingError } from '../engine/errors.js';
import { defineOperation, parseWith } from '../engine/types.js';

/** Rows shown in the message; the rest are in the CSV file. */
export const MAX_TABLE_ROWS = 20;
/** Widest a column may be in the message; wider cells are cut there and complete in the CSV. */
export const MAX_COLUMN_WIDTH = 32;
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

/** The table as it appears in chat: the most rows (up to 20) whose code block fits one section. */
function fittedTable(headers: string[], first: string[][]): { table: string; shown: number; cut: boolean } {
  const rows = first.slice(0, MAX_TABLE_ROWS);
  // Anything flattened or shortened for the table differs from the data: the CSV has it whole.
  let cut = [headers, ...rows].some((row) =>
    row.some((cell) => cell.length > MAX_COLUMN_WIDTH || /[\u0000-\u001f\u007f]/.test(cell)),
  );
  let shown = rows.length;
  let table = formatTable(headers, rows, { maxColumnWidth: MAX_COLUMN_WIDTH });
  while (shown > 0 && codeBlock(table, Number.POSITIVE_INFINITY).length > MESSAGE_BUDGET.sectionChars) {
    shown -= 1;
    table = formatTable(headers, rows.slice(0, shown), { maxColumnWidth: MAX_COLUMN_WIDTH });
  }
  if (codeBlock(table, Number.POSITIVE_INFINITY).length > MESSAGE_BUDGET.sectionChars) cut = true;
  return { table, shown, cut };
}

/** A query's rows as they were read: the first ones for the table, all of them in a CSV file. */
interface ReadResult {
  summary: QuerySummary;
  /** The first rows' cells as the table shows them (a long value cut, a blob as its size). */
  first: string[][];
  /** Whether the first rows hold a blob, which the table shows only by its size. */
  blobShown: boolean;
  /** Whether any row read holds a blob, which the file has in hexadecimal. */
  blobs: boolean;
  /** The CSV, header first, written row by row as the rows arrived. */
  path: string;
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
  const first: string[][] = [];
  let blobShown = false;
  let blobs = false;
  // The table shows the start of a value: a secret there is redacted whole before the cut, so
  // no part of it shows (the message's own scrub sees only whole secrets).
  const head = MAX_COLUMN_WIDTH + 1 + secrets.longest();
  const redactedHead = (cell: Cell): Cell =>
    typeof cell === 'string' ? secrets.redact(cell.length > head ? cell.slice(0, head) : cell) : cell;
  try {
    const summary = await database.streamReadOnlyQuery(sql, {
      columns: (names) => csv.write(csvRecord(names)),
      row: (cells) => {
        const blob = cells.some(isBlob);
        blobs ||= blob;
        if (first.length < MAX_TABLE_ROWS) {
          // Only what the table can show is kept: the value itself goes to the file and is let go.
          first.push(cells.map((cell) => tableCell(redactedHead(cell), MAX_COLUMN_WIDTH)));
          blobShown ||= blob;
        }
        return writeRow(csv, cells);
      },
    });
    await csv.close();
    return { summary, first, blobShown, blobs, path };
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

/** What the table leaves out, when it shows every row read. */
function leftOut(cut: boolean, blobShown: boolean): string {
  if (cut && blobShown) return 'Long values are cut and blobs shown by their size here';
  return blobShown ? 'Blobs are shown by their size here' : 'Long values are cut here';
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
  const { summary, first, blobShown, blobs, path } = await readResult(input.database, sql, input.secrets);
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
  const { table, shown, cut } = fittedTable(columns, first);
  // A blob in the table is only its size: the file is where its bytes are.
  const withFile = total > shown || cut || blobShown || summary.stopped !== undefined;
  const filename = queryFilename(input.now);
  blocks.push({ type: 'code', text: table });
  const described = `${counted(total, 'row')}, ${counted(columns.length, 'column')}`;
  const stopped = stoppedWords(summary);
  const hex = blobs ? ', blobs in hexadecimal' : '';
  const where = summary.stopped
    ? total === 0
      ? 'The file has the column names.'
      : `Showing the first ${number(shown)}; the file has the rows read${hex}.`
    : `${total > shown ? `Showing the first ${number(shown)}` : leftOut(cut, blobShown)}; the file has the complete result${hex}.`;
  blocks.push({
    type: 'context',
    text: withFile ? md`${described}. ${stopped}${where}` : md`${described}.`,
  });
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
