/**
 * The approvals table: the row codec and every statement the service runs. Each state change
 * is one conditional UPDATE (its WHERE clause names the state, and the version where a click
 * races others) returned with its affected-row count and the row as it is right after, in one
 * write transaction; the service reads the count to decide who won. This module decides no
 * transition and reads no clock: the service passes the time in.
 */
import { createHash } from 'node:crypto';
import type { Client, InStatement, ResultSet, Row } from '@libsql/client';
import { z } from 'zod';
import { retryBusy } from '../state/busy.js';
import { canonicalJson, type JsonValue } from '../state/canonical-json.js';
import {
  APPROVAL_STATES,
  type ApprovalRequest,
  type ApprovalState,
  type ApprovalVote,
  type ExecutionResult,
} from './machine.js';

/** The approvals table could not be read or written, or a caller passed an invalid value. */
export class ApprovalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApprovalError';
  }
}

/** An operation's parameters: any JSON object. */
export const ParamsSchema = z.record(z.string(), z.json());

export const ExecutionResultSchema = z.object({ ok: z.boolean(), detail: z.string() });

/** SHA-256 (hex) of the parameters' canonical JSON: stored with them, checked before they run. */
export function paramsDigest(canonicalParams: string): string {
  return createHash('sha256').update(canonicalParams).digest('hex');
}

const StoredRowSchema = z.object({
  id: z.string(),
  operation: z.string(),
  target: z.string(),
  params_json: z.string(),
  params_digest: z.string(),
  requester: z.string(),
  channel_id: z.string(),
  reason: z.string(),
  state: z.enum(APPROVAL_STATES),
  created_at: z.number().int(),
  expires_at: z.number().int(),
  required: z.number().int(),
  approver_roles_json: z.string(),
  approver_ids_json: z.string(),
  confirm: z.number().int(),
  approvals_json: z.string(),
  decided_by: z.string().nullable(),
  decided_at: z.number().int().nullable(),
  started_at: z.number().int().nullable(),
  finished_at: z.number().int().nullable(),
  result_json: z.string().nullable(),
  card_channel: z.string().nullable(),
  card_ts: z.string().nullable(),
  reminded_at: z.number().int().nullable(),
  decision_reason: z.string().nullable(),
  escalate_role: z.string().nullable(),
  escalate_ids_json: z.string().nullable(),
  version: z.number().int(),
});

const COLUMNS = Object.keys(StoredRowSchema.shape).join(', ');

const StringListSchema = z.array(z.string());
const VotesSchema = z.array(z.object({ userId: z.string(), at: z.iso.datetime() }));
const ParamsTextRowSchema = z.object({ params_json: z.string(), params_digest: z.string() });
const StateCountSchema = z.object({ state: z.enum(APPROVAL_STATES), n: z.number().int() });

const OPEN = "('pending', 'approved', 'executing')";

function parseJson<T>(text: string, schema: z.ZodType<T>, what: string, id: string): T {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ApprovalError(`approval ${id} is unreadable: ${what} is not valid JSON`, { cause: error });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new ApprovalError(`approval ${id} is unreadable: ${what} has the wrong shape`, {
      cause: parsed.error,
    });
  return parsed.data;
}

const dateOrNull = (ms: number | null) => (ms === null ? null : new Date(ms));

function toRequest(raw: Row): ApprovalRequest {
  const stored = StoredRowSchema.safeParse(raw);
  if (!stored.success)
    throw new ApprovalError('an approval row has missing or mistyped columns', { cause: stored.error });
  const row = stored.data;
  return {
    id: row.id,
    operation: row.operation,
    target: row.target,
    params: parseJson(row.params_json, ParamsSchema, 'params_json', row.id),
    paramsDigest: row.params_digest,
    requester: row.requester,
    channelId: row.channel_id,
    reason: row.reason,
    state: row.state,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    required: row.required,
    approverRoles: parseJson(row.approver_roles_json, StringListSchema, 'approver_roles_json', row.id),
    approverIds: parseJson(row.approver_ids_json, StringListSchema, 'approver_ids_json', row.id),
    confirm: row.confirm === 1,
    approvals: parseJson(row.approvals_json, VotesSchema, 'approvals_json', row.id).map((vote) => ({
      userId: vote.userId,
      at: new Date(vote.at),
    })),
    decidedBy: row.decided_by,
    decidedAt: dateOrNull(row.decided_at),
    decisionReason: row.decision_reason,
    startedAt: dateOrNull(row.started_at),
    finishedAt: dateOrNull(row.finished_at),
    result:
      row.result_json === null
        ? null
        : parseJson(row.result_json, ExecutionResultSchema, 'result_json', row.id),
    card:
      row.card_channel !== null && row.card_ts !== null
        ? { channel: row.card_channel, ts: row.card_ts }
        : null,
    remindedAt: dateOrNull(row.reminded_at),
    escalation:
      row.escalate_role === null || row.escalate_ids_json === null
        ? null
        : {
            role: row.escalate_role,
            ids: parseJson(row.escalate_ids_json, StringListSchema, 'escalate_ids_json', row.id),
          },
    version: row.version,
  };
}

/** Whether the stored text is still exactly what was approved: canonical, and matching its digest. */
function storedParamsIntact(raw: Row): Record<string, JsonValue> | null {
  const text = ParamsTextRowSchema.safeParse(raw);
  if (!text.success) return null;
  const { params_json: paramsJson, params_digest: digest } = text.data;
  if (paramsDigest(paramsJson) !== digest) return null;
  try {
    const parsed = ParamsSchema.safeParse(JSON.parse(paramsJson));
    if (!parsed.success) return null;
    const params: Record<string, JsonValue> = parsed.data;
    return canonicalJson(params) === paramsJson ? params : null;
  } catch {
    return null;
  }
}

const votesJson = (votes: readonly ApprovalVote[]) =>
  JSON.stringify(votes.map((vote) => ({ userId: vote.userId, at: vote.at.toISOString() })));

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

/** Which requests `list` returns, newest first. */
export type ApprovalQuery =
  | { kind: 'states'; states: readonly ApprovalState[] }
  | { kind: 'all' }
  /** Pending and not yet expired at `at`. */
  | { kind: 'waiting'; at: Date };

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

export interface ApprovalStore {
  get(id: string): Promise<ApprovalRequest | null>;
  list(query: ApprovalQuery, limit: number): Promise<ApprovalRequest[]>;
  /** How many requests are in each state, every state listed (the approvals-by-state gauge). */
  countByState(): Promise<Record<ApprovalState, number>>;
  /** How many pending requests have not expired at `at`: those a waiting list would show. */
  countWaiting(at: Date): Promise<number>;
  /**
   * In one write transaction: closes the expired pending requests holding the same lock (operation,
   * target and lock owner), stores the new one unless an open request holds it, and reads the open one.
   */
  insertPending(request: NewStoredRequest): Promise<InsertOutcome>;
  /** A click's change to a pending request, if it is still at `version` and not expired at `at`. */
  decide(
    id: string,
    version: number,
    change: Pick<ApprovalRequest, 'state' | 'approvals' | 'decidedBy' | 'decidedAt'> &
      Partial<Pick<ApprovalRequest, 'decisionReason'>>,
    at: Date,
  ): Promise<Transition>;
  /** `approved → executing`, naming the executor. */
  claimExecution(id: string, executor: string, at: Date): Promise<ExecutionClaim>;
  /** `executing → succeeded | failed`, with the result. */
  finishExecution(
    id: string,
    state: 'succeeded' | 'failed',
    result: ExecutionResult,
    at: Date,
  ): Promise<Transition>;
  /** Closes pending requests whose expiry is at or before `at` (only request `id` when given). */
  expirePending(at: Date, id?: string): Promise<ApprovalRequest[]>;
  /** Marks executions cut off by a crash, and approvals nobody started, `unknown`, in one transaction. */
  markUnknown(
    query: RecoveryQuery,
  ): Promise<{ interrupted: ApprovalRequest[]; notStarted: ApprovalRequest[] }>;
  /** `pending → cancelled` without a click (its card could not be posted). */
  cancelPending(id: string, at: Date): Promise<Transition>;
  /** Where the card was posted; not a state change, so the version stays. */
  setCard(id: string, channel: string, ts: string): Promise<void>;
  /**
   * Marks reminded, and returns, the pending requests with a card that are halfway to their
   * expiry at `at` and were not reminded yet. One conditional UPDATE: of several replicas
   * sweeping at once, each request goes to exactly one. Not a state change, so the version stays.
   */
  claimReminders(at: Date): Promise<ApprovalRequest[]>;
}

export function createApprovalStore(client: Client): ApprovalStore {
  const write = (statements: InStatement[]): Promise<ResultSet[]> =>
    retryBusy(() => client.batch(statements, 'write')).catch((error: unknown) => {
      throw new ApprovalError('could not write to the approvals table', { cause: error });
    });

  const read = (statement: InStatement): Promise<ResultSet> =>
    retryBusy(() => client.execute(statement)).catch((error: unknown) => {
      throw new ApprovalError('could not read the approvals table', { cause: error });
    });

  const selectById = (id: string): InStatement => ({
    sql: `SELECT ${COLUMNS} FROM approvals WHERE id = ?`,
    args: [id],
  });

  /** One conditional UPDATE and the row as it is right after, in one write transaction. */
  const transition = async (update: InStatement, id: string): Promise<Transition> => {
    const [updated, after] = await write([update, selectById(id)]);
    const row = after?.rows[0];
    return { rowsAffected: updated?.rowsAffected ?? 0, request: row === undefined ? null : toRequest(row) };
  };

  const rowsOf = (result: ResultSet | undefined) => (result?.rows ?? []).map(toRequest);

  return {
    async get(id) {
      const result = await read(selectById(id));
      const row = result.rows[0];
      return row === undefined ? null : toRequest(row);
    },

    async list(query, limit) {
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
      return (await read(statement)).rows.map(toRequest);
    },

    async countWaiting(at) {
      const result = await read({
        sql: "SELECT count(*) AS n FROM approvals WHERE state = 'pending' AND expires_at > ?",
        args: [at.getTime()],
      });
      return z.number().int().parse(result.rows[0]?.n);
    },

    async countByState() {
      const counts = Object.fromEntries(APPROVAL_STATES.map((state) => [state, 0])) as Record<
        ApprovalState,
        number
      >;
      const result = await read('SELECT state, count(*) AS n FROM approvals GROUP BY state');
      for (const row of result.rows) {
        const parsed = StateCountSchema.parse(row);
        counts[parsed.state] = parsed.n;
      }
      return counts;
    },

    async insertPending(request) {
      const [closed, inserted, open] = await write([
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
    },

    decide(id, version, change, at) {
      return transition(
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
    },

    async claimExecution(id, executor, at) {
      const [claimed, after] = await write([
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
    },

    finishExecution(id, state, result, at) {
      return transition(
        {
          sql: `UPDATE approvals SET state = ?, result_json = ?, finished_at = ?, version = version + 1
                WHERE id = ? AND state = 'executing'`,
          args: [state, JSON.stringify(result), at.getTime(), id],
        },
        id,
      );
    },

    async expirePending(at, id) {
      const [updated] = await write([
        {
          // decided_at is the moment it expired, not the moment a sweep noticed.
          sql: `UPDATE approvals SET state = 'expired', decided_at = expires_at, version = version + 1
                WHERE state = 'pending' AND expires_at <= ? AND ${id === undefined ? '1 = 1' : 'id = ?'}
                RETURNING ${COLUMNS}`,
          args: id === undefined ? [at.getTime()] : [at.getTime(), id],
        },
      ]);
      return rowsOf(updated);
    },

    async markUnknown(query) {
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
      const [interrupted, notStarted] = await write(statements);
      return { interrupted: rowsOf(interrupted), notStarted: rowsOf(notStarted) };
    },

    cancelPending(id, at) {
      return transition(
        {
          sql: `UPDATE approvals SET state = 'cancelled', decided_at = ?, version = version + 1
                WHERE id = ? AND state = 'pending'`,
          args: [at.getTime(), id],
        },
        id,
      );
    },

    async setCard(id, channel, ts) {
      await write([
        { sql: 'UPDATE approvals SET card_channel = ?, card_ts = ? WHERE id = ?', args: [channel, ts, id] },
      ]);
    },

    async claimReminders(at) {
      const [claimed] = await write([
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
    },
  };
}
