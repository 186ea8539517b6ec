/**
 * SERVICE_DATABASE_URL as the HTTP endpoint it names. libSQL clients accept `libsql://host`
 * (HTTPS, or HTTP with `?tls=0`), `https://`, `http://`, `wss://` and `ws://`, and one client
 * takes the token as an `authToken` query parameter, which must never travel further as part of
 * a URL that could be logged.
 */
import { EdgeopsError } from '../errors.js';

export interface DatabaseEndpoint {
  /** `http(s)://host[:port][/path]` without query or trailing slash; `/v2/pipeline` goes after it. */
  httpUrl: string;
  /** The token found in the URL's `authToken` parameter, if any. */
  authTokenFromUrl?: string;
  /** The first host label (`libsql://<database_id>.<host>`), e.g. for token management. */
  databaseId: string;
}

/** The URL is not one the customer database can be reached at; the message names no secret. */
export class DatabaseUrlError extends EdgeopsError {
  override name = 'DatabaseUrlError';
  readonly kind = 'database-url';
  readonly outcome = 'error';
  readonly unexpected = false;

  get userMessage(): string {
    return this.message;
  }
}

const SCHEMES: Record<string, { secure: string; plain: string }> = {
  'libsql:': { secure: 'https:', plain: 'http:' },
  'https:': { secure: 'https:', plain: 'https:' },
  'http:': { secure: 'http:', plain: 'http:' },
  'wss:': { secure: 'https:', plain: 'https:' },
  'ws:': { secure: 'http:', plain: 'http:' },
};

/** Parses SERVICE_DATABASE_URL; file: and :memory: databases have no HTTP endpoint to ask. */
export function parseDatabaseUrl(raw: string): DatabaseEndpoint {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DatabaseUrlError('SERVICE_DATABASE_URL is not a valid URL');
  }
  const scheme = SCHEMES[url.protocol];
  if (!scheme)
    throw new DatabaseUrlError(
      'SERVICE_DATABASE_URL must be a remote database (libsql://, https:// or http://); local files are not supported by /edge db',
    );
  const tls = url.searchParams.get('tls');
  if (url.protocol === 'libsql:' && tls === '0' && url.port === '')
    throw new DatabaseUrlError('SERVICE_DATABASE_URL with ?tls=0 must name a port');
  const authTokenFromUrl = url.searchParams.get('authToken') ?? undefined;
  const protocol = tls === '0' ? scheme.plain : scheme.secure;
  const path = url.pathname.replace(/\/+$/, '');
  const httpUrl = `${protocol}//${url.host}${path}`;
  const databaseId = url.hostname.split('.')[0] ?? url.hostname;
  return { httpUrl, authTokenFromUrl: authTokenFromUrl || undefined, databaseId };
}
