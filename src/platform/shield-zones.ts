import { z } from 'zod';
import { endpoint, type PlatformContext } from './context.js';
import { invalidRequest, shieldEnvelopeFailure } from './errors.js';
import { type ShieldZoneList, ShieldZoneListSchema } from './schemas.js';

/** The Shield API pages with `page` and `perPage` (its default is 10). */
const ShieldZoneQuerySchema = z.strictObject({
  page: z.number().int().min(1).default(1),
  perPage: z.number().int().min(1).max(1000).default(100),
});

/**
 * GET /shield/shield-zones?page&perPage: the vendor's published list of Shield zones, beyond the
 * spec's nine operations, so that people can find a Shield zone id and the pull zone it guards.
 */
export async function listShieldZones(
  ctx: PlatformContext,
  input: z.input<typeof ShieldZoneQuerySchema> & { signal?: AbortSignal } = {},
): Promise<ShieldZoneList> {
  const { signal, ...rest } = input;
  const query = ShieldZoneQuerySchema.safeParse(rest);
  if (!query.success) throw invalidRequest('shieldzone.list', query.error);
  const envelope = await ctx.http.jsonWithStatus(
    {
      operation: 'shieldzone.list',
      method: 'GET',
      url: endpoint(ctx.apiUrl, '/shield/shield-zones'),
      query: { page: query.data.page, perPage: query.data.perPage },
      read: true,
      expect: [200],
      signal,
    },
    ShieldZoneListSchema,
  );
  const failure = shieldEnvelopeFailure('shieldzone.list', envelope.status, envelope.body.error);
  if (failure) throw failure;
  return envelope.body;
}
