import type { PlatformHttp } from './http.js';

/** What every platform area module needs: the HTTP core, the base URLs and a clock. */
export interface PlatformContext {
  http: PlatformHttp;
  /** {base_url} of the management API. */
  apiUrl: string;
  /** {logging_url} of the origin error logs. */
  loggingUrl: string;
  /** Base of the database management API (token generate / revoke). */
  databaseApiUrl: string;
  now: () => number;
}

/** Joins a base URL and a path without doubling or dropping slashes. */
export const endpoint = (base: string, path: string): string =>
  `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
