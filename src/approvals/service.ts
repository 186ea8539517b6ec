/**
 * The approval service: requests, clicks, execution and the sweeps, kept in the state database
 * so that every replica sees the same request. Each state change is one conditional UPDATE
 * (state and version in its WHERE clause) whose affected-row count decides who won; nothing in
 * this process stands in for the database, so double clicks, Slack retries and several replicas
 * execute nothing twice.
 *
 * Parameters are stored as given and shown on cards and in the audit log, so they must never
 * hold a secret: the service generates none, and an executor creates secrets (new keys, tokens)
 * only when it runs, handing them to the requester alone.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { InStatement, ResultSet, Row } from '@libsql/client';
import { z } from 'zod';
import type { Logger, SecretRegistry } from '../log.js';
import type { ApprovalRequirement } from '../policy/authorize.js';
import type { AuditLog } from '../state/audit.js';
import { retryBusy } from '../state/busy.js';
import { canonicalJson, type JsonValue } from '../state/canonical-json.js';
import type { StateStore } from '../state/store.js';
import {
  APPROVAL_STATES,
  type ApprovalClick,
  type ApprovalRequest,
  type ApprovalState,
  CLICK_ACTIONS,
  type ClickAction,
  type ClickOutcome,
  type ClickRefusalReason,
  decideClick,
  describeDecided,
  type ExecutionResult,
  formatUtc,
} from './machine.js';

export interface ApprovalServiceOptions {
  store: StateStore;
  audit: AuditLog;
  logger: Logger;
  /** The store's clock by default. */
  now?: () => Date;
  /** When given, parameters holding a registered secret are refused and result details are redacted. */
  secrets?: SecretRegistry;
  /** Names this service in the rows it executes, so its own running executions are never recovered. */
  instanceId?: string;
}

const IdSchema = z.string().regex(/^ap_[0-9a-f]{16}$/);

const ParamsSchema = z.record(z.string(), z.json());

export const NewApprovalRequestSchema = z.object({
  operation: z.string().min(1),
  /** The object it changes; the lock is per operation and target. */
  target: z.string().min(1),
  params: ParamsSchema,
  requester: z.string().min(1),
  channelId: z.string().min(1),
  reason: z.string(),
  requirement: z.object({
    required: z.number().int().min(1),
    approvers: z.array(z.string()),
    approverIds: z.array(z.string()),
    confirm: z.boolean(),
    ttlMs: z.number().int().positive(),
    channel: z.string().optional(),
  }) satisfies z.ZodType<ApprovalRequirement>,
  correlationId: z.string().min(1),
});
export type NewApprovalRequest = z.input<typeof NewApprovalRequestSchema>;

export const ClickInputSchema = z.object({
  /** From a button value: untrusted, so anything that is not an approval id is simply not found. */
  requestId: z.string(),
  userId: z.string().min(1),
  action: z.enum(CLICK_ACTIONS),
  isApprover: z.boolean(),
  isApproverNow: z.boolean().optional(),
  confirmation: z.string().optional(),
  correlationId: z.string().min(1),
});
export type ClickInput = z.input<typeof ClickInputSchema>;

export type RequestResult =
  | {
      ok: true;
      request: ApprovalRequest;
      /** Requests for the same operation and target whose expiry had passed, closed to make room: update their cards. */
      expired: ApprovalRequest[];
    }
  | {
      ok: false;
      reason: 'open-request-exists';
      /** The open request for the same operation and target. */
      existing: ApprovalRequest;
      message: string;
      expired: ApprovalRequest[];
    };

export type ClickRefusal = ClickRefusalReason | 'not-found';

export type ClickResult =
  | { ok: true; action: ClickAction; outcome: ClickOutcome; state: ApprovalState; request: ApprovalRequest }
  /** `request` is the request as it is now, when it exists: re-render its card from it. */
  | { ok: false; reason: ClickRefusal; message: string; request?: ApprovalRequest };

export type BeginRefusal = 'not-found' | 'not-approved' | 'digest-mismatch';

export type BeginResult =
  | { ok: true; request: ApprovalRequest; params: Record<string, JsonValue> }
  | { ok: false; reason: BeginRefusal; message: string; request?: ApprovalRequest };

export type FinishResult =
  | { ok: true; request: ApprovalRequest }
  | { ok: false; reason: 'not-found' | 'not-executing'; message: string; request?: ApprovalRequest };

/** Runs an approved operation; it reports failure as `{ ok: false }` and never puts a secret in `detail`. */
export type ApprovalExecutor = (
  params: Record<string, JsonValue>,
  request: ApprovalRequest,
) => Promise<ExecutionResult>;

export type ExecutionReport =
  | { ran: true; outcome: ExecutionResult; request: ApprovalRequest }
  | { ran: false; reason: BeginRefusal; message: string; request?: ApprovalRequest };

export interface ListOptions {
  /** Every state, newest first; without it only pending requests that have not expired. */
  all?: boolean;
  /** Only these states, newest first (e.g. `['approved']` at start-up: approved but never started). */
  states?: readonly ApprovalState[];
  /** 50 by default, at most 200. */
  limit?: number;
}

export interface StepOptions {
  correlationId?: string;
}

export interface RecoverOptions extends StepOptions {
  /**
   * Only executions started before this time. With several replicas, pass now minus the longest
   * an execution can take, so a replica starting up leaves the others' running work alone.
   */
  startedBefore?: Date;
  /**
   * Also requests approved before this time that no replica has started: the replica that
   * approved them starts at once, so one still waiting stopped in between. Left alone when unset.
   */
  approvedBefore?: Date;
}

/** What the card and the audit say about a request approved but never started (it never ran). */
export const NOT_STARTED_DETAIL =
  'approved, but the bot stopped before the change started: it did not run, and it will not run now; ask again if it is still needed';

export interface ApprovalService {
  request(input: NewApprovalRequest): Promise<RequestResult>;
  click(input: ClickInput): Promise<ClickResult>;
  /** Claims `approved → executing`; exactly one caller wins and gets the verified stored parameters. */
  beginExecution(id: string, options?: StepOptions): Promise<BeginResult>;
  finishExecution(id: string, outcome: ExecutionResult, options?: StepOptions): Promise<FinishResult>;
  /** beginExecution → executor → finishExecution; a throwing executor counts as failed; never retried. */
  executeApproved(id: string, executor: ApprovalExecutor, options?: StepOptions): Promise<ExecutionReport>;
  /** Closes pending requests whose expiry has passed and returns them, so their cards can be updated. */
  expireStale(options?: StepOptions): Promise<ApprovalRequest[]>;
  /**
   * Marks executions interrupted by a crash, and approvals no replica started, `unknown` and
   * returns them; they are never run again.
   */
  recoverAfterCrash(options?: RecoverOptions): Promise<ApprovalRequest[]>;
  get(id: string): Promise<ApprovalRequest | null>;
  list(options?: ListOptions): Promise<ApprovalRequest[]>;
  /** Where the request's card was posted, so later steps can update it. */
  setCard(id: string, channel: string, ts: string): Promise<void>;
  /**
   * Cancels a pending request whose card could not be posted (nobody could see it to approve
   * it), with the reason in its audit row; false when it was no longer pending.
   */
  cancelUnposted(id: string, reason: string, options?: StepOptions): Promise<boolean>;
}

/** The approvals table could not be read or written, or a caller passed an invalid value. */
export class ApprovalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApprovalError';
  }
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
  version: z.number().int(),
});

const COLUMNS = Object.keys(StoredRowSchema.shape).join(', ');

const StringListSchema = z.array(z.string());
const VotesSchema = z.array(z.object({ userId: z.string(), at: z.iso.datetime() }));
const ResultSchema = z.object({ ok: z.boolean(), detail: z.string() });
const ExecutionResultSchema = ResultSchema;

const OPEN = "('pending', 'approved', 'executing')";
const LIST_DEFAULT = 50;
const LIST_MAX = 200;
/** Each lost race means another approval was recorded, so this bounds only a misbehaving database. */
const MAX_CLICK_ROUNDS = 100;
const MAX_ID_ATTEMPTS = 5;

export function paramsDigest(canonicalParams: string): string {
  return createHash('sha256').update(canonicalParams).digest('hex');
}

function newApprovalId(): string {
  return `ap_${randomBytes(8).toString('hex')}`;
}

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
    startedAt: dateOrNull(row.started_at),
    finishedAt: dateOrNull(row.finished_at),
    result: row.result_json === null ? null : parseJson(row.result_json, ResultSchema, 'result_json', row.id),
    card:
      row.card_channel !== null && row.card_ts !== null
        ? { channel: row.card_channel, ts: row.card_ts }
        : null,
    version: row.version,
  };
}

/** Whether the stored text is still exactly what was approved: canonical, and matching its digest. */
function storedParamsIntact(paramsJson: string, digest: string): Record<string, JsonValue> | null {
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

const ParamsTextRowSchema = z.object({ params_json: z.string(), params_digest: z.string() });

export function createApprovalService(options: ApprovalServiceOptions): ApprovalService {
  const { store, audit, secrets } = options;
  const client = store.client;
  const now = options.now ?? store.now;
  const logger = options.logger.child({ component: 'approvals' });
  const instanceId = options.instanceId ?? randomUUID();

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
  const transition = async (
    update: InStatement,
    id: string,
  ): Promise<{ changed: boolean; request: ApprovalRequest | null }> => {
    const [updated, after] = await write([update, selectById(id)]);
    const row = after?.rows[0];
    return { changed: updated?.rowsAffected === 1, request: row === undefined ? null : toRequest(row) };
  };

  /** Appends the step to the audit log; a failure is logged, since the step itself already happened. */
  const record = async (
    request: ApprovalRequest,
    outcome: string,
    step: { userId: string; correlationId: string; detail: string; params?: Record<string, JsonValue> },
  ): Promise<boolean> => {
    try {
      await audit.append({
        userId: step.userId,
        channelId: request.channelId,
        operation: request.operation,
        target: request.target,
        params: step.params ?? {},
        outcome,
        approvalId: request.id,
        correlationId: step.correlationId,
        detail: step.detail,
      });
      return true;
    } catch (error) {
      logger.error('approval step could not be audited', {
        approvalId: request.id,
        outcome,
        correlationId: step.correlationId,
        error,
      });
      return false;
    }
  };

  const correlationOf = (options?: StepOptions) => options?.correlationId ?? randomUUID();

  const expireWhere = async (
    where: string,
    args: (string | number)[],
    correlationId: string,
    detail: string,
  ): Promise<ApprovalRequest[]> => {
    const at = now().getTime();
    const [updated] = await write([
      {
        // decided_at is the moment it expired, not the moment a sweep noticed.
        sql: `UPDATE approvals SET state = 'expired', decided_at = expires_at, version = version + 1
              WHERE state = 'pending' AND expires_at <= ? AND ${where}
              RETURNING ${COLUMNS}`,
        args: [at, ...args],
      },
    ]);
    const expired = (updated?.rows ?? []).map(toRequest);
    for (const request of expired)
      await record(request, 'expired', {
        userId: request.requester,
        correlationId,
        detail: `expired at ${request.expiresAt.toISOString()} ${detail}`,
      });
    return expired;
  };

  const redact = (text: string) => (secrets ? secrets.redact(text) : text);

  const service: ApprovalService = {
    async request(input) {
      const parsed = NewApprovalRequestSchema.safeParse(input);
      if (!parsed.success) {
        const field = parsed.error.issues[0]?.path.join('.') ?? 'request';
        throw new ApprovalError(`approval request is invalid at ${field}`, { cause: parsed.error });
      }
      const ask = parsed.data;
      const params: Record<string, JsonValue> = ask.params;
      const paramsJson = canonicalJson(params);
      if (secrets && secrets.redact(paramsJson) !== paramsJson)
        throw new ApprovalError('approval parameters must not contain a secret');
      const digest = paramsDigest(paramsJson);
      const { requirement } = ask;
      const createdAt = now().getTime();
      const expiresAt = createdAt + requirement.ttlMs;
      const correlationId = ask.correlationId;

      const expired: ApprovalRequest[] = [];
      for (let attempt = 1; attempt <= MAX_ID_ATTEMPTS; attempt++) {
        const id = newApprovalId();
        const [closed, inserted, open] = await write([
          {
            // A request whose expiry passed before the sweep ran must not hold the lock.
            sql: `UPDATE approvals SET state = 'expired', decided_at = expires_at, version = version + 1
                  WHERE operation = ? AND target = ? AND state = 'pending' AND expires_at <= ?
                  RETURNING ${COLUMNS}`,
            args: [ask.operation, ask.target, createdAt],
          },
          {
            // DO NOTHING on any uniqueness conflict: the open-request index or, very unlikely, the id.
            sql: `INSERT INTO approvals (id, operation, target, params_json, params_digest, requester,
                    channel_id, reason, state, created_at, expires_at, required, approver_roles_json,
                    approver_ids_json, confirm, approvals_json, version)
                  VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, '[]', 0)
                  ON CONFLICT DO NOTHING`,
            args: [
              id,
              ask.operation,
              ask.target,
              paramsJson,
              digest,
              ask.requester,
              ask.channelId,
              ask.reason,
              createdAt,
              expiresAt,
              requirement.required,
              JSON.stringify(requirement.approvers),
              JSON.stringify(requirement.approverIds),
              requirement.confirm ? 1 : 0,
            ],
          },
          {
            sql: `SELECT ${COLUMNS} FROM approvals WHERE operation = ? AND target = ? AND state IN ${OPEN}`,
            args: [ask.operation, ask.target],
          },
        ]);
        for (const row of closed?.rows ?? []) {
          const request = toRequest(row);
          expired.push(request);
          await record(request, 'expired', {
            userId: request.requester,
            correlationId,
            detail: `expired at ${request.expiresAt.toISOString()}, closed when a new request for the same target came`,
          });
        }
        const openRow = open?.rows[0];
        const current = openRow === undefined ? null : toRequest(openRow);
        if (inserted?.rowsAffected === 1 && current?.id === id) {
          await record(current, 'approval-requested', {
            userId: current.requester,
            correlationId,
            params: current.params,
            detail: `needs ${current.required} approval${current.required > 1 ? 's' : ''} from ${current.approverRoles.join(', ') || 'its approvers'}${current.confirm ? ' with the target id typed' : ''}; expires ${current.expiresAt.toISOString()}; params sha256 ${current.paramsDigest}${current.reason ? `; reason: ${current.reason}` : ''}`,
          });
          return { ok: true, request: current, expired };
        }
        if (current !== null) {
          const message = `There is already an open request for ${current.operation} on \`${current.target}\`: ${current.id}, asked by <@${current.requester}> at ${formatUtc(current.createdAt, now())} (${current.state}). Decide or cancel that one first.`;
          await record(current, 'request-refused', {
            userId: ask.requester,
            correlationId,
            params,
            detail: `an open request ${current.id} for the same operation and target exists`,
          });
          return { ok: false, reason: 'open-request-exists', existing: current, message, expired };
        }
        // Neither inserted nor blocked by an open request: the random id collided; draw another.
      }
      throw new ApprovalError('could not create an approval id');
    },

    async click(input) {
      const parsed = ClickInputSchema.safeParse(input);
      if (!parsed.success) {
        const field = parsed.error.issues[0]?.path.join('.') ?? 'click';
        throw new ApprovalError(`approval click is invalid at ${field}`, { cause: parsed.error });
      }
      const { requestId, correlationId } = parsed.data;
      const click: ApprovalClick = {
        userId: parsed.data.userId,
        action: parsed.data.action,
        isApprover: parsed.data.isApprover,
        isApproverNow: parsed.data.isApproverNow,
        confirmation: parsed.data.confirmation,
      };
      const notFound: ClickResult = {
        ok: false,
        reason: 'not-found',
        message: 'That approval request does not exist (any more).',
      };
      if (!IdSchema.safeParse(requestId).success) return notFound;

      let current = await service.get(requestId);
      for (let round = 1; round <= MAX_CLICK_ROUNDS; round++) {
        if (current === null) return notFound;
        const at = now();
        const decision = decideClick(current, click, at);
        if (!decision.accepted) {
          let request = current;
          if (decision.reason === 'expired') {
            // Close it now rather than wait for the sweep; the caller re-renders the card from `request`.
            const [expired] = await expireWhere('id = ?', [request.id], correlationId, 'on a late click');
            request = expired ?? (await service.get(request.id)) ?? request;
          }
          await record(request, 'approval-refused', {
            userId: click.userId,
            correlationId,
            detail: `${click.action}: ${decision.reason}`,
          });
          return { ok: false, reason: decision.reason, message: decision.message, request };
        }

        const outcome = await transition(
          {
            sql: `UPDATE approvals SET state = ?, approvals_json = ?, decided_by = ?, decided_at = ?,
                    version = version + 1
                  WHERE id = ? AND state = 'pending' AND version = ? AND expires_at > ?`,
            args: [
              decision.to,
              JSON.stringify(
                decision.approvals.map((vote) => ({ userId: vote.userId, at: vote.at.toISOString() })),
              ),
              decision.decidedBy,
              decision.decidedAt?.getTime() ?? null,
              current.id,
              current.version,
              at.getTime(),
            ],
          },
          current.id,
        );
        if (!outcome.changed || outcome.request === null) {
          // Someone else changed it first: decide again on what they left.
          current = outcome.request;
          continue;
        }
        const request = outcome.request;
        const count = request.approvals.length;
        const detail = {
          approved: `approved by ${request.approvals.map((vote) => vote.userId).join(', ')} (${count} of ${request.required})`,
          'approval-recorded': `${count} of ${request.required} approvals`,
          rejected: `rejected by ${click.userId}`,
          cancelled: 'cancelled by the requester',
        }[decision.outcome];
        await record(request, decision.outcome, { userId: click.userId, correlationId, detail });
        return {
          ok: true,
          action: decision.action,
          outcome: decision.outcome,
          state: request.state,
          request,
        };
      }
      throw new ApprovalError(`approval ${requestId} kept changing under the click; try again`);
    },

    async beginExecution(id, stepOptions) {
      const correlationId = correlationOf(stepOptions);
      if (!IdSchema.safeParse(id).success)
        return { ok: false, reason: 'not-found', message: 'That approval request does not exist.' };
      const at = now().getTime();
      const [claimed, after] = await write([
        {
          sql: `UPDATE approvals SET state = 'executing', started_at = ?, executor = ?, version = version + 1
                WHERE id = ? AND state = 'approved'`,
          args: [at, instanceId, id],
        },
        selectById(id),
      ]);
      const row = after?.rows[0];
      if (row === undefined)
        return { ok: false, reason: 'not-found', message: 'That approval request does not exist.' };
      if (claimed?.rowsAffected !== 1) {
        const request = toRequest(row);
        const message =
          request.state === 'pending'
            ? 'This request is still waiting for approval.'
            : describeDecided(request, new Date(at));
        return { ok: false, reason: 'not-approved', message, request };
      }
      // Checked on the raw text: what runs must be byte for byte what was asked and approved.
      const text = ParamsTextRowSchema.safeParse(row);
      const params = text.success ? storedParamsIntact(text.data.params_json, text.data.params_digest) : null;
      if (params === null) {
        logger.error('approval parameters do not match their digest; not executed', {
          approvalId: id,
          correlationId,
        });
        const detail = 'not run: the stored parameters do not match their digest';
        const finished = await service.finishExecution(id, { ok: false, detail }, { correlationId });
        return {
          ok: false,
          reason: 'digest-mismatch',
          message: 'This request was not run: its stored parameters no longer match what was approved.',
          request: finished.request,
        };
      }
      const request = { ...toRequest(row), params };
      const audited = await record(request, 'executing', {
        userId: request.requester,
        correlationId,
        params,
        detail: `approved by ${request.approvals.map((vote) => vote.userId).join(', ')}; params sha256 ${request.paramsDigest}`,
      });
      if (!audited) {
        // Nothing runs without a record that it ran.
        const finished = await service.finishExecution(
          id,
          { ok: false, detail: 'not run: the audit log could not be written' },
          { correlationId },
        );
        return {
          ok: false,
          reason: 'not-approved',
          message: 'This request was not run because the audit log could not be written; ask again later.',
          request: finished.request,
        };
      }
      return { ok: true, request, params };
    },

    async finishExecution(id, result, stepOptions) {
      const correlationId = correlationOf(stepOptions);
      const checked = ExecutionResultSchema.safeParse(result);
      const outcome: ExecutionResult = checked.success
        ? { ok: checked.data.ok, detail: redact(checked.data.detail) }
        : { ok: false, detail: 'the operation reported a result the bot could not read' };
      if (!IdSchema.safeParse(id).success)
        return { ok: false, reason: 'not-found', message: 'That approval request does not exist.' };
      const state = outcome.ok ? 'succeeded' : 'failed';
      const { changed, request } = await transition(
        {
          sql: `UPDATE approvals SET state = ?, result_json = ?, finished_at = ?, version = version + 1
                WHERE id = ? AND state = 'executing'`,
          args: [state, JSON.stringify(outcome), now().getTime(), id],
        },
        id,
      );
      if (request === null)
        return { ok: false, reason: 'not-found', message: 'That approval request does not exist.' };
      if (!changed) {
        if (request.state === 'unknown') {
          // Recovery already gave up on it; the audit log still gets what really happened.
          await record(request, state, {
            userId: request.requester,
            correlationId,
            detail: `${outcome.detail} (reported after the request was marked unknown)`,
          });
        }
        return {
          ok: false,
          reason: 'not-executing',
          message: `This request is ${request.state}, not running; its result was not recorded on it.`,
          request,
        };
      }
      await record(request, state, { userId: request.requester, correlationId, detail: outcome.detail });
      return { ok: true, request };
    },

    async executeApproved(id, executor, stepOptions) {
      const correlationId = correlationOf(stepOptions);
      const begun = await service.beginExecution(id, { correlationId });
      if (!begun.ok)
        return { ran: false, reason: begun.reason, message: begun.message, request: begun.request };
      let outcome: ExecutionResult;
      try {
        const returned = ExecutionResultSchema.safeParse(await executor(begun.params, begun.request));
        outcome = returned.success
          ? returned.data
          : { ok: false, detail: 'the operation reported a result the bot could not read' };
      } catch (error) {
        // The error text may carry anything, so it goes to the (redacting) log and not to the card.
        logger.error('approved operation failed unexpectedly', { approvalId: id, correlationId, error });
        outcome = {
          ok: false,
          detail: `the operation failed unexpectedly (correlation id ${correlationId}); check the platform before asking again`,
        };
      }
      const finished = await service.finishExecution(id, outcome, { correlationId });
      const request = finished.request ?? begun.request;
      return { ran: true, outcome: { ok: outcome.ok, detail: redact(outcome.detail) }, request };
    },

    async expireStale(stepOptions) {
      return expireWhere('1 = 1', [], correlationOf(stepOptions), 'by the expiry sweep');
    },

    async recoverAfterCrash(recoverOptions) {
      const correlationId = correlationOf(recoverOptions);
      const startedBefore = recoverOptions?.startedBefore?.getTime() ?? Number.MAX_SAFE_INTEGER;
      const at = now().getTime();
      const statements: InStatement[] = [
        {
          // This service's own executions are alive; anything else found running was cut off.
          sql: `UPDATE approvals SET state = 'unknown', finished_at = ?, version = version + 1
                WHERE state = 'executing' AND (executor IS NULL OR executor <> ?)
                  AND (started_at IS NULL OR started_at < ?)
                RETURNING ${COLUMNS}`,
          args: [at, instanceId, startedBefore],
        },
      ];
      const approvedBefore = recoverOptions?.approvedBefore?.getTime();
      if (approvedBefore !== undefined)
        statements.push({
          // Nothing ran: beginExecution moves a request to executing before anything runs.
          sql: `UPDATE approvals SET state = 'unknown', finished_at = ?, result_json = ?, version = version + 1
                WHERE state = 'approved' AND (decided_at IS NULL OR decided_at < ?)
                RETURNING ${COLUMNS}`,
          args: [at, JSON.stringify({ ok: false, detail: NOT_STARTED_DETAIL }), approvedBefore],
        });
      const [interrupted, notStarted] = await write(statements);
      const unknown: ApprovalRequest[] = [];
      for (const request of (interrupted?.rows ?? []).map(toRequest)) {
        logger.warn('approved operation was interrupted; marked unknown', { approvalId: request.id });
        await record(request, 'unknown', {
          userId: request.requester,
          correlationId,
          detail: 'the bot stopped while this was running; check the platform before asking again',
        });
        unknown.push(request);
      }
      for (const request of (notStarted?.rows ?? []).map(toRequest)) {
        logger.warn('approved operation never started; marked unknown', { approvalId: request.id });
        await record(request, 'unknown', {
          userId: request.requester,
          correlationId,
          detail: NOT_STARTED_DETAIL,
        });
        unknown.push(request);
      }
      return unknown;
    },

    async get(id) {
      if (!IdSchema.safeParse(id).success) return null;
      const result = await read(selectById(id));
      const row = result.rows[0];
      return row === undefined ? null : toRequest(row);
    },

    async list(listOptions = {}) {
      const requested = listOptions.limit ?? LIST_DEFAULT;
      const limit = Number.isFinite(requested)
        ? Math.min(Math.max(Math.trunc(requested), 1), LIST_MAX)
        : LIST_DEFAULT;
      let statement: InStatement;
      if (listOptions.states !== undefined) {
        const states = listOptions.states.filter((state) => APPROVAL_STATES.includes(state));
        if (states.length === 0) return [];
        statement = {
          sql: `SELECT ${COLUMNS} FROM approvals WHERE state IN (${states.map(() => '?').join(', ')})
                ORDER BY created_at DESC, id LIMIT ?`,
          args: [...states, limit],
        };
      } else if (listOptions.all) {
        statement = {
          sql: `SELECT ${COLUMNS} FROM approvals ORDER BY created_at DESC, id LIMIT ?`,
          args: [limit],
        };
      } else {
        statement = {
          sql: `SELECT ${COLUMNS} FROM approvals WHERE state = 'pending' AND expires_at > ?
                ORDER BY created_at DESC, id LIMIT ?`,
          args: [now().getTime(), limit],
        };
      }
      const result = await read(statement);
      return result.rows.map(toRequest);
    },

    async cancelUnposted(id, reason, stepOptions) {
      if (!IdSchema.safeParse(id).success) throw new ApprovalError('not an approval id');
      const { changed, request } = await transition(
        {
          sql: `UPDATE approvals SET state = 'cancelled', decided_at = ?, version = version + 1
                WHERE id = ? AND state = 'pending'`,
          args: [now().getTime(), id],
        },
        id,
      );
      if (!changed || request === null) return false;
      await record(request, 'cancelled', {
        userId: request.requester,
        correlationId: correlationOf(stepOptions),
        detail: redact(reason),
      });
      return true;
    },

    async setCard(id, channel, ts) {
      if (!IdSchema.safeParse(id).success) throw new ApprovalError('not an approval id');
      // Not a state change, so the version stays: a click racing this update is unaffected.
      await write([
        { sql: 'UPDATE approvals SET card_channel = ?, card_ts = ? WHERE id = ?', args: [channel, ts, id] },
      ]);
    },
  };

  return service;
}
