import { z } from 'zod';
import { DatabaseError } from '../database/errors.js';
import { counted } from '../reply/words.js';
import type { GatedOperation } from './approvals/gate.js';
import { UserFacingError } from './errors.js';
import { defineOperation, parseWith } from './types.js';

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
const ParamsSchema = z.object({ sql: z.string(), database: z.string() });

export const dbExecGate: GatedOperation = {
  id: 'db.exec',
  describe: (params) => `Run a write statement on database ${String(params.database)}`,
  fields: (params) => [
    { label: 'Statement', value: String(params.sql), code: true },
    { label: 'Database', value: String(params.database) },
  ],
  async execute(params, ctx) {
    const { sql } = ParamsSchema.parse(params);
    const database = ctx.services.database;
    if (!database) return { ok: false, detail: NOT_CONFIGURED };
    try {
      const result = await database.runWrite(sql);
      return {
        ok: true,
        detail: `${counted(result.rowsAffected, 'row')} affected${result.lastInsertRowid ? `, last insert id ${result.lastInsertRowid}` : ''}.`,
      };
    } catch (error) {
      if (error instanceof DatabaseError) return { ok: false, detail: error.userMessage };
      throw error;
    }
  },
};

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
  parse: (positionals) =>
    parseWith(ArgsSchema, { sql: positionals.join(' ').replace(/[“”]/g, '"').replace(/[‘’]/g, "'") }),
  auditParams: (args) => ({ sql: args.sql }),
  async run(ctx, args) {
    const database = ctx.services.database;
    if (!database) throw new UserFacingError(NOT_CONFIGURED);
    // A statement that cannot even be prepared is refused now, not after an approver's time.
    try {
      await database.checkStatement(args.sql);
    } catch (error) {
      if (error instanceof DatabaseError && (error.kind === 'refused' || error.kind === 'statement'))
        throw new UserFacingError(error.userMessage);
      throw error;
    }
    return ctx.services.approvals.submit(ctx, {
      operation: 'db.exec',
      target: database.databaseId,
      params: { sql: args.sql, database: database.databaseId },
      reason: '',
    });
  },
});
