import { endpoint, type PlatformContext } from './context.js';
import { invalidRequest } from './errors.js';
import { type DnsZoneList, DnsZoneListSchema, type DnsZoneQuery, DnsZoneQuerySchema } from './schemas.js';

/** GET /dnszone?page&perPage&search&view (names from the vendor schema, reference 07). */
export async function listDnsZones(ctx: PlatformContext, input: DnsZoneQuery = {}): Promise<DnsZoneList> {
  const query = DnsZoneQuerySchema.safeParse(input);
  if (!query.success) throw invalidRequest('dnszone.list', query.error);
  return ctx.http.json(
    {
      operation: 'dnszone.list',
      method: 'GET',
      url: endpoint(ctx.apiUrl, '/dnszone'),
      query: {
        page: query.data.page,
        perPage: query.data.perPage,
        search: query.data.search,
        view: query.data.view,
      },
      read: true,
      expect: [200],
    },
    DnsZoneListSchema,
  );
}
