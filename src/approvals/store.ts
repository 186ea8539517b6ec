/**
 * The approvals table: the store the service runs every statement through. It decides no
 * transition and reads no clock (the service passes the time in); the row codec is row.ts, the
 * reads reads.ts, and every write transitions.ts, whose affected-row counts the service reads to
 * decide who won.
 */
import type { Client } from '@libsql/client';
import type { ApprovalRequest, ApprovalState, ExecutionResult } from './machine.js';
import { type ApprovalQuery, countByState, countWaiting, getRequest, listRequests } from './reads.js';
import { approvalsTable } from './table.js';
import {
  cancelPending,
  claimExecution,
  claimReminders,
  type Decision,
  decide,
  type ExecutionClaim,
  expirePending,
  finishExecution,
  type InsertOutcome,
  insertPending,
  markUnknown,
  type NewStoredRequest,
  type RecoveryQuery,
  setCard,
  type Transition,
} from './transitions.js';

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
  decide(id: string, version: number, change: Decision, at: Date): Promise<Transition>;
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
  const table = approvalsTable(client);
  return {
    get: (id) => getRequest(table, id),
    list: (query, limit) => listRequests(table, query, limit),
    countByState: () => countByState(table),
    countWaiting: (at) => countWaiting(table, at),
    insertPending: (request) => insertPending(table, request),
    decide: (id, version, change, at) => decide(table, id, version, change, at),
    claimExecution: (id, executor, at) => claimExecution(table, id, executor, at),
    finishExecution: (id, state, result, at) => finishExecution(table, id, state, result, at),
    expirePending: (at, id) => expirePending(table, at, id),
    markUnknown: (query) => markUnknown(table, query),
    cancelPending: (id, at) => cancelPending(table, id, at),
    setCard: (id, channel, ts) => setCard(table, id, channel, ts),
    claimReminders: (at) => claimReminders(table, at),
  };
}
