import { endpoint, type PlatformContext } from './context.js';
import { invalidRequest } from './errors.js';
import { type ApiKeyList, ApiKeyListSchema, type Paging, PagingSchema } from './schemas.js';

/** GET /apikey?page&perPage (names from the vendor schema, reference 02). */
export async function listApiKeys(ctx: PlatformContext, paging: Paging = {}): Promise<ApiKeyList> {
  const query = PagingSchema.safeParse(paging);
  if (!query.success) throw invalidRequest('apikey.list', query.error);
  return ctx.http.json(
    {
      operation: 'apikey.list',
      method: 'GET',
      url: endpoint(ctx.apiUrl, '/apikey'),
      query: { page: query.data.page, perPage: query.data.perPage },
      read: true,
      expect: [200],
    },
    ApiKeyListSchema,
  );
}
