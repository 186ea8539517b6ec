import { z } from 'zod';
import { endpoint, type PlatformContext } from './context.js';
import { invalidRequest, shieldEnvelopeFailure } from './errors.js';
import type { PlatformStream } from './http.js';
import {
  type BotDetectionConfig,
  BotDetectionConfigSchema,
  type BotDetectionUpdate,
  BotDetectionUpdateSchema,
  type ExportRequest,
  exportRequestSchema,
  shieldEnvelope,
  type WafEnum,
  WafEnumsResponseSchema,
} from './schemas.js';

const ShieldZoneIdSchema = z
  .number()
  .int()
  .positive({ error: 'the Shield zone id must be a positive whole number' });

/**
 * PATCH /shield/shield-zone/{id}/bot-detection. Status codes are not shown in the spec, so
 * any 2xx counts as delivered and the envelope decides: error.success = false is a failure
 * (the vendor answers plan problems with 202 and errorKey invalid_plan_type.bot_detection).
 */
export async function updateBotDetection(
  ctx: PlatformContext,
  input: BotDetectionUpdate,
): Promise<BotDetectionConfig> {
  const body = BotDetectionUpdateSchema.safeParse(input);
  if (!body.success) throw invalidRequest('shield.botDetection', body.error);
  const envelope = await ctx.http.jsonWithStatus(
    {
      operation: 'shield.botDetection',
      subject: `Shield zone ${body.data.shieldZoneId}`,
      lookup: '/edge shield zones',
      method: 'PATCH',
      url: endpoint(ctx.apiUrl, `/shield/shield-zone/${body.data.shieldZoneId}/bot-detection`),
      json: body.data,
      read: false,
      expect: [200, 201, 202, 204],
    },
    shieldEnvelope(BotDetectionConfigSchema),
  );
  const failure = shieldEnvelopeFailure('shield.botDetection', envelope.status, envelope.body.error);
  if (failure) throw failure;
  return envelope.body.data ?? body.data;
}

/**
 * GET /shield/shield-zone/{id}/bot-detection: the zone's current configuration (reference 04,
 * "Get Current Bot Detection"), so a change can show before → after. A plan without bot
 * detection answers 202 with errorKey invalid_plan_type.bot_detection: a failure here, since
 * there are no current settings to show. `null` when the envelope carries no data.
 */
export async function getBotDetection(
  ctx: PlatformContext,
  shieldZoneId: number,
  options: { signal?: AbortSignal } = {},
): Promise<BotDetectionConfig | null> {
  const id = ShieldZoneIdSchema.safeParse(shieldZoneId);
  if (!id.success) throw invalidRequest('shield.botDetection.get', id.error);
  const envelope = await ctx.http.jsonWithStatus(
    {
      operation: 'shield.botDetection.get',
      subject: `Shield zone ${id.data}`,
      lookup: '/edge shield zones',
      method: 'GET',
      url: endpoint(ctx.apiUrl, `/shield/shield-zone/${id.data}/bot-detection`),
      read: true,
      expect: [200, 202],
      signal: options.signal,
    },
    shieldEnvelope(BotDetectionConfigSchema),
  );
  const failure = shieldEnvelopeFailure('shield.botDetection.get', envelope.status, envelope.body.error);
  if (failure) throw failure;
  return envelope.body.data ?? null;
}

/** GET /shield/waf/enums: every WAF enumeration with its values. */
export async function getWafEnums(ctx: PlatformContext): Promise<WafEnum[]> {
  const response = await ctx.http.json(
    {
      operation: 'shield.wafEnums',
      method: 'GET',
      url: endpoint(ctx.apiUrl, '/shield/waf/enums'),
      read: true,
      expect: [200],
    },
    WafEnumsResponseSchema,
  );
  return response.data;
}

/**
 * POST /shield/event-logs/{id}/export: the CSV body is returned as a stream, never read
 * here, so a 1 GB export does not sit in memory. The POST changes nothing on the platform,
 * so it is retried like a read.
 */
export async function exportShieldEventLogs(
  ctx: PlatformContext,
  shieldZoneId: number,
  input: ExportRequest,
  options: { signal?: AbortSignal } = {},
): Promise<PlatformStream> {
  const id = ShieldZoneIdSchema.safeParse(shieldZoneId);
  if (!id.success) throw invalidRequest('shield.export', id.error);
  const body = exportRequestSchema(ctx.now()).safeParse(input);
  if (!body.success) throw invalidRequest('shield.export', body.error);
  return ctx.http.stream({
    operation: 'shield.export',
    subject: `Shield zone ${id.data}`,
    lookup: '/edge shield zones',
    method: 'POST',
    url: endpoint(ctx.apiUrl, `/shield/event-logs/${id.data}/export`),
    headers: { accept: 'text/csv, application/json' },
    json: body.data,
    read: true,
    expect: [200],
    signal: options.signal,
  });
}
