/**
 * Purging the edge cache (the vendor's published API, beyond the spec's nine operations): one URL
 * (`POST /purge`), or a pull zone's whole cache or one cache tag of it (`POST
 * /pullzone/{id}/purgeCache`). Both are writes: never retried.
 */
import { z } from 'zod';
import { endpoint, type PlatformContext } from './context.js';
import { invalidRequest } from './errors.js';

/** An absolute http(s) URL, as `POST /purge?url=` takes it. */
export const PurgeUrlSchema = z
  .string()
  .max(4096, { error: 'a URL to purge is at most 4096 characters' })
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
    error: 'the URL to purge must be an absolute http or https URL',
  });

/** The vendor's PullZonePurgeModel: `{"CacheTag": …}`, nothing else. */
const PullZonePurgeSchema = z.strictObject({
  CacheTag: z.string().min(1).max(255, { error: 'a cache tag is at most 255 characters' }),
});

const PullZoneIdSchema = z
  .number()
  .int()
  .positive({ error: 'the pull zone id must be a positive whole number' });

/**
 * POST /purge?url=URL&exactPath=true: purges one URL and waits for it (`async` left at its
 * default, false). `exactPath` keeps a URL ending in `/` from purging what is below it, where the
 * zone's query-string setting lets it.
 */
export async function purgeUrl(ctx: PlatformContext, url: string, signal?: AbortSignal): Promise<void> {
  const parsed = PurgeUrlSchema.safeParse(url);
  if (!parsed.success) throw invalidRequest('purge.url', parsed.error);
  await ctx.http.empty({
    operation: 'purge.url',
    method: 'POST',
    url: endpoint(ctx.apiUrl, '/purge'),
    query: { url: parsed.data, exactPath: 'true' },
    read: false,
    expect: [200, 204],
    signal,
  });
}

/**
 * POST /pullzone/{id}/purgeCache: the zone's whole cache without a body, or only what carries
 * `cacheTag`. 204 on success; 404 names the zone.
 */
export async function purgePullZoneCache(
  ctx: PlatformContext,
  pullZoneId: number,
  cacheTag?: string,
): Promise<void> {
  const id = PullZoneIdSchema.safeParse(pullZoneId);
  if (!id.success) throw invalidRequest('pullzone.purgeCache', id.error);
  let json: z.infer<typeof PullZonePurgeSchema> | undefined;
  if (cacheTag !== undefined) {
    const body = PullZonePurgeSchema.safeParse({ CacheTag: cacheTag });
    if (!body.success) throw invalidRequest('pullzone.purgeCache', body.error);
    json = body.data;
  }
  await ctx.http.empty({
    operation: 'pullzone.purgeCache',
    subject: `pull zone ${id.data}`,
    lookup: '/edge pullzones',
    method: 'POST',
    url: endpoint(ctx.apiUrl, `/pullzone/${id.data}/purgeCache`),
    json,
    read: false,
    expect: [200, 204],
  });
}
