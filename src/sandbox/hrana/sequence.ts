/** `sequence`: several statements run one after another, answering nothing but success. */
import { splitStatements } from '../sql-text.js';
import { type RequestContext, resolveSql } from './stream.js';
import type { RequestOf, StreamResponse } from './wire.js';

export async function sequence(ctx: RequestContext, request: RequestOf<'sequence'>): Promise<StreamResponse> {
  const sql = resolveSql(ctx.stream, request.sql, request.sql_id);
  for (const statement of splitStatements(sql)) {
    await ctx.stream.session.execute({ sql: statement, args: [] }, ctx.readOnly, ctx.signal);
  }
  return { type: 'sequence' };
}
