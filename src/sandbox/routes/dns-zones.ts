/**
 * GET /dnszone?page&perPage&search&view. The Lite view (view=1) keeps every zone field but sends
 * `Records: []`: the shape stays the same for clients, and a record count of 0 is plainly "not loaded".
 * With the `dnsNulls` knob every nullable field is null, `Domain` included (and `Records` in the
 * Lite view); a search then finds nothing, as no zone has a domain to match.
 */
import { hasAccountKey, queryNumber, sendApiError, sendEmpty, sendJson } from '../http.js';
import type { Route } from '../router.js';
import type { SandboxState } from '../state.js';
import { DNS_LITE_VIEW, DnsZoneQuerySchema, dnsZoneWithNulls } from '../vendor-rules.js';
import { pageOf, queryProblem, VENDOR_DEFAULT_PER_PAGE } from './paging.js';

export function dnsZoneRoutes(state: SandboxState): Route[] {
  return [
    {
      id: 'dnszone.list',
      listener: 'api',
      method: 'GET',
      path: /^\/dnszone$/,
      handle({ req, res, url }) {
        if (!hasAccountKey(req, state.apiKey)) return sendEmpty(res, 401);
        const parsed = DnsZoneQuerySchema.safeParse({
          page: queryNumber(url, 'page'),
          perPage: queryNumber(url, 'perPage') ?? VENDOR_DEFAULT_PER_PAGE,
          // An empty search term means no filter, as on the vendor's API.
          search: url.searchParams.get('search') || undefined,
          view: queryNumber(url, 'view'),
        });
        if (!parsed.success) {
          const { field, message } = queryProblem(parsed.error);
          return sendApiError(res, 'validation_error', field, message);
        }
        const { page, perPage, search, view } = parsed.data;
        const needle = search?.toLowerCase();
        const nulls = state.knobs.vendorShapes().dnsNulls === true;
        const zones = state.data.dnsZones
          .filter((zone) => !needle || (!nulls && zone.Domain.toLowerCase().includes(needle)))
          .map((zone) => (view === DNS_LITE_VIEW ? { ...zone, Records: [] } : zone))
          .map((zone) => (nulls ? dnsZoneWithNulls(zone) : zone));
        sendJson(res, 200, pageOf(zones, page, perPage));
      },
    },
  ];
}
