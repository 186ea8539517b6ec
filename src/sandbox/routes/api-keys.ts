/** GET /apikey?page&perPage: the account's keys in the paged envelope. */
import { hasAccountKey, sendEmpty, sendJson } from '../http.js';
import type { Route } from '../router.js';
import type { SandboxState } from '../state.js';
import { pageOf, vendorPaging } from './paging.js';

export function apiKeyRoutes(state: SandboxState): Route[] {
  return [
    {
      id: 'apikey.list',
      listener: 'api',
      method: 'GET',
      path: /^\/apikey$/,
      handle({ req, res, url }) {
        if (!hasAccountKey(req, state.apiKey, { bearer: true })) return sendEmpty(res, 401);
        const paging = vendorPaging(url, res);
        if (!paging) return;
        sendJson(res, 200, pageOf(state.data.apiKeys, paging.page, paging.perPage));
      },
    },
  ];
}
