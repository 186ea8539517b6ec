import { z } from 'zod';
import type { CustomerDatabase } from '../../database/customer-database.js';
import type { Described } from '../../database/describe.js';
import { DatabaseError } from '../../database/errors.js';
import { type WriteShape, writeShape } from '../../database/impact.js';
import { hiddenCharacterError } from '../../reply/hidden-characters.js';
import { counted } from '../../reply/words.js';
import type { GatedOperation } from '../approvals/gate.js';
import { UserFacingError } from '../engine/errors.js';
import { defineOperation, parseWith } from '../engine/types.js';

const NOT_CONFIGURED =
  'No customer database is configured: set SERVICE_DATABASE_URL (libsql:// or https://) and SERVICE_DATABASE_AUTH_TOKEN.';

const ArgsSchema = z.object({
  sql: z
    .string()
    .trim()
    .min(1, {
      error:
        "give the SQL statement to run, e.g. /edge db exec UPDATE orders SET status = 'paid' WHERE id = 7",
    })
    .max(10_000, { error: 'the statement is too long (10,000 characters at most)' }),
});
/** What the statement touches, read before approval: the rows its WHERE matches, or why not. */
const ImpactSchema = z.union([
  z.object({ rows: z.number().int().min(0), countedAt: z.string() }),
  z.object({ unknown: z.string() }),
]);
const ParamsSchema = z.object({
  sql: z.string(),
  database: z.string(),
  impact: ImpactSchema.optional(),
  /** An UPDATE or DELETE without WHERE, naming its table: the card warns in bold. */
  everyRowOf: z.string().optional(),
  /** The statement could not be read well enough to tell whether it has a WHERE. */
  whereUnclear: z.boolean().optional(),
});
type Impact = z.infer<typeof ImpactSchema>;

const NOT_COUNTED = 'rows changed by triggers and foreign-key cascades are not counted';

/** The rows counted before approval: those its WHERE matches, or, without a WHERE, the whole table. */
function impactText(impact: Impact, noWhere: boolean): string {
  if ('unknown' in impact) return `Impact unknown: ${impact.unknown}.`;
  const when = `(counted ${impact.countedAt.slice(11, 16)} UTC, read-only); ${NOT_COUNTED}`;
  if (!noWhere)
    return `${counted(impact.rows, 'row')} ${impact.rows === 1 ? 'matches' : 'match'} its WHERE now ${when}.`;
  if (impact.rows === 0) return `It changes no row: the table is empty now ${when}.`;
  return `It changes ${impact.rows === 1 ? 'the' : 'all'} ${counted(impact.rows, 'row')} the table holds now ${when}.`;
}

export const dbExecGate: GatedOperation = {
  id: 'db.exec',
  lockPerRequester: true,
  describe: (params) => `Run a write statement on database ${String(params.database)}`,
  fields: (params) => {
    const { impact, everyRowOf } = ParamsSchema.parse(params);
    return [
      { label: 'Statement', value: String(params.sql), code: true },
      { label: 'Database', value: String(params.database) },
      ...(impact ? [{ label: 'Impact', value: impactText(impact, everyRowOf !== undefined) }] : []),
    ];
  },
  warning: (params) => {
    const { everyRowOf, whereUnclear } = ParamsSchema.parse(params);
    if (everyRowOf)
      return `*No WHERE: this changes every row of ${everyRowOf}.* Approve only if that is meant.`;
    if (whereUnclear)
      return '*The bot could not tell whether this has a WHERE.* Read the statement before approving.';
    return undefined;
  },
  async execute(params, ctx) {
    const { sql, impact } = ParamsSchema.parse(params);
    const database = ctx.services.database;
    if (!database) return { ok: false, detail: NOT_CONFIGURED };
    try {
      const result = await database.runWrite(sql);
      const preview =
        impact && 'rows' in impact ? ` (the preview counted ${counted(impact.rows, 'row')})` : '';
      // The connection's last insert id outlives the INSERT that set it: an UPDATE would show an old one.
      const inserted = writeShape(sql).verb === 'INSERT' && Boolean(result.lastInsertRowid);
      return {
        ok: true,
        detail: `${counted(result.rowsAffected, 'row')} affected${preview}${inserted ? `, last insert id ${result.lastInsertRowid}` : ''}.`,
      };
    } catch (error) {
      if (error instanceof DatabaseError) return { ok: false, detail: error.userMessage };
      throw error;
    }
  },
};

/** Counts, read-only and under the query deadline, the rows an UPDATE or DELETE would touch. */
async function readImpact(database: CustomerDatabase, shape: WriteShape, now: number): Promise<Impact> {
  if (!shape.countSql) return { unknown: shape.unknownWhy ?? 'the statement could not be read' };
  try {
    const result = await database.runReadOnlyQuery(shape.countSql);
    const rows = Number(result.rows[0]?.[0]);
    if (!Number.isSafeInteger(rows) || rows < 0) return { unknown: 'the count could not be read' };
    return { rows, countedAt: new Date(now).toISOString() };
  } catch (error) {
    if (error instanceof DatabaseError) return { unknown: `the count failed: ${error.userMessage}` };
    throw error;
  }
}

/**
 * `/edge db exec SQL`: one statement in a write transaction, after approval. The SQL is taken
 * verbatim and the card shows it whole, so approvers see exactly what will run.
 */
export const dbExec = defineOperation({
  id: 'db.exec',
  words: ['db', 'exec'],
  usage: '/edge db exec SQL',
  summary: 'run one write statement on the customer database (needs approval)',
  example: "/edge db exec UPDATE orders SET status = 'refunded' WHERE id = 7",
  flags: {},
  changes: { command: true },
  rawArgument: true,
  parse(positionals) {
    const sql = positionals.join(' ');
    const hidden = hiddenCharacterError(sql, 'the statement');
    if (hidden) return { ok: false, error: hidden };
    return parseWith(ArgsSchema, { sql: sql.replace(/[“”]/g, '"').replace(/[‘’]/g, "'") });
  },
  auditParams: (args) => ({ sql: args.sql }),
  async run(ctx, args) {
    const database = ctx.services.database;
    if (!database) throw new UserFacingError(NOT_CONFIGURED);
    // A statement that cannot even be prepared is refused now, not after an approver's time.
    let described: Described;
    try {
      described = await database.checkStatement(args.sql);
    } catch (error) {
      if (error instanceof DatabaseError && (error.kind === 'refused' || error.kind === 'statement'))
        throw new UserFacingError(error.userMessage);
      throw error;
    }
    if (described.isReadonly)
      throw new UserFacingError(
        'The database says this statement only reads, so it needs no approval: run it with /edge db query instead.',
      );
    const shape = writeShape(args.sql);
    // The count reads data at request time, before anyone approves: only for someone who may
    // read it anyway with /edge db query here, without an approval, so db exec is no way round
    // that grant or that rule.
    const mayRead = (await ctx.access.allowed()).has('db.query');
    const readHeld = mayRead && (await ctx.access.held()).has('db.query');
    const impact =
      shape.verb === 'UPDATE' || shape.verb === 'DELETE'
        ? mayRead && !readHeld
          ? await readImpact(database, shape, ctx.services.now())
          : {
              unknown: readHeld
                ? 'counting rows would run db.query, which an approval rule holds in this channel'
                : 'counting rows needs the db.query grant in this channel, which the requester does not have',
            }
        : undefined;
    return ctx.services.approvals.submit(ctx, {
      operation: 'db.exec',
      target: database.databaseId,
      params: {
        sql: args.sql,
        database: database.databaseId,
        ...(impact ? { impact } : {}),
        ...(shape.noWhere ? { everyRowOf: shape.table ?? 'the table it names' } : {}),
        ...(shape.whereUnclear ? { whereUnclear: true } : {}),
      },
      reason: '',
    });
  },
});
