/**
 * The two lists people use to find ids, from the vendor's published API (beyond the spec's nine
 * operations): GET /pullzone (core API, paged like /dnszone, with a search) and
 * GET /shield/shield-zones (Shield API: `data` and a `page` object in its envelope), and one pull
 * zone (GET /pullzone/{id}), whose body carries the zone's secrets as the vendor's does.
 */
import { z } from 'zod';
import { hasAccountKey, queryNumber, sendEmpty, sendJson } from '../http.js';
import type { Route } from '../router.js';
import type { PullZone } from '../seed.js';
import type { SandboxState } from '../state.js';
import { pageOf, queryProblem, vendorPaging } from './paging.js';

/** The Shield API's own default page size (its published query parameter says 10). */
const SHIELD_DEFAULT_PER_PAGE = 10;
const ShieldPagingSchema = z.strictObject({
  page: z.number().int().min(1).default(1),
  perPage: z.number().int().min(1).max(1000).default(SHIELD_DEFAULT_PER_PAGE),
});

/** A pull zone as the vendor's PullZoneModel shows it in lists: no secrets among these fields. */
function pullZoneSummary(zone: PullZone) {
  return {
    Id: zone.id,
    Name: zone.name,
    OriginUrl: zone.originUrl,
    Enabled: true,
    Suspended: false,
    Hostnames: zone.hostnames.map((value, index) => ({
      Id: zone.id * 10 + index,
      Value: value,
      ForceSSL: true,
      IsSystemHostname: value.endsWith('.b-cdn.net'),
      HasCertificate: true,
    })),
  };
}

export function zoneListRoutes(state: SandboxState): Route[] {
  return [
    {
      id: 'pullzone.list',
      listener: 'api',
      method: 'GET',
      path: /^\/pullzone$/,
      handle({ req, res, url }) {
        if (!hasAccountKey(req, state.apiKey, { bearer: true })) return sendEmpty(res, 401);
        const paging = vendorPaging(url, res);
        if (!paging) return;
        const search = url.searchParams.get('search')?.toLowerCase();
        const zones = [...state.pullZones.values()]
          .filter(
            (zone) =>
              !search ||
              zone.name.toLowerCase().includes(search) ||
              zone.hostnames.some((hostname) => hostname.includes(search)),
          )
          .map(pullZoneSummary);
        sendJson(res, 200, pageOf(zones, paging.page, paging.perPage));
      },
    },
    {
      id: 'pullzone.get',
      listener: 'api',
      method: 'GET',
      path: /^\/pullzone\/(?<id>[^/]+)$/,
      handle({ req, res, params }) {
        if (!hasAccountKey(req, state.apiKey, { bearer: true })) return sendEmpty(res, 401);
        const zone = /^\d+$/.test(params.id ?? '') ? state.pullZones.get(Number(params.id)) : undefined;
        if (!zone) return sendEmpty(res, 404);
        sendJson(res, 200, {
          ...pullZoneSummary(zone),
          ZoneSecurityEnabled: true,
          ZoneSecurityKey: zone.securityKey,
          AWSSigningEnabled: false,
          AWSSigningKey: `aws-key-${zone.securityKey}`,
          AWSSigningSecret: `aws-secret-${zone.securityKey}`,
          LogForwardingEnabled: false,
          LogForwardingToken: `log-token-${zone.securityKey}`,
          IgnoreQueryStrings: true,
          EnableLogging: true,
        });
      },
    },
    {
      id: 'shieldzone.list',
      listener: 'api',
      method: 'GET',
      path: /^\/shield\/shield-zones$/,
      handle({ req, res, url }) {
        if (!hasAccountKey(req, state.apiKey, { bearer: true })) return sendEmpty(res, 401);
        const parsed = ShieldPagingSchema.safeParse({
          page: queryNumber(url, 'page'),
          perPage: queryNumber(url, 'perPage'),
        });
        if (!parsed.success) {
          const { message } = queryProblem(parsed.error);
          return sendJson(res, 400, {
            data: null,
            error: { statusCode: 400, success: false, message, errorKey: 'validation_error' },
          });
        }
        const { page, perPage } = parsed.data;
        const zones = [...state.shieldZones.values()];
        const start = (page - 1) * perPage;
        sendJson(res, 200, {
          data: zones.slice(start, start + perPage).map((zone) => ({
            shieldZoneId: zone.id,
            pullZoneId: zone.pullZoneId,
            planType: zone.planType,
            learningMode: false,
            wafEnabled: true,
          })),
          page: { currentPage: page, pageSize: perPage, totalCount: zones.length },
          error: { statusCode: 200, success: true, message: null, errorKey: null },
        });
      },
    },
  ];
}
