/**
 * The sandbox's route table. Every route has a stable id: faults, the request log and tests refer
 * to routes by it, never by path.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ParsedJson } from './http.js';

export const ROUTE_IDS = [
  'videolibrary.create',
  'apikey.list',
  'pullzone.resetSecurityKey',
  'pullzone.list',
  'shieldzone.list',
  'dnszone.list',
  'shield.botDetection',
  'shield.botDetection.get',
  'shield.wafEnums',
  'shield.export',
  'logs.origin',
  'database.get',
  'database.tokens.generate',
  'database.tokens.revoke',
  'database.pipeline',
  'database.version',
  'pullzone.get',
  'statistics',
  'purge.url',
  'pullzone.purgeCache',
] as const;
export type RouteId = (typeof ROUTE_IDS)[number];

/** The management API (with logging and database management under it) or the database's own listener. */
export type Listener = 'api' | 'database';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Readonly<Record<string, string>>;
  body: Buffer;
  json: ParsedJson;
}

export interface Route {
  id: RouteId;
  listener: Listener;
  method: string;
  /** Anchored pattern with named groups for the path parameters. */
  path: RegExp;
  handle(context: RouteContext): Promise<void> | void;
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'wrong-method' }
  | { kind: 'none' };

export function matchRoute(
  routes: readonly Route[],
  listener: Listener,
  method: string,
  path: string,
): RouteMatch {
  let pathMatched = false;
  for (const route of routes) {
    if (route.listener !== listener) continue;
    const match = route.path.exec(path);
    if (!match) continue;
    if (route.method !== method) {
      pathMatched = true;
      continue;
    }
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(match.groups ?? {})) params[name] = decodeURIComponent(value);
    return { kind: 'found', route, params };
  }
  return pathMatched ? { kind: 'wrong-method' } : { kind: 'none' };
}
