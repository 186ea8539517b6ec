/** GET /apikey?page&perPage: the account's keys in the paged envelope. */
import { hasAccountKey, queryNumber, sendApiError, sendEmpty, sendJson } from '../http.js';
import type { Route } from '../router.js';
import type { SandboxState } from '../state.js';
import { PagingQuerySchema } from '../vendor-rules.js';
import { pageOf, queryProblem, VENDOR_DEFAULT_PER_PAGE } from './paging.js';

export function apiKeyRoutes(state: SandboxState): Route[] {
  return [
    {
      id: 'apikey.list',
      listener: 'api',
      method: 'GET',
      path: /^\/apikey$/,
      handle({ req, res, url }) {
        if (!hasAccountKey(req, state.apiKey, { bearer: true })) return sendEmpty(res, 401);
        const parsed = PagingQuerySchema.safeParse({
          page: queryNumber(url, 'page'),
          perPage: queryNumber(url, 'perPage') ?? VENDOR_DEFAULT_PER_PAGE,
        });
        if (!parsed.success) {
          const { field, message } = queryProblem(parsed.error);
          return sendApiError(res, 'validation_error', field, message);
        }
        sendJson(res, 200, pageOf(state.data.apiKeys, parsed.data.page, parsed.data.perPage));
      },
    },
  ];
}
