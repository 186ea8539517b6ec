import { z } from 'zod';
import { endpoint, type PlatformContext } from './context.js';
import { invalidRequest } from './errors.js';
import {
  type PullZoneDetail,
  PullZoneDetailSchema,
  type PullZoneList,
  PullZoneListSchema,
  type PullZoneQuery,
  PullZoneQuerySchema,
  ResetSecurityKeySchema,
} from './schemas.js';

const PullZoneIdSchema = z
  .number()
  .int()
  .positive({ error: 'the pull zone id must be a positive whole number' });

/**
 * POST /pullzone/{id}/resetSecurityKey with {SecurityKey}. The spec does not show the
 * success response; the vendor schema (reference 05) gives 204 with no body.
 */
export async function resetPullZoneSecurityKey(
  ctx: PlatformContext,
  pullZoneId: number,
  securityKey: string,
): Promise<void> {
  const id = PullZoneIdSchema.safeParse(pullZoneId);
  if (!id.success) throw invalidRequest('pullzone.resetSecurityKey', id.error);
  const body = ResetSecurityKeySchema.safeParse({ SecurityKey: securityKey });
  if (!body.success) throw invalidRequest('pullzone.resetSecurityKey', body.error);
  await ctx.http.empty({
    operation: 'pullzone.resetSecurityKey',
    subject: `pull zone ${id.data}`,
    lookup: '/edge pullzones',
    method: 'POST',
    url: endpoint(ctx.apiUrl, `/pullzone/${id.data}/resetSecurityKey`),
    json: body.data,
    read: false,
    expect: [200, 204],
  });
}

/**
 * GET /pullzone?page&perPage&search: the vendor's published list of pull zones, beyond the spec's
 * nine operations, so that people can find an id without knowing it by heart.
 */
export async function listPullZones(
  ctx: PlatformContext,
  input: PullZoneQuery & { signal?: AbortSignal } = {},
): Promise<PullZoneList> {
  const { signal, ...rest } = input;
  const query = PullZoneQuerySchema.safeParse(rest);
  if (!query.success) throw invalidRequest('pullzone.list', query.error);
  return ctx.http.json(
    {
      operation: 'pullzone.list',
      method: 'GET',
      url: endpoint(ctx.apiUrl, '/pullzone'),
      query: { page: query.data.page, perPage: query.data.perPage, search: query.data.search },
      read: true,
      expect: [200],
      signal,
    },
    PullZoneListSchema,
  );
}

/**
 * GET /pullzone/{id}: one pull zone's name, hostnames and origin (the vendor's published API). The
 * body also holds the zone's secrets; the schema keeps none of them and the body is never logged.
 */
export async function getPullZone(
  ctx: PlatformContext,
  pullZoneId: number,
  signal?: AbortSignal,
): Promise<PullZoneDetail> {
  const id = PullZoneIdSchema.safeParse(pullZoneId);
  if (!id.success) throw invalidRequest('pullzone.get', id.error);
  return ctx.http.json(
    {
      operation: 'pullzone.get',
      subject: `pull zone ${id.data}`,
      lookup: '/edge pullzones',
      method: 'GET',
      url: endpoint(ctx.apiUrl, `/pullzone/${id.data}`),
      read: true,
      expect: [200],
      signal,
    },
    PullZoneDetailSchema,
  );
}
