/**
 * What the sandbox received, for tests that assert "no request was sent" or "exactly one write".
 * Secrets are replaced by their fingerprint before anything is recorded.
 */
import { fingerprint } from '../secrets/registry.js';
import type { RouteId } from './router.js';

export interface RecordedRequest {
  /** 1, 2, 3… in arrival order. */
  seq: number;
  /** Arrival time on the sandbox clock (Unix milliseconds). */
  time: number;
  /** `unmatched` for requests no route accepted. */
  routeId: RouteId | 'unmatched';
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-case names; AccessKey, Authorization and Cookie values are fingerprints (`…wxyz`). */
  headers: Record<string, string>;
  /** Parsed JSON body, the raw text when it is not JSON, undefined when empty. SecurityKey is fingerprinted. */
  body: unknown;
  /** Response status once sent; undefined while pending or when the connection was dropped. */
  status?: number;
}

export interface RequestLog {
  /** The most recent requests (at most 10,000), oldest first. */
  all(): readonly RecordedRequest[];
  byRoute(routeId: RouteId | 'unmatched'): RecordedRequest[];
  /** Requests received for `routeId`, or in total; counts are kept even when entries roll off. */
  count(routeId?: RouteId | 'unmatched'): number;
  counts(): Partial<Record<RouteId | 'unmatched', number>>;
  last(routeId?: RouteId | 'unmatched'): RecordedRequest | undefined;
  clear(): void;
}

export interface RequestRecorder extends RequestLog {
  record(entry: Omit<RecordedRequest, 'seq'>): RecordedRequest;
}

const SECRET_HEADERS = new Set(['accesskey', 'authorization', 'cookie', 'x-turso-encryption-key']);
const SECRET_FIELDS = new Set(['SecurityKey', 'token', 'ApiKey', 'ReadOnlyApiKey']);
const MAX_ENTRIES = 10_000;

export function redactHeaders(headers: NodeJS.Dict<string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[name] = SECRET_HEADERS.has(name) ? fingerprint(text) : text;
  }
  return out;
}

export function redactBody(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(redactBody);
  if (body === null || typeof body !== 'object') return body;
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => [
      key,
      SECRET_FIELDS.has(key) && typeof value === 'string' ? fingerprint(value) : redactBody(value),
    ]),
  );
}

export function createRequestLog(): RequestRecorder {
  let entries: RecordedRequest[] = [];
  let counts = new Map<RouteId | 'unmatched', number>();
  let seq = 0;
  return {
    record(entry) {
      const recorded = { ...entry, seq: ++seq };
      entries.push(recorded);
      if (entries.length > MAX_ENTRIES) entries = entries.slice(-MAX_ENTRIES / 2);
      counts.set(entry.routeId, (counts.get(entry.routeId) ?? 0) + 1);
      return recorded;
    },
    all: () => entries,
    byRoute: (routeId) => entries.filter((entry) => entry.routeId === routeId),
    count: (routeId) =>
      routeId === undefined
        ? [...counts.values()].reduce((sum, n) => sum + n, 0)
        : (counts.get(routeId) ?? 0),
    counts: () => Object.fromEntries(counts),
    last: (routeId) =>
      routeId === undefined ? entries.at(-1) : entries.findLast((entry) => entry.routeId === routeId),
    clear() {
      entries = [];
      counts = new Map();
    },
  };
}
