/** `execute`: one statement with its arguments, answered with its columns and rows as Hrana values. */
import { decodeHranaValue, encodeHranaValue } from '../../database/hrana-value.js';
import type { SqlResult } from '../database.js';
import { StatementError } from '../statement-error.js';
import { type RequestContext, resolveSql, singleStatement } from './stream.js';
import type { RequestOf, Stmt, StmtResult, StreamResponse } from './wire.js';

function toStmtResult(result: SqlResult, wantRows: boolean): StmtResult {
  const width = result.columns.length;
  return {
    cols: result.columns.map((name, index) => ({ name, decltype: result.columnTypes[index] || null })),
    rows: wantRows
      ? result.rows.map((row) => Array.from({ length: width }, (_, i) => encodeHranaValue(row[i])))
      : [],
    affected_row_count: result.rowsAffected,
    last_insert_rowid: result.lastInsertRowid === undefined ? null : result.lastInsertRowid.toString(),
    replication_index: null,
  };
}

/** Runs one statement on the request's stream; a batch runs each of its steps through here. */
export async function executeStmt(ctx: RequestContext, stmt: Stmt): Promise<StmtResult> {
  const sql = resolveSql(ctx.stream, stmt.sql, stmt.sql_id);
  singleStatement(sql);
  const positional = (stmt.args ?? []).map(decodeHranaValue);
  const named = stmt.named_args ?? [];
  if (positional.length > 0 && named.length > 0) {
    throw new StatementError(
      'ARGS_BOTH_POSITIONAL_AND_NAMED',
      'Statement has both positional and named arguments',
    );
  }
  const args =
    named.length > 0
      ? Object.fromEntries(named.map(({ name, value }) => [name, decodeHranaValue(value)]))
      : positional;
  const result = await ctx.stream.session.execute({ sql, args }, ctx.readOnly, ctx.signal);
  return toStmtResult(result, stmt.want_rows !== false);
}

export async function execute(ctx: RequestContext, request: RequestOf<'execute'>): Promise<StreamResponse> {
  return { type: 'execute', result: await executeStmt(ctx, request.stmt) };
}
