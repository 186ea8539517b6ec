/**
 * Every write to the approvals table. Each state change is one conditional UPDATE (its WHERE
 * clause names the state, and the version where a click races others) returned with its
 * affected-row count and the row as it is right after, in one write transaction.
 */
import type { InStatement } from '@libsql/client';
import type { JsonValue } from '../state/canonical-json.js';
import type { ApprovalRequest, ExecutionResult } from './machine.js';
import { COLUMNS, storedParamsIntact, toRequest, votesJson } from './row.js';
import { type ApprovalsTable, rowsOf, selectById } from './table.js';

const OPEN = "('pending', 'approved', 'executing')";

/** A new pending request as it is stored: the parameters already in canonical JSON with their digest. */
export interface NewStoredRequest {
  id: string;
  operation: string;
  target: string;
  /** '' when the lock is the operation and target's; the requester when each person holds their own. */
  lockOwner: string;
  paramsJson: string;
  paramsDigest: string;
  requester: string;
  channelId: string;
  reason: string;
  createdAt: Date;
  expiresAt: Date;
  required: number;
  approverRoles: readonly string[];
  approverIds: readonly string[];
  confirm: boolean;
  escalation?: { role: string; ids: readonly string[] };
}

export interface InsertOutcome {
  /** Pending requests holding the same lock whose expiry had passed, closed first. */
  closed: ApprovalRequest[];
  /** 1 when the new request was stored; 0 when an open request holds the lock (or the id was taken). */
  rowsInserted: number;
  /** The open request holding the lock after the insert, whichever it is. */
  open: ApprovalRequest | null;
}

/** One conditional UPDATE: how many rows it changed (1 or 0), and the row right after. */
export interface Transition {
  rowsAffected: number;
  /** Null when there is no request with that id. */
  request: ApprovalRequest | null;
}

/** A row as stored, decoded on demand: the digest is checked against the raw text, before decoding. */
export interface StoredApproval {
  /** The request; throws ApprovalError when a column is unreadable. */
  request(): ApprovalRequest;
  /** The stored parameters when their text is exactly what was approved; null when it is not. */
  intactParams(): Record<string, JsonValue> | null;
}

export interface ExecutionClaim {
  /** 1 when this call moved the request from approved to executing. */
  rowsAffected: number;
  /** The row right after; null when there is no request with that id. */
  stored: StoredApproval | null;
}

/** What a click changes on a pending request. */
export type Decision = Pick<ApprovalRequest, 'state' | 'approvals' | 'decidedBy' | 'decidedAt'> &
  Partial<Pick<ApprovalRequest, 'decisionReason'>>;

export interface RecoveryQuery {
  at: Date;
  /** The executor id of the service recovering: its own executions are alive. */
  executor: string;
  /** Only executions started before this time (all when null). */
  startedBefore: Date | null;
  /** Also approvals decided before this time that nobody started; none when null. */
  approvedBefore: Date | null;
  /** The result stored on an approval that never started. */
  notStartedResult: ExecutionResult;
}

/** One conditional UPDATE and the row as it is right after, in one write transaction. */
async function transition(table: ApprovalsTable, update: InStatement, id: string): Promise<Transition> {
  const [updated, after] = await table.write([update, selectById(id)]);
  const row = after?.rows[0];
  return { rowsAffected: updated?.rowsAffected ?? 0, request: row === undefined ? null : toRequest(row) };
}

/**
 * In one write transaction: closes the expired pending requests holding the same lock (operation,
 * target and lock owner), stores the new one unless an open request holds it, and reads the open one.
 */
export async function insertPending(
  table: ApprovalsTable,
  request: NewStoredRequest,
): Promise<InsertOutcome> {
  const [closed, inserted, open] = await table.write([
    {
      // A request whose expiry passed before the sweep ran must not hold the lock.
      sql: `UPDATE approvals SET state = 'expired', decided_at = expires_at, version = version + 1
            WHERE operation = ? AND target = ? AND lock_owner = ? AND state = 'pending' AND expires_at <= ?
            RETURNING ${COLUMNS}`,
      args: [request.operation, request.target, request.lockOwner, request.createdAt.getTime()],
    },
    {
      // DO NOTHING on any uniqueness conflict: the open-request index or, very unlikely, the id.
      sql: `INSERT INTO approvals (id, operation, target, lock_owner, params_json, params_digest,
              requester, channel_id, reason, state, created_at, expires_at, required,
              approver_roles_json, approver_ids_json, confirm, approvals_json, escalate_role,
              escalate_ids_json, version)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, '[]', ?, ?, 0)
            ON CONFLICT DO NOTHING`,
      args: [
        request.id,
        request.operation,
        request.target,
        request.lockOwner,
        request.paramsJson,
        request.paramsDigest,
        request.requester,
        request.channelId,
        request.reason,
        request.createdAt.getTime(),
        request.expiresAt.getTime(),
        request.required,
        JSON.stringify(request.approverRoles),
        JSON.stringify(request.approverIds),
        request.confirm ? 1 : 0,
        request.escalation?.role ?? null,
        request.escalation ? JSON.stringify(request.escalation.ids) : null,
      ],
    },
    {
      sql: `SELECT ${COLUMNS} FROM approvals
            WHERE operation = ? AND target = ? AND lock_owner = ? AND state IN ${OPEN}`,
      args: [request.operation, request.target, request.lockOwner],
    },
  ]);
  const openRow = open?.rows[0];
  return {
    closed: rowsOf(closed),
    rowsInserted: inserted?.rowsAffected ?? 0,
    open: openRow === undefined ? null : toRequest(openRow),
  };
}

/** A click's change to a pending request, if it is still at `version` and not expired at `at`. */
export function decide(
  table: ApprovalsTable,
  id: string,
  version: number,
  change: Decision,
  at: Date,
): Promise<Transition> {
  return transition(
    table,
    {
      sql: `UPDATE approvals SET state = ?, approvals_json = ?, decided_by = ?, decided_at = ?,
              decision_reason = ?, version = version + 1
            WHERE id = ? AND state = 'pending' AND version = ? AND expires_at > ?`,
      args: [
        change.state,
        votesJson(change.approvals),
        change.decidedBy,
        change.decidedAt?.getTime() ?? null,
        change.decisionReason ?? null,
        id,
        version,
        at.getTime(),
      ],
    },
    id,
  );
}

/** `approved → executing`, naming the executor. */
export async function claimExecution(
  table: ApprovalsTable,
  id: string,
  executor: string,
  at: Date,
): Promise<ExecutionClaim> {
  const [claimed, after] = await table.write([
    {
      sql: `UPDATE approvals SET state = 'executing', started_at = ?, executor = ?, version = version + 1
            WHERE id = ? AND state = 'approved'`,
      args: [at.getTime(), executor, id],
    },
    selectById(id),
  ]);
  const row = after?.rows[0];
  return {
    rowsAffected: claimed?.rowsAffected ?? 0,
    stored:
      row === undefined
        ? null
        : { request: () => toRequest(row), intactParams: () => storedParamsIntact(row) },
  };
}

/** `executing → succeeded | failed`, with the result. */
export function finishExecution(
  table: ApprovalsTable,
  id: string,
  state: 'succeeded' | 'failed',
  result: ExecutionResult,
  at: Date,
): Promise<Transition> {
  return transition(
    table,
    {
      sql: `UPDATE approvals SET state = ?, result_json = ?, finished_at = ?, version = version + 1
            WHERE id = ? AND state = 'executing'`,
      args: [state, JSON.stringify(result), at.getTime(), id],
    },
    id,
  );
}

/** Closes pending requests whose expiry is at or before `at` (only request `id` when given). */
export async function expirePending(
  table: ApprovalsTable,
  at: Date,
  id?: string,
): Promise<ApprovalRequest[]> {
  const [updated] = await table.write([
    {
      // decided_at is the moment it expired, not the moment a sweep noticed.
      sql: `UPDATE approvals SET state = 'expired', decided_at = expires_at, version = version + 1
            WHERE state = 'pending' AND expires_at <= ? AND ${id === undefined ? '1 = 1' : 'id = ?'}
            RETURNING ${COLUMNS}`,
      args: id === undefined ? [at.getTime()] : [at.getTime(), id],
    },
  ]);
  return rowsOf(updated);
}

/** Marks executions cut off by a crash, and approvals nobody started, `unknown`, in one transaction. */
export async function markUnknown(
  table: ApprovalsTable,
  query: RecoveryQuery,
): Promise<{ interrupted: ApprovalRequest[]; notStarted: ApprovalRequest[] }> {
  const at = query.at.getTime();
  const statements: InStatement[] = [
    {
      // The recovering service's own executions are alive; anything else found running was cut off.
      sql: `UPDATE approvals SET state = 'unknown', finished_at = ?, version = version + 1
            WHERE state = 'executing' AND (executor IS NULL OR executor <> ?)
              AND (started_at IS NULL OR started_at < ?)
            RETURNING ${COLUMNS}`,
      args: [at, query.executor, query.startedBefore?.getTime() ?? Number.MAX_SAFE_INTEGER],
    },
  ];
  if (query.approvedBefore !== null)
    statements.push({
      // Nothing ran: an execution moves a request to executing before anything runs.
      sql: `UPDATE approvals SET state = 'unknown', finished_at = ?, result_json = ?, version = version + 1
            WHERE state = 'approved' AND (decided_at IS NULL OR decided_at < ?)
            RETURNING ${COLUMNS}`,
      args: [at, JSON.stringify(query.notStartedResult), query.approvedBefore.getTime()],
    });
  const [interrupted, notStarted] = await table.write(statements);
  return { interrupted: rowsOf(interrupted), notStarted: rowsOf(notStarted) };
}

/** `pending → cancelled` without a click (its card could not be posted). */
export function cancelPending(table: ApprovalsTable, id: string, at: Date): Promise<Transition> {
  return transition(
    table,
    {
      sql: `UPDATE approvals SET state = 'cancelled', decided_at = ?, version = version + 1
            WHERE id = ? AND state = 'pending'`,
      args: [at.getTime(), id],
    },
    id,
  );
}

/** Where the card was posted; not a state change, so the version stays. */
export async function setCard(table: ApprovalsTable, id: string, channel: string, ts: string): Promise<void> {
  await table.write([
    { sql: 'UPDATE approvals SET card_channel = ?, card_ts = ? WHERE id = ?', args: [channel, ts, id] },
  ]);
}

/**
 * Marks reminded, and returns, the pending requests with a card that are halfway to their
 * expiry at `at` and were not reminded yet. One conditional UPDATE: of several replicas
 * sweeping at once, each request goes to exactly one. Not a state change, so the version stays.
 */
export async function claimReminders(table: ApprovalsTable, at: Date): Promise<ApprovalRequest[]> {
  const [claimed] = await table.write([
    {
      // Halfway: created_at + (expires_at - created_at) / 2, compared without rounding.
      sql: `UPDATE approvals SET reminded_at = ?
            WHERE state = 'pending' AND reminded_at IS NULL AND card_ts IS NOT NULL
              AND expires_at > ? AND created_at + expires_at <= 2 * ?
            RETURNING ${COLUMNS}`,
      args: [at.getTime(), at.getTime(), at.getTime()],
    },
  ]);
  return rowsOf(claimed);
}
