/** `execute`: one statement with its arguments, answered with its columns and rows as Hrana values. */
import type { HranaValue } from '../../platform/schemas.js';
import type { SqlResult } from '../database.js';
import type { SqlValue } from '../database-engine.js';
import { StatementError } from '../statement-error.js';
import { type RequestContext, resolveSql, singleStatement } from './stream.js';
import type { RequestOf, Stmt, StmtResult, StreamResponse } from './wire.js';

function toArg(value: HranaValue): SqlValue {
  switch (value.type) {
    case 'null':
      return null;
    case 'integer':
      return BigInt(value.value);
    case 'float':
      return value.value;
    case 'text':
      return value.value;
    case 'blob': {
      const bytes = Buffer.from(value.base64, 'base64');
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    }
  }
}

function toHranaValue(value: unknown): HranaValue {
  if (value === null || value === undefined) return { type: 'null' };
  if (typeof value === 'bigint') return { type: 'integer', value: value.toString() };
  if (typeof value === 'number') return { type: 'float', value };
  if (typeof value === 'string') return { type: 'text', value };
  if (value instanceof ArrayBuffer) {
    return { type: 'blob', base64: Buffer.from(value).toString('base64').replace(/=+$/, '') };
  }
  return { type: 'text', value: String(value) };
}

function toStmtResult(result: SqlResult, wantRows: boolean): StmtResult {
  const width = result.columns.length;
  return {
    cols: result.columns.map((name, index) => ({ name, decltype: result.columnTypes[index] || null })),
    rows: wantRows
      ? result.rows.map((row) => Array.from({ length: width }, (_, i) => toHranaValue(row[i])))
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
  const positional = (stmt.args ?? []).map(toArg);
  const named = stmt.named_args ?? [];
  if (positional.length > 0 && named.length > 0) {
    throw new StatementError(
      'ARGS_BOTH_POSITIONAL_AND_NAMED',
      'Statement has both positional and named arguments',
    );
  }
  const args =
    named.length > 0 ? Object.fromEntries(named.map(({ name, value }) => [name, toArg(value)])) : positional;
  const result = await ctx.stream.session.execute({ sql, args }, ctx.readOnly, ctx.signal);
  return toStmtResult(result, stmt.want_rows !== false);
}

export async function execute(ctx: RequestContext, request: RequestOf<'execute'>): Promise<StreamResponse> {
  return { type: 'execute', result: await executeStmt(ctx, request.stmt) };
}
