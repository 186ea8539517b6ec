/**
 * Purges, as the vendor's published API has them (beyond the spec's nine operations):
 * POST /purge?url=…[&async][&exactPath] answers 200 and POST /pullzone/{id}/purgeCache with an
 * optional PullZonePurgeModel answers 204 (404 for an unknown zone). Each accepted purge is
 * recorded in the state, so that the statistics can show its dip in cache hits.
 */
import { z } from 'zod';
import { hasAccountKey, sendApiError, sendEmpty } from '../http.js';
import type { Route } from '../router.js';
import type { SandboxState } from '../state.js';

/** The vendor's PullZonePurgeModel: additionalProperties false, CacheTag nullable. */
const PullZonePurgeBodySchema = z.strictObject({ CacheTag: z.string().nullish() });

const BOOLEAN_QUERY = /^(true|false)$/i;

/** The URL a purge names, or why the platform would refuse it. */
function purgedUrl(raw: string | null): { url: URL } | { error: string } {
  if (raw === null || raw.trim() === '') return { error: 'The url parameter is required' };
  if (!URL.canParse(raw)) return { error: 'The url parameter must be an absolute URL' };
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { error: 'The url parameter must be an http or https URL' };
  return { url };
}

export function purgeRoutes(state: SandboxState): Route[] {
  /** The pull zone one of whose hostnames is `host`. */
  const zoneServing = (host: string) => {
    const wanted = host.toLowerCase();
    for (const zone of state.pullZones.values())
      if (zone.hostnames.some((hostname) => hostname.toLowerCase() === wanted)) return zone;
    return undefined;
  };
  return [
    {
      id: 'purge.url',
      listener: 'api',
      method: 'POST',
      path: /^\/purge$/,
      handle({ req, res, url }) {
        if (!hasAccountKey(req, state.apiKey, { bearer: true })) return sendEmpty(res, 401);
        for (const flag of ['async', 'exactPath']) {
          const value = url.searchParams.get(flag);
          if (value !== null && !BOOLEAN_QUERY.test(value))
            return sendApiError(res, 'validation_error', flag, `The ${flag} parameter must be true or false`);
        }
        const purged = purgedUrl(url.searchParams.get('url'));
        if ('error' in purged) return sendApiError(res, 'purge.invalid_url', 'url', purged.error);
        // A host no zone of the account serves has nothing cached here: accepted, nothing recorded.
        const zone = zoneServing(purged.url.hostname);
        if (zone) state.purges.push({ at: state.now(), pullZoneId: zone.id, url: purged.url.href });
        sendEmpty(res, 200);
      },
    },
    {
      id: 'pullzone.purgeCache',
      listener: 'api',
      method: 'POST',
      path: /^\/pullzone\/(?<id>[^/]+)\/purgeCache$/,
      handle({ req, res, params, json }) {
        if (!hasAccountKey(req, state.apiKey, { bearer: true })) return sendEmpty(res, 401);
        const zone = /^\d+$/.test(params.id ?? '') ? state.pullZones.get(Number(params.id)) : undefined;
        if (!zone) return sendEmpty(res, 404);
        if (!json.ok && !json.empty)
          return sendApiError(res, 'validation_error', null, 'The request body is not valid JSON');
        const body = json.ok ? PullZonePurgeBodySchema.safeParse(json.value ?? {}) : undefined;
        if (body && !body.success) {
          const issue = body.error.issues[0];
          const field = issue?.code === 'unrecognized_keys' ? (issue.keys[0] ?? null) : 'CacheTag';
          return sendApiError(
            res,
            'validation_error',
            field,
            field === 'CacheTag'
              ? 'CacheTag must be a string'
              : `The field ${field} is not part of the model`,
          );
        }
        const cacheTag = body?.data.CacheTag ?? undefined;
        state.purges.push({ at: state.now(), pullZoneId: zone.id, ...(cacheTag ? { cacheTag } : {}) });
        sendEmpty(res, 204);
      },
    },
  ];
}
