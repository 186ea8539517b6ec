/**
 * What every request of a pipeline runs on: its stream (a database session kept open by a
 * baton, with the SQL texts stored on it), and how a request names its SQL.
 */
import { EdgeopsError } from '../../errors.js';
import type { SandboxDatabase, SqlSession } from '../database.js';
import { splitStatements } from '../sql-text.js';
import { StatementError } from '../statement-error.js';

export interface Stream {
  session: SqlSession;
  sqls: Map<number, string>;
  lastUsed: number;
  closed: boolean;
}

/** What a request runs with: its stream, the database, whether the token is read-only, the client's signal. */
export interface RequestContext {
  stream: Stream;
  database: SandboxDatabase;
  readOnly: boolean;
  /** Aborted when the client went away: the statement running for it stops. */
  signal: AbortSignal | undefined;
}

/** A malformed request: the whole pipeline fails with 400, as sqld does. */
export class ProtocolError extends EdgeopsError {
  override name = 'ProtocolError';
  readonly kind = 'hrana-protocol';
  readonly outcome = 'refused';
  readonly unexpected = false;

  get userMessage(): string {
    return this.message;
  }
}

/** The SQL a request gives as text or as the id of a text stored on the stream. */
export function resolveSql(
  stream: Stream,
  sql: string | null | undefined,
  id: number | null | undefined,
): string {
  if (sql != null && id != null) throw new ProtocolError('Received both sql and sql_id');
  if (sql != null) return sql;
  if (id == null) throw new ProtocolError('Received neither sql nor sql_id');
  const stored = stream.sqls.get(id);
  if (stored === undefined) throw new ProtocolError(`SQL text with id ${id} was not found`);
  return stored;
}

export function singleStatement(sql: string): string {
  const statements = splitStatements(sql);
  if (statements.length === 0) {
    throw new StatementError('SQL_NO_STATEMENT', 'SQL string does not contain any statement');
  }
  if (statements.length > 1) {
    throw new StatementError('SQL_MANY_STATEMENTS', 'SQL string contains more than one statement');
  }
  return statements[0] ?? '';
}
