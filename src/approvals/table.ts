/**
 * The approvals table as the store reaches it: reads, and write transactions, retried while the
 * database is busy; a failure is an ApprovalError.
 */
import type { Client, InStatement, ResultSet } from '@libsql/client';
import { retryBusy } from '../state/busy.js';
import { ApprovalError } from './errors.js';
import type { ApprovalRequest } from './machine.js';
import { COLUMNS, toRequest } from './row.js';

export interface ApprovalsTable {
  read(statement: InStatement): Promise<ResultSet>;
  /** The statements in one write transaction. */
  write(statements: InStatement[]): Promise<ResultSet[]>;
}

export function approvalsTable(client: Client): ApprovalsTable {
  return {
    read: (statement) =>
      retryBusy(() => client.execute(statement)).catch((error: unknown) => {
        throw new ApprovalError('approvals-unavailable', 'could not read the approvals table', {
          cause: error,
        });
      }),
    write: (statements) =>
      retryBusy(() => client.batch(statements, 'write')).catch((error: unknown) => {
        throw new ApprovalError('approvals-unavailable', 'could not write to the approvals table', {
          cause: error,
        });
      }),
  };
}

export const selectById = (id: string): InStatement => ({
  sql: `SELECT ${COLUMNS} FROM approvals WHERE id = ?`,
  args: [id],
});

export const rowsOf = (result: ResultSet | undefined): ApprovalRequest[] =>
  (result?.rows ?? []).map(toRequest);
