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
 *
 * This file builds the state the steps share (service-state.ts) and hands it to each: request.ts,
 * click.ts, execution.ts, sweep.ts (expiry, crash recovery, reminders, unposted requests).
 */
import { randomUUID } from 'node:crypto';
import type { SecretRegistry } from '../secrets/registry.js';
import type { AuditLog } from '../state/audit.js';
import type { StateStore } from '../state/store.js';
import type { Logger } from '../telemetry/log.js';
import { applyClick, type ClickInput, type ClickResult } from './click.js';
import { ApprovalError } from './errors.js';
import {
  type ApprovalExecutor,
  type BeginResult,
  beginExecution,
  type ExecutionReport,
  executeApproved,
  type FinishResult,
  finishExecution,
} from './execution.js';
import type { ApprovalRequest, ApprovalState, ExecutionResult } from './machine.js';
import type { ApprovalQuery } from './reads.js';
import { createRequest, type NewApprovalRequest, type RequestResult } from './request.js';
import { getRequest, IdSchema, type ServiceState, type StepOptions } from './service-state.js';
import { createApprovalStore } from './store.js';
import {
  cancelUnposted,
  claimReminders,
  expireStale,
  type RecoverOptions,
  recoverAfterCrash,
} from './sweep.js';

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

export interface ListOptions {
  /** Every state, newest first; without it only pending requests that have not expired. */
  all?: boolean;
  /** Only these states, newest first (e.g. `['approved']` at start-up: approved but never started). */
  states?: readonly ApprovalState[];
  /** 50 by default, at most 200. */
  limit?: number;
}

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

/** The requests the options ask for, newest first: LIST_DEFAULT of them unless told, never over LIST_MAX. */
async function list(state: ServiceState, listOptions: ListOptions = {}): Promise<ApprovalRequest[]> {
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
}

async function setCard(state: ServiceState, id: string, channel: string, ts: string): Promise<void> {
  if (!IdSchema.safeParse(id).success) throw new ApprovalError('approval-invalid', 'not an approval id');
  // Not a state change, so the version stays: a click racing this update is unaffected.
  await state.approvals.setCard(id, channel, ts);
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
  return {
    request: (input) => createRequest(state, input),
    click: (input) => applyClick(state, input),
    beginExecution: (id, stepOptions) => beginExecution(state, id, stepOptions),
    finishExecution: (id, outcome, stepOptions) => finishExecution(state, id, outcome, stepOptions),
    executeApproved: (id, executor, stepOptions) => executeApproved(state, id, executor, stepOptions),
    expireStale: (stepOptions) => expireStale(state, stepOptions),
    recoverAfterCrash: (recoverOptions) => recoverAfterCrash(state, recoverOptions),
    cancelUnposted: (id, reason, stepOptions) => cancelUnposted(state, id, reason, stepOptions),
    claimReminders: () => claimReminders(state),
    get: (id) => getRequest(state, id),
    list: (listOptions) => list(state, listOptions),
    countByState: () => state.approvals.countByState(),
    countWaiting: () => state.approvals.countWaiting(state.now()),
    setCard: (id, channel, ts) => setCard(state, id, channel, ts),
  };
}
