/**
 * `{apiUrl}/_sandbox/*`: faults, the request log, the knobs and more pull zones over HTTP, for tests and
 * benchmarks that drive a sandbox running in another process. Not part of the platform API.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { type FaultRegistry, FaultRequestSchema } from '../faults.js';
import { type ParsedJson, sendEmpty, sendJson } from '../http.js';
import { KnobRequestSchema, type Knobs } from '../knobs.js';
import type { RequestLog } from '../request-log.js';
import { ROUTE_IDS } from '../router.js';

export interface ControlDeps {
  faults: FaultRegistry;
  requests: RequestLog;
  knobs: Knobs;
  /** More pull zones, as Sandbox.addPullZones. */
  addPullZones(count: number): number[];
}

const PullZonesRequestSchema = z.object({ count: z.number().int().min(1).max(20_000) });

const RouteQuerySchema = z.enum(ROUTE_IDS).optional();

/** Answers a control request; the path has already been checked to start with /_sandbox/. */
export function handleControl(
  deps: ControlDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  json: ParsedJson,
) {
  const key = `${req.method} ${url.pathname}`;
  const body = json.ok ? json.value : undefined;
  switch (key) {
    case 'POST /_sandbox/faults': {
      const parsed = FaultRequestSchema.safeParse(body);
      if (!parsed.success) return sendJson(res, 400, { error: z.prettifyError(parsed.error) });
      const { route, ...fault } = parsed.data;
      deps.faults.set(route, fault);
      return sendEmpty(res, 204);
    }
    case 'GET /_sandbox/faults':
      return sendJson(res, 200, deps.faults.list());
    case 'DELETE /_sandbox/faults': {
      const route = RouteQuerySchema.safeParse(url.searchParams.get('route') ?? undefined);
      if (!route.success) return sendJson(res, 400, { error: 'unknown route id' });
      deps.faults.clear(route.data);
      return sendEmpty(res, 204);
    }
    case 'GET /_sandbox/requests':
      return sendJson(res, 200, { total: deps.requests.count(), counts: deps.requests.counts() });
    case 'DELETE /_sandbox/requests':
      deps.requests.clear();
      return sendEmpty(res, 204);
    case 'POST /_sandbox/knobs': {
      const parsed = KnobRequestSchema.safeParse(body);
      if (!parsed.success) return sendJson(res, 400, { error: z.prettifyError(parsed.error) });
      if (parsed.data.logDay) deps.knobs.setLogDay(parsed.data.logDay.pullZoneId, parsed.data.logDay.entries);
      if (parsed.data.exportBytes) {
        deps.knobs.setExportBytes(parsed.data.exportBytes.shieldZoneId, parsed.data.exportBytes.bytes);
      }
      if (parsed.data.logDaysKept !== undefined) deps.knobs.setLogDaysKept(parsed.data.logDaysKept);
      if (parsed.data.vendorShapes) deps.knobs.setVendorShapes(parsed.data.vendorShapes);
      if (parsed.data.addLogEntries) deps.knobs.addLogEntries(parsed.data.addLogEntries);
      return sendEmpty(res, 204);
    }
    case 'POST /_sandbox/pullzones': {
      const parsed = PullZonesRequestSchema.safeParse(body);
      if (!parsed.success) return sendJson(res, 400, { error: z.prettifyError(parsed.error) });
      try {
        return sendJson(res, 200, { ids: deps.addPullZones(parsed.data.count) });
      } catch (error) {
        if (error instanceof RangeError) return sendJson(res, 400, { error: error.message });
        throw error;
      }
    }
    case 'DELETE /_sandbox/knobs':
      deps.knobs.clear();
      return sendEmpty(res, 204);
    default:
      return sendEmpty(res, 404);
  }
}
