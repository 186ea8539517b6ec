/**
 * An approved request run once: claimed `approved → executing` by exactly one caller, its stored
 * parameters checked against their digest and its start audited before anything runs, and its
 * result stored and audited after; a throwing executor counts as failed, and nothing is retried.
 */
import type { JsonValue } from '../state/canonical-json.js';
import type { ApprovalRequest, ExecutionResult } from './machine.js';
import { ExecutionResultSchema } from './row.js';
import {
  correlationOf,
  IdSchema,
  record,
  redact,
  type ServiceState,
  type StepOptions,
} from './service-state.js';

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

/** Claims `approved → executing`; exactly one caller wins and gets the verified stored parameters. */
export async function beginExecution(
  state: ServiceState,
  id: string,
  stepOptions?: StepOptions,
): Promise<BeginResult> {
  const correlationId = correlationOf(stepOptions);
  if (!IdSchema.safeParse(id).success) return { ok: false, reason: 'not-found' };
  const claim = await state.approvals.claimExecution(id, state.instanceId, state.now());
  if (claim.stored === null) return { ok: false, reason: 'not-found' };
  if (claim.rowsAffected !== 1) return { ok: false, reason: 'not-approved', request: claim.stored.request() };
  // Checked on the raw text: what runs must be byte for byte what was asked and approved.
  const params = claim.stored.intactParams();
  if (params === null) {
    state.logger.error('approval parameters do not match their digest; not executed', {
      approvalId: id,
      correlationId,
    });
    const detail = 'not run: the stored parameters do not match their digest';
    const finished = await finishExecution(state, id, { ok: false, detail }, { correlationId });
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
    const finished = await finishExecution(
      state,
      id,
      { ok: false, detail: 'not run: the audit log could not be written' },
      { correlationId },
    );
    return { ok: false, reason: 'not-audited', request: finished.request };
  }
  return { ok: true, request, params };
}

export async function finishExecution(
  state: ServiceState,
  id: string,
  result: ExecutionResult,
  stepOptions?: StepOptions,
): Promise<FinishResult> {
  const correlationId = correlationOf(stepOptions);
  const checked = ExecutionResultSchema.safeParse(result);
  const outcome: ExecutionResult = checked.success
    ? { ok: checked.data.ok, detail: redact(state, checked.data.detail) }
    : { ok: false, detail: 'the operation reported a result the bot could not read' };
  if (!IdSchema.safeParse(id).success) return { ok: false, reason: 'not-found' };
  const ended = outcome.ok ? 'succeeded' : 'failed';
  const { rowsAffected, request } = await state.approvals.finishExecution(id, ended, outcome, state.now());
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
}

/** beginExecution → executor → finishExecution; a throwing executor counts as failed; never retried. */
export async function executeApproved(
  state: ServiceState,
  id: string,
  executor: ApprovalExecutor,
  stepOptions?: StepOptions,
): Promise<ExecutionReport> {
  const correlationId = correlationOf(stepOptions);
  const begun = await beginExecution(state, id, { correlationId });
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
  const finished = await finishExecution(state, id, outcome, { correlationId });
  const request = finished.request ?? begun.request;
  return { ran: true, outcome: { ok: outcome.ok, detail: redact(state, outcome.detail) }, request };
}
