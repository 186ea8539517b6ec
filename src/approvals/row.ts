/**
 * An approvals row and the request it holds: the columns as stored, decoded and checked (any
 * unreadable column is an ApprovalError, never a guess), and the parameters' digest, checked on
 * the raw text before it is decoded.
 */
import { createHash } from 'node:crypto';
import type { Row } from '@libsql/client';
import { z } from 'zod';
import { canonicalJson, type JsonValue } from '../state/canonical-json.js';
import { ApprovalError } from './errors.js';
import { APPROVAL_STATES, type ApprovalRequest, type ApprovalVote } from './machine.js';

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

export const COLUMNS = Object.keys(StoredRowSchema.shape).join(', ');

const StringListSchema = z.array(z.string());
const VotesSchema = z.array(z.object({ userId: z.string(), at: z.iso.datetime() }));
const ParamsTextRowSchema = z.object({ params_json: z.string(), params_digest: z.string() });

function parseJson<T>(text: string, schema: z.ZodType<T>, what: string, id: string): T {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ApprovalError(
      'approval-unreadable',
      `approval ${id} is unreadable: ${what} is not valid JSON`,
      { cause: error },
    );
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new ApprovalError(
      'approval-unreadable',
      `approval ${id} is unreadable: ${what} has the wrong shape`,
      {
        cause: parsed.error,
      },
    );
  return parsed.data;
}

const dateOrNull = (ms: number | null) => (ms === null ? null : new Date(ms));

export function toRequest(raw: Row): ApprovalRequest {
  const stored = StoredRowSchema.safeParse(raw);
  if (!stored.success)
    throw new ApprovalError('approval-unreadable', 'an approval row has missing or mistyped columns', {
      cause: stored.error,
    });
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
export function storedParamsIntact(raw: Row): Record<string, JsonValue> | null {
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

export const votesJson = (votes: readonly ApprovalVote[]) =>
  JSON.stringify(votes.map((vote) => ({ userId: vote.userId, at: vote.at.toISOString() })));
