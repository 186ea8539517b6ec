/**
 * One HTTP request to the sandbox, on either listener: the control endpoint, or a route, recorded
 * in the request log and answered by its handler unless a fault set for it answers first.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../time/clock.js';
import { applyFault } from './faults.js';
import { BodyTooLargeError, parseJson, readBody, sendEmpty } from './http.js';
import { type RequestRecorder, redactBody, redactHeaders } from './request-log.js';
import { type Listener, matchRoute, type Route, type RouteId } from './router.js';
import { type ControlDeps, handleControl } from './routes/control.js';

const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

export interface ServeDeps extends ControlDeps {
  routes: Route[];
  requests: RequestRecorder;
  now: Clock;
  /** Handler failures, answered 500. */
  onError(error: unknown, routeId: RouteId): void;
}

export const serve =
  (deps: ServeDeps, listener: Listener) => async (req: IncomingMessage, res: ServerResponse) => {
    const { routes, faults, requests, now, onError } = deps;
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const method = req.method ?? 'GET';
    const match = matchRoute(routes, listener, method, url.pathname);
    const routeId = match.kind === 'found' ? match.route.id : 'unmatched';
    try {
      const body =
        method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : await readBody(req, BODY_LIMIT_BYTES);
      const json = parseJson(body);
      if (listener === 'api' && url.pathname.startsWith('/_sandbox/')) {
        return handleControl(deps, req, res, url, json);
      }
      const recorded = requests.record({
        time: now(),
        routeId,
        method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: redactHeaders(req.headers),
        body: json.ok ? redactBody(json.value) : json.empty ? undefined : body.toString('utf8'),
      });
      res.on('finish', () => {
        recorded.status = res.statusCode;
      });
      if (match.kind !== 'found') return sendEmpty(res, match.kind === 'wrong-method' ? 405 : 404);
      const fault = faults.take(match.route.id);
      if (fault && (await applyFault(fault, req, res))) return;
      await match.route.handle({ req, res, url, params: match.params, body, json });
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        if (!res.headersSent) sendEmpty(res, 413);
        return;
      }
      // The client went away mid-answer (a cancel, a dropped or cut connection): nothing failed here.
      if (res.destroyed) return;
      if (routeId !== 'unmatched') onError(error, routeId);
      if (!res.headersSent) sendEmpty(res, 500);
      else res.destroy();
    }
  };
