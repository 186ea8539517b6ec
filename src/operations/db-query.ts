import { UTCDate } from '@date-fns/utc';
import { z } from 'zod';
import { resultCsv, tableCell } from '../database/cells.js';
import { customerDatabaseOf, type QueryResult } from '../database/customer-database.js';
import { DatabaseError, type DatabaseErrorKind } from '../database/errors.js';
import { format } from '../date-fns.js';
import { PlatformError, type PlatformErrorKind } from '../platform/errors.js';
import { codeBlock } from '../slack/escape.js';
import { SECTION_TEXT_MAX } from '../slack/limits.js';
import { UserFacingError } from './engine.js';
import { md } from './markup.js';
import { inChannel, type Reply, type ReplyBlock } from './reply.js';
import { formatTable } from './table.js';
import { defineOperation, parseWith, type RunContext } from './types.js';

/** Rows shown in the message; the rest are in the CSV file. */
export const MAX_TABLE_ROWS = 20;
/** Widest a column may be in the message; wider cells are cut there and complete in the CSV. */
export const MAX_COLUMN_WIDTH = 32;
/** How much of the statement the message repeats. */
const MAX_SHOWN_SQL = 500;

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
function fittedTable(result: QueryResult): { table: string; shown: number; cut: boolean } {
  const headers = result.columns;
  const rows = result.rows.slice(0, MAX_TABLE_ROWS).map((row) => row.map(tableCell));
  // Anything flattened or shortened for the table differs from the data: the CSV has it whole.
  let cut = [headers, ...rows].some((row) =>
    row.some((cell) => cell.length > MAX_COLUMN_WIDTH || /[\u0000-\u001f\u007f]/.test(cell)),
  );
  let shown = rows.length;
  let table = formatTable(headers, rows, { maxColumnWidth: MAX_COLUMN_WIDTH });
  while (shown > 0 && codeBlock(table, Number.POSITIVE_INFINITY).length > SECTION_TEXT_MAX) {
    shown -= 1;
    table = formatTable(headers, rows.slice(0, shown), { maxColumnWidth: MAX_COLUMN_WIDTH });
  }
  if (codeBlock(table, Number.POSITIVE_INFINITY).length > SECTION_TEXT_MAX) cut = true;
  return { table, shown, cut };
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

function resultReply(ctx: RunContext, sql: string, result: QueryResult): Reply {
  const statement = sql.length > MAX_SHOWN_SQL ? `${sql.slice(0, MAX_SHOWN_SQL)}…` : sql;
  const blocks: ReplyBlock[] = [
    { type: 'text', text: md`*Query* by <@${ctx.userId}>` },
    { type: 'code', text: statement },
  ];
  if (result.columns.length === 0) {
    blocks.push({ type: 'context', text: md`The statement ran and returned no rows.` });
    return inChannel('The query returned no rows', blocks);
  }
  const total = result.rows.length;
  const { table, shown, cut } = fittedTable(result);
  const withFile = total > shown || cut;
  const filename = queryFilename(ctx.services.now());
  blocks.push({ type: 'code', text: table });
  const summary = `${plural(total, 'row')}, ${plural(result.columns.length, 'column')}`;
  blocks.push({
    type: 'context',
    text: withFile
      ? md`${summary}. ${total > shown ? `Showing the first ${shown}` : 'Long values are cut here'}; the file has the complete result.`
      : md`${summary}.`,
  });
  const reply = inChannel(`The query returned ${plural(total, 'row')}`, blocks);
  if (!withFile) return reply;
  return {
    ...reply,
    files: [
      {
        filename,
        title: `Query result (${plural(total, 'row')})`,
        content: resultCsv(result),
        about: `the complete result, ${plural(total, 'row')}`,
        comment: `${summary} from: ${statement}`,
      },
    ],
  };
}

const FAILED_KIND: Record<Exclude<DatabaseErrorKind, 'refused' | 'statement'>, PlatformErrorKind> = {
  unauthorized: 'unauthorized',
  busy: 'rate-limited',
  unreachable: 'network',
  timeout: 'network',
  server: 'server',
};

/**
 * The statement's own problems are the user's to fix (refused); a database that cannot be
 * reached or refuses the token is a failure of the call, reported with a correlation id.
 */
function asReplyError(ctx: RunContext, error: DatabaseError): Error {
  ctx.logger.warn('customer database query failed', {
    kind: error.kind,
    code: error.code,
    status: error.status,
    message: error.userMessage,
  });
  if (error.kind === 'refused' || error.kind === 'statement') return new UserFacingError(error.userMessage);
  return new PlatformError({
    kind: FAILED_KIND[error.kind],
    operation: 'database.query',
    userMessage: error.userMessage,
    status: error.status,
  });
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
  parse: (positionals) =>
    parseWith(DbQueryArgsSchema, {
      sql: positionals.join(' ').replace(/[“”]/g, '"').replace(/[‘’]/g, "'"),
    }),
  auditParams: (args: DbQueryArgs) => ({ sql: args.sql }),
  async run(ctx, args) {
    const database = customerDatabaseOf(ctx.services);
    if (!database) throw new UserFacingError(NOT_CONFIGURED);
    let result: QueryResult;
    try {
      result = await database.runReadOnlyQuery(args.sql);
    } catch (error) {
      if (error instanceof DatabaseError) throw asReplyError(ctx, error);
      throw error;
    }
    return resultReply(ctx, args.sql, result);
  },
});
