/**
 * The approval service: requests, clicks, execution and the sweeps, kept in the state database
 * so that every replica sees the same request. Each state change is one conditional UPDATE run
 * by the store (state and version in its WHERE clause) whose affected-row count, checked here,
 * decides who won; nothing in this process stands in for the database, so double clicks, Slack
 * retries and several replicas execute nothing twice.
 *
 * Parameters are stored as given and shown on cards and in the audit log, so they must never
 * hold a secret: the service generates none, and an executor creates secrets (new keys, tokens)
 * only when it runs, handing them to the requester alone.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ApprovalRequirement } from '../policy/authorize.js';
import type { SecretRegistry } from '../secrets/registry.js';
import type { AuditLog } from '../state/audit.js';
import { canonicalJson, type JsonValue } from '../state/canonical-json.js';
import type { StateStore } from '../state/store.js';
import type { Logger } from '../telemetry/log.js';
import {
  type ApprovalClick,
  type ApprovalRequest,
  type ApprovalState,
  CLICK_ACTIONS,
  type ClickAction,
  type ClickOutcome,
  type ClickRefusal,
  decideClick,
  type ExecutionResult,
  escalatesAt,
} from './machine.js';
import {
  correlationOf,
  getRequest,
  IdSchema,
  record,
  redact,
  type ServiceState,
  type StepOptions,
} from './service-state.js';
import {
  ApprovalError,
  type ApprovalQuery,
  type ApprovalStore,
  createApprovalStore,
  ExecutionResultSchema,
  ParamsSchema,
  paramsDigest,
} from './store.js';

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

/** The longest reason a Reject may carry: it goes on the card, in a DM and into the audit row. */
export const REJECT_REASON_MAX = 500;

export const NewApprovalRequestSchema = z.object({
  operation: z.string().min(1),
  /** The object it changes; the lock is per operation and target. */
  target: z.string().min(1),
  /**
   * Each requester holds their own lock on the target rather than one for everyone (db.exec:
   * one open write per person and database, PRODUCT §5).
   */
  lockPerRequester: z.boolean().optional(),
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
    escalation: z.object({ role: z.string().min(1), ids: z.array(z.string()) }).optional(),
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
  isEscalationApprover: z.boolean().optional(),
  isEscalationApproverNow: z.boolean().optional(),
  confirmation: z.string().optional(),
  /** A Reject's reason, from its form. */
  reason: z.string().max(REJECT_REASON_MAX).optional(),
  correlationId: z.string().min(1),
});
export type ClickInput = z.input<typeof ClickInputSchema>;

export type RequestResult =
  | {
      ok: true;
      request: ApprovalRequest;
      /** Requests holding the same lock whose expiry had passed, closed to make room: update their cards. */
      expired: ApprovalRequest[];
    }
  | {
      ok: false;
      reason: 'open-request-exists';
      /** The open request holding the same lock (the same operation and target, and requester where it is theirs). */
      existing: ApprovalRequest;
      expired: ApprovalRequest[];
    };

export type ClickResult =
  | { ok: true; action: ClickAction; outcome: ClickOutcome; state: ApprovalState; request: ApprovalRequest }
  /**
   * Refused, with the facts behind it; `request` is the request as it is now: re-render its card
   * from it. `expiredNow` when this click closed a request whose expiry had passed (tell the requester).
   */
  | ({ ok: false; request: ApprovalRequest; expiredNow?: boolean } & ClickRefusal)
  | { ok: false; reason: 'not-found'; request?: undefined };

/** Why an approved request was not run, with the request as it is now when there is one. */
export type BeginRefusal =
  | { reason: 'not-found'; request?: undefined }
  /** Not (or no longer) approved: the request says who decided, and whether it ran. */
  | { reason: 'not-approved'; request: ApprovalRequest }
  /** The stored parameters no longer match their digest; the request is failed, not run. */
  | { reason: 'digest-mismatch'; request?: ApprovalRequest }
  /** The execution could not be audited, so it did not start; the request is failed. */
  | { reason: 'not-audited'; request?: ApprovalRequest };

export type BeginResult =
  | { ok: true; request: ApprovalRequest; params: Record<string, JsonValue> }
  | ({ ok: false } & BeginRefusal);

export type FinishResult =
  | { ok: true; request: ApprovalRequest }
  | { ok: false; reason: 'not-found'; request?: undefined }
  /** It was not running (recovery marked it unknown): the result is audited, not stored on it. */
  | { ok: false; reason: 'not-executing'; request: ApprovalRequest };

/** Runs an approved operation; it reports failure as `{ ok: false }` and never puts a secret in `detail`. */
export type ApprovalExecutor = (
  params: Record<string, JsonValue>,
  request: ApprovalRequest,
) => Promise<ExecutionResult>;

export type ExecutionReport =
  | { ran: true; outcome: ExecutionResult; request: ApprovalRequest }
  | ({ ran: false } & BeginRefusal);

export interface ListOptions {
  /** Every state, newest first; without it only pending requests that have not expired. */
  all?: boolean;
  /** Only these states, newest first (e.g. `['approved']` at start-up: approved but never started). */
  states?: readonly ApprovalState[];
  /** 50 by default, at most 200. */
  limit?: number;
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
  /** How many requests are in each state, every state listed (the approvals-by-state gauge). */
  countByState(): Promise<Record<ApprovalState, number>>;
  /** How many requests wait now (pending and not expired): the count beside a waiting list. */
  countWaiting(): Promise<number>;
  /** Where the request's card was posted, so later steps can update it. */
  setCard(id: string, channel: string, ts: string): Promise<void>;
  /**
   * The pending requests halfway to their expiry whose approvers were not reminded yet, each
   * marked reminded as it is returned: with several replicas, each goes to exactly one of them.
   */
  claimReminders(): Promise<ApprovalRequest[]>;
  /**
   * Cancels a pending request whose card could not be posted (nobody could see it to approve
   * it), with the reason in its audit row; false when it was no longer pending.
   */
  cancelUnposted(id: string, reason: string, options?: StepOptions): Promise<boolean>;
}

const LIST_DEFAULT = 50;
const LIST_MAX = 200;
/** Each lost race means another approval was recorded, so this bounds only a misbehaving database. */
const MAX_CLICK_ROUNDS = 100;
const MAX_ID_ATTEMPTS = 5;

function newApprovalId(): string {
  return `ap_${randomBytes(8).toString('hex')}`;
}

/** Closes pending requests whose expiry has passed (only `id` when given) and audits each. */
async function expire(
  state: ServiceState,
  correlationId: string,
  detail: string,
  id?: string,
): Promise<ApprovalRequest[]> {
  const expired = await state.approvals.expirePending(state.now(), id);
  for (const request of expired)
    await record(state, request, 'expired', {
      userId: request.requester,
      correlationId,
      detail: `expired at ${request.expiresAt.toISOString()} ${detail}`,
    });
  return expired;
}

export function createApprovalService(options: ApprovalServiceOptions): ApprovalService {
  const state: ServiceState = {
    approvals: createApprovalStore(options.store.client),
    audit: options.audit,
    logger: options.logger.child({ component: 'approvals' }),
    now: options.now ?? options.store.now,
    secrets: options.secrets,
    instanceId: options.instanceId ?? randomUUID(),
  };

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
      if (state.secrets && state.secrets.redact(paramsJson) !== paramsJson)
        throw new ApprovalError('approval parameters must not contain a secret');
      const digest = paramsDigest(paramsJson);
      const { requirement } = ask;
      const createdAt = state.now();
      const expiresAt = new Date(createdAt.getTime() + requirement.ttlMs);
      const correlationId = ask.correlationId;

      const expired: ApprovalRequest[] = [];
      for (let attempt = 1; attempt <= MAX_ID_ATTEMPTS; attempt++) {
        const id = newApprovalId();
        const { closed, rowsInserted, open } = await state.approvals.insertPending({
          id,
          operation: ask.operation,
          target: ask.target,
          lockOwner: ask.lockPerRequester ? ask.requester : '',
          paramsJson,
          paramsDigest: digest,
          requester: ask.requester,
          channelId: ask.channelId,
          reason: ask.reason,
          createdAt,
          expiresAt,
          required: requirement.required,
          approverRoles: requirement.approvers,
          approverIds: requirement.approverIds,
          confirm: requirement.confirm,
          ...(requirement.escalation ? { escalation: requirement.escalation } : {}),
        });
        for (const request of closed) {
          expired.push(request);
          await record(state, request, 'expired', {
            userId: request.requester,
            correlationId,
            detail: `expired at ${request.expiresAt.toISOString()}, closed when a new request for the same target came`,
          });
        }
        if (rowsInserted === 1 && open?.id === id) {
          await record(state, open, 'approval-requested', {
            userId: open.requester,
            correlationId,
            params: open.params,
            detail: `needs ${open.required} approval${open.required > 1 ? 's' : ''} from ${open.approverRoles.join(', ') || 'its approvers'}${open.confirm ? ' with the target id typed' : ''}${open.escalation ? `; escalates to ${open.escalation.role} at ${escalatesAt(open).toISOString()}` : ''}; expires ${open.expiresAt.toISOString()}; params sha256 ${open.paramsDigest}${open.reason ? `; reason: ${open.reason}` : ''}`,
          });
          return { ok: true, request: open, expired };
        }
        if (open !== null) {
          await record(state, open, 'request-refused', {
            userId: ask.requester,
            correlationId,
            params,
            detail: ask.lockPerRequester
              ? `the requester's open request ${open.id} for the same operation and target exists`
              : `an open request ${open.id} for the same operation and target exists`,
          });
          return { ok: false, reason: 'open-request-exists', existing: open, expired };
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
        isEscalationApprover: parsed.data.isEscalationApprover,
        isEscalationApproverNow: parsed.data.isEscalationApproverNow,
        confirmation: parsed.data.confirmation,
        reason: parsed.data.reason === undefined ? undefined : redact(state, parsed.data.reason),
      };
      const notFound: ClickResult = { ok: false, reason: 'not-found' };
      if (!IdSchema.safeParse(requestId).success) return notFound;

      let current = await service.get(requestId);
      for (let round = 1; round <= MAX_CLICK_ROUNDS; round++) {
        if (current === null) return notFound;
        const at = state.now();
        const decision = decideClick(current, click, at);
        if (!decision.accepted) {
          let request = current;
          let expiredNow = false;
          if (decision.reason === 'expired') {
            // Close it now rather than wait for the sweep; the caller re-renders the card from `request`.
            const [expired] = await expire(state, correlationId, 'on a late click', request.id);
            expiredNow = expired !== undefined;
            request = expired ?? (await service.get(request.id)) ?? request;
          }
          await record(state, request, 'approval-refused', {
            userId: click.userId,
            correlationId,
            detail: `${click.action}: ${decision.reason}`,
          });
          const { accepted, ...refusal } = decision;
          return { ok: false, ...refusal, request, ...(expiredNow ? { expiredNow } : {}) };
        }

        const outcome = await state.approvals.decide(
          current.id,
          current.version,
          {
            state: decision.to,
            approvals: decision.approvals,
            decidedBy: decision.decidedBy,
            decidedAt: decision.decidedAt,
            decisionReason: decision.decisionReason,
          },
          at,
        );
        if (outcome.rowsAffected !== 1 || outcome.request === null) {
          // Someone else changed it first: decide again on what they left.
          current = outcome.request;
          continue;
        }
        const request = outcome.request;
        const count = request.approvals.length;
        const detail = {
          approved: `approved by ${request.approvals.map((vote) => vote.userId).join(', ')} (${count} of ${request.required})`,
          'approval-recorded': `${count} of ${request.required} approvals`,
          rejected: `rejected by ${click.userId}${request.decisionReason ? `; reason: ${request.decisionReason}` : '; no reason given'}`,
          cancelled: 'cancelled by the requester',
        }[decision.outcome];
        await record(state, request, decision.outcome, { userId: click.userId, correlationId, detail });
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
      if (!IdSchema.safeParse(id).success) return { ok: false, reason: 'not-found' };
      const claim = await state.approvals.claimExecution(id, state.instanceId, state.now());
      if (claim.stored === null) return { ok: false, reason: 'not-found' };
      if (claim.rowsAffected !== 1)
        return { ok: false, reason: 'not-approved', request: claim.stored.request() };
      // Checked on the raw text: what runs must be byte for byte what was asked and approved.
      const params = claim.stored.intactParams();
      if (params === null) {
        state.logger.error('approval parameters do not match their digest; not executed', {
          approvalId: id,
          correlationId,
        });
        const detail = 'not run: the stored parameters do not match their digest';
        const finished = await service.finishExecution(id, { ok: false, detail }, { correlationId });
        return { ok: false, reason: 'digest-mismatch', request: finished.request };
      }
      const request = { ...claim.stored.request(), params };
      const audited = await record(state, request, 'executing', {
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
        return { ok: false, reason: 'not-audited', request: finished.request };
      }
      return { ok: true, request, params };
    },

    async finishExecution(id, result, stepOptions) {
      const correlationId = correlationOf(stepOptions);
      const checked = ExecutionResultSchema.safeParse(result);
      const outcome: ExecutionResult = checked.success
        ? { ok: checked.data.ok, detail: redact(state, checked.data.detail) }
        : { ok: false, detail: 'the operation reported a result the bot could not read' };
      if (!IdSchema.safeParse(id).success) return { ok: false, reason: 'not-found' };
      const ended = outcome.ok ? 'succeeded' : 'failed';
      const { rowsAffected, request } = await state.approvals.finishExecution(
        id,
        ended,
        outcome,
        state.now(),
      );
      if (request === null) return { ok: false, reason: 'not-found' };
      if (rowsAffected !== 1) {
        if (request.state === 'unknown') {
          // Recovery already gave up on it; the audit log still gets what really happened.
          await record(state, request, ended, {
            userId: request.requester,
            correlationId,
            detail: `${outcome.detail} (reported after the request was marked unknown)`,
          });
        }
        return { ok: false, reason: 'not-executing', request };
      }
      await record(state, request, ended, {
        userId: request.requester,
        correlationId,
        detail: outcome.detail,
      });
      return { ok: true, request };
    },

    async executeApproved(id, executor, stepOptions) {
      const correlationId = correlationOf(stepOptions);
      const begun = await service.beginExecution(id, { correlationId });
      if (!begun.ok) {
        const { ok, ...refusal } = begun;
        return { ran: false, ...refusal };
      }
      let outcome: ExecutionResult;
      try {
        const returned = ExecutionResultSchema.safeParse(await executor(begun.params, begun.request));
        outcome = returned.success
          ? returned.data
          : { ok: false, detail: 'the operation reported a result the bot could not read' };
      } catch (error) {
        // The error text may carry anything, so it goes to the (redacting) log and not to the card.
        state.logger.error('approved operation failed unexpectedly', {
          approvalId: id,
          correlationId,
          error,
        });
        outcome = {
          ok: false,
          detail: `the operation failed unexpectedly (correlation id ${correlationId}); check the platform before asking again`,
        };
      }
      const finished = await service.finishExecution(id, outcome, { correlationId });
      const request = finished.request ?? begun.request;
      return { ran: true, outcome: { ok: outcome.ok, detail: redact(state, outcome.detail) }, request };
    },

    async expireStale(stepOptions) {
      return expire(state, correlationOf(stepOptions), 'by the expiry sweep');
    },

    async recoverAfterCrash(recoverOptions) {
      const correlationId = correlationOf(recoverOptions);
      const { interrupted, notStarted } = await state.approvals.markUnknown({
        at: state.now(),
        executor: state.instanceId,
        startedBefore: recoverOptions?.startedBefore ?? null,
        approvedBefore: recoverOptions?.approvedBefore ?? null,
        notStartedResult: { ok: false, detail: NOT_STARTED_DETAIL },
      });
      const unknown: ApprovalRequest[] = [];
      for (const request of interrupted) {
        state.logger.warn('approved operation was interrupted; marked unknown', { approvalId: request.id });
        await record(state, request, 'unknown', {
          userId: request.requester,
          correlationId,
          detail: 'the bot stopped while this was running; check the platform before asking again',
        });
        unknown.push(request);
      }
      for (const request of notStarted) {
        state.logger.warn('approved operation never started; marked unknown', { approvalId: request.id });
        await record(state, request, 'unknown', {
          userId: request.requester,
          correlationId,
          detail: NOT_STARTED_DETAIL,
        });
        unknown.push(request);
      }
      return unknown;
    },

    get: (id) => getRequest(state, id),

    countByState: () => state.approvals.countByState(),

    countWaiting: () => state.approvals.countWaiting(state.now()),

    async list(listOptions = {}) {
      const requested = listOptions.limit ?? LIST_DEFAULT;
      const limit = Number.isFinite(requested)
        ? Math.min(Math.max(Math.trunc(requested), 1), LIST_MAX)
        : LIST_DEFAULT;
      const query: ApprovalQuery =
        listOptions.states !== undefined
          ? { kind: 'states', states: listOptions.states }
          : listOptions.all
            ? { kind: 'all' }
            : { kind: 'waiting', at: state.now() };
      return state.approvals.list(query, limit);
    },

    async cancelUnposted(id, reason, stepOptions) {
      if (!IdSchema.safeParse(id).success) throw new ApprovalError('not an approval id');
      let cancelled: Awaited<ReturnType<ApprovalStore['cancelPending']>>;
      const at = state.now();
      try {
        cancelled = await state.approvals.cancelPending(id, at);
      } catch (error) {
        // The write may have committed before the error reached here. This step's cancel is
        // the one with nobody as its decider, at this step's time; the requester's own Cancel
        // (its card may be up already) names them, and stays theirs.
        const after = await state.approvals.get(id).catch(() => null);
        const ours =
          after?.state === 'cancelled' &&
          after.decidedBy === null &&
          after.decidedAt?.getTime() === at.getTime();
        if (!ours) throw error;
        cancelled = { rowsAffected: 1, request: after };
      }
      const { rowsAffected, request } = cancelled;
      if (rowsAffected !== 1 || request === null) return false;
      await record(state, request, 'cancelled', {
        userId: request.requester,
        correlationId: correlationOf(stepOptions),
        detail: redact(state, reason),
      });
      return true;
    },

    async setCard(id, channel, ts) {
      if (!IdSchema.safeParse(id).success) throw new ApprovalError('not an approval id');
      // Not a state change, so the version stays: a click racing this update is unaffected.
      await state.approvals.setCard(id, channel, ts);
    },

    claimReminders: () => state.approvals.claimReminders(state.now()),
  };

  return service;
}
