/**
 * A new request: checked, stored as pending with its parameters' digest unless an open request
 * holds the same lock, and audited. Expired requests that held the lock are closed first.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ApprovalRequirement } from '../policy/authorize.js';
import { canonicalJson, type JsonValue } from '../state/canonical-json.js';
import { ApprovalError } from './errors.js';
import { type ApprovalRequest, escalatesAt } from './machine.js';
import { ParamsSchema, paramsDigest } from './row.js';
import { record, type ServiceState } from './service-state.js';

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

const MAX_ID_ATTEMPTS = 5;

function newApprovalId(): string {
  return `ap_${randomBytes(8).toString('hex')}`;
}

/** Stores a new pending request, unless an open one holds its lock; every step is audited. */
export async function createRequest(state: ServiceState, input: NewApprovalRequest): Promise<RequestResult> {
  const parsed = NewApprovalRequestSchema.safeParse(input);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') ?? 'request';
    throw new ApprovalError('approval-invalid', `approval request is invalid at ${field}`, {
      cause: parsed.error,
    });
  }
  const ask = parsed.data;
  const params: Record<string, JsonValue> = ask.params;
  const paramsJson = canonicalJson(params);
  if (state.secrets && state.secrets.redact(paramsJson) !== paramsJson)
    throw new ApprovalError('approval-invalid', 'approval parameters must not contain a secret');
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
  throw new ApprovalError('approval-contended', 'could not create an approval id');
}
