/** What the store reads from the approvals table: one request, a list, and the counts. */
import type { InStatement } from '@libsql/client';
import { z } from 'zod';
import { APPROVAL_STATES, type ApprovalRequest, type ApprovalState } from './machine.js';
import { COLUMNS, toRequest } from './row.js';
import { type ApprovalsTable, selectById } from './table.js';

const StateCountSchema = z.object({ state: z.enum(APPROVAL_STATES), n: z.number().int() });

/** Which requests `list` returns, newest first. */
export type ApprovalQuery =
  | { kind: 'states'; states: readonly ApprovalState[] }
  | { kind: 'all' }
  /** Pending and not yet expired at `at`. */
  | { kind: 'waiting'; at: Date };

/** The request with this id, or null. */
export async function getRequest(table: ApprovalsTable, id: string): Promise<ApprovalRequest | null> {
  const result = await table.read(selectById(id));
  const row = result.rows[0];
  return row === undefined ? null : toRequest(row);
}

/** The requests `query` names, newest first, at most `limit`. */
export async function listRequests(
  table: ApprovalsTable,
  query: ApprovalQuery,
  limit: number,
): Promise<ApprovalRequest[]> {
  let statement: InStatement;
  if (query.kind === 'states') {
    const states = query.states.filter((state) => APPROVAL_STATES.includes(state));
    if (states.length === 0) return [];
    statement = {
      sql: `SELECT ${COLUMNS} FROM approvals WHERE state IN (${states.map(() => '?').join(', ')})
            ORDER BY created_at DESC, id LIMIT ?`,
      args: [...states, limit],
    };
  } else if (query.kind === 'all') {
    statement = {
      sql: `SELECT ${COLUMNS} FROM approvals ORDER BY created_at DESC, id LIMIT ?`,
      args: [limit],
    };
  } else {
    statement = {
      sql: `SELECT ${COLUMNS} FROM approvals WHERE state = 'pending' AND expires_at > ?
            ORDER BY created_at DESC, id LIMIT ?`,
      args: [query.at.getTime(), limit],
    };
  }
  return (await table.read(statement)).rows.map(toRequest);
}

/** How many pending requests have not expired at `at`: those a waiting list would show. */
export async function countWaiting(table: ApprovalsTable, at: Date): Promise<number> {
  const result = await table.read({
    sql: "SELECT count(*) AS n FROM approvals WHERE state = 'pending' AND expires_at > ?",
    args: [at.getTime()],
  });
  return z.number().int().parse(result.rows[0]?.n);
}

/** How many requests are in each state, every state listed (the approvals-by-state gauge). */
export async function countByState(table: ApprovalsTable): Promise<Record<ApprovalState, number>> {
  const counts = Object.fromEntries(APPROVAL_STATES.map((state) => [state, 0])) as Record<
    ApprovalState,
    number
  >;
  const result = await table.read('SELECT state, count(*) AS n FROM approvals GROUP BY state');
  for (const row of result.rows) {
    const parsed = StateCountSchema.parse(row);
    counts[parsed.state] = parsed.n;
  }
  return counts;
}
