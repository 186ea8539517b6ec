/** `describe`: a statement's parameters and result columns, without running it. */
import { statementParams, statementShape } from '../sql-text.js';
import { type RequestContext, resolveSql, singleStatement } from './stream.js';
import type { RequestOf, StreamResponse } from './wire.js';

export async function describe(ctx: RequestContext, request: RequestOf<'describe'>): Promise<StreamResponse> {
  const sql = singleStatement(resolveSql(ctx.stream, request.sql, request.sql_id));
  const shape = statementShape(sql);
  const params = statementParams(sql).map((name) => ({ name }));
  if (shape.isExplain) {
    const cols = ['addr', 'opcode', 'p1', 'p2', 'p3', 'p4', 'p5', 'comment'].map((name) => ({
      name,
      decltype: null,
    }));
    return { type: 'describe', result: { params, cols, is_explain: true, is_readonly: true } };
  }
  const described = await ctx.database.describe(sql, ctx.signal);
  return {
    type: 'describe',
    result: { params, cols: described.cols, is_explain: false, is_readonly: described.isReadonly },
  };
}
