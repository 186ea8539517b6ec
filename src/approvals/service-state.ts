/**
 * What every step of the approval service is handed: the approvals table, the audit log, the
 * clock and this instance's name; and what every step does with them: append its audit row,
 * name its correlation id, keep a registered secret out of what it stores.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { SecretRegistry } from '../secrets/registry.js';
import type { AuditLog } from '../state/audit.js';
import type { JsonValue } from '../state/canonical-json.js';
import type { Logger } from '../telemetry/log.js';
import { APPROVAL_ID_PATTERN, type ApprovalRequest } from './machine.js';
import type { ApprovalStore } from './store.js';

export interface ServiceState {
  approvals: ApprovalStore;
  audit: AuditLog;
  logger: Logger;
  now: () => Date;
  /** When given, parameters holding a registered secret are refused and result details are redacted. */
  secrets?: SecretRegistry;
  /** Names this service in the rows it executes, so its own running executions are never recovered. */
  instanceId: string;
}

export interface StepOptions {
  correlationId?: string;
}

export const IdSchema = z.string().regex(APPROVAL_ID_PATTERN);

export const correlationOf = (options?: StepOptions) => options?.correlationId ?? randomUUID();

export const redact = (state: ServiceState, text: string) =>
  state.secrets ? state.secrets.redact(text) : text;

/** The request with this id; null for anything that is not an approval id. */
export async function getRequest(state: ServiceState, id: string): Promise<ApprovalRequest | null> {
  if (!IdSchema.safeParse(id).success) return null;
  return state.approvals.get(id);
}

/** Appends the step to the audit log; a failure is logged, since the step itself already happened. */
export async function record(
  state: ServiceState,
  request: ApprovalRequest,
  outcome: string,
  step: { userId: string; correlationId: string; detail: string; params?: Record<string, JsonValue> },
): Promise<boolean> {
  try {
    await state.audit.append({
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
    state.logger.error('approval step could not be audited', {
      approvalId: request.id,
      outcome,
      correlationId: step.correlationId,
      error,
    });
    return false;
  }
}
