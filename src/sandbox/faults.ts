/**
 * Injected failures per route: an error status, a delay, a dropped connection, a truncated or
 * malformed body. A fault is applied before the route handles the request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { ROUTE_IDS, type RouteId } from './router.js';

export const FaultSchema = z.strictObject({
  /** Answer with this status instead of handling the request. */
  status: z.number().int().min(100).max(599).optional(),
  /** Body of that answer: a string as is, anything else as JSON; empty when absent. */
  body: z.unknown().optional(),
  /** Wait this long before anything else. */
  delayMs: z.number().int().nonnegative().max(600_000).optional(),
  /** Destroy the socket without answering. */
  drop: z.literal(true).optional(),
  /** Send `Retry-After: n`; alone it implies status 429. */
  retryAfter: z.number().int().nonnegative().optional(),
  /** Send the headers and part of the body, then cut the connection. */
  truncate: z.literal(true).optional(),
  /** Answer with a JSON content type and a body that is not JSON; status 200 unless given. */
  malformedJson: z.literal(true).optional(),
  /** Apply to the next n requests only; unlimited when absent. */
  times: z.number().int().positive().optional(),
  /** Let this many requests of the route through untouched first (the second day of a window, say). */
  after: z.number().int().positive().optional(),
});
export type Fault = z.infer<typeof FaultSchema>;

export const FaultRequestSchema = FaultSchema.extend({ route: z.enum(ROUTE_IDS) });

export interface Faults {
  set(route: RouteId, fault: Fault): void;
  clear(route?: RouteId): void;
  /** The faults waiting, with the remaining count of each. */
  list(): Partial<Record<RouteId, Fault>>;
}

export interface FaultRegistry extends Faults {
  /** Takes the fault for one request of `route`, counting it against `times`. */
  take(route: RouteId): Fault | undefined;
}

export function createFaults(): FaultRegistry {
  const faults = new Map<RouteId, Fault>();
  return {
    set(route, fault) {
      faults.set(route, FaultSchema.parse(fault));
    },
    clear(route) {
      if (route) faults.delete(route);
      else faults.clear();
    },
    list() {
      return Object.fromEntries(faults);
    },
    take(route) {
      const fault = faults.get(route);
      if (!fault) return undefined;
      if (fault.after !== undefined) {
        const { after, ...rest } = fault;
        faults.set(route, after > 1 ? { ...rest, after: after - 1 } : rest);
        return undefined;
      }
      if (fault.times !== undefined) {
        if (fault.times <= 1) faults.delete(route);
        else faults.set(route, { ...fault, times: fault.times - 1 });
      }
      return fault;
    },
  };
}

const MALFORMED_BODY = '{"Items":[{"Id":1,"Key":"unterminated';

/** Makes the response send half of its first body chunk and then cuts the connection. */
function truncateResponse(req: IncomingMessage, res: ServerResponse): void {
  const write = res.write.bind(res) as (chunk: Uint8Array, callback: () => void) => boolean;
  const end = res.end.bind(res) as () => ServerResponse;
  let cutDone = false;
  // Destroying the response too stops a piped body generator instead of letting it run on.
  const destroy = () => {
    req.socket.destroy();
    res.destroy();
  };
  const cut = (chunk: unknown): boolean => {
    if (cutDone) return false;
    cutDone = true;
    const bytes =
      typeof chunk === 'string' ? Buffer.from(chunk) : chunk instanceof Uint8Array ? chunk : undefined;
    if (!bytes || bytes.length === 0) {
      // Nothing to cut: the answer goes out whole and the connection closes after it.
      res.once('finish', destroy);
      end();
      return false;
    }
    write(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))), destroy);
    return false;
  };
  res.write = ((chunk: unknown) => cut(chunk)) as typeof res.write;
  res.end = ((chunk?: unknown) => {
    cut(typeof chunk === 'function' ? undefined : chunk);
    return res;
  }) as typeof res.end;
}

/**
 * Applies `fault` to the exchange. Returns true when the fault answered (or dropped) the request,
 * false when normal handling should go on (a pure delay, or a truncation of the normal answer).
 */
export async function applyFault(fault: Fault, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  if (fault.delayMs) await sleep(fault.delayMs);
  if (fault.drop) {
    req.socket.destroy();
    return true;
  }
  const status =
    fault.status ?? (fault.retryAfter !== undefined ? 429 : fault.malformedJson ? 200 : undefined);
  if (status === undefined) {
    if (fault.truncate) truncateResponse(req, res);
    return false;
  }
  const headers: Record<string, string | number> = {};
  if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
  let body = '';
  if (fault.malformedJson) {
    headers['content-type'] = 'application/json; charset=utf-8';
    body = MALFORMED_BODY;
  } else if (typeof fault.body === 'string') {
    headers['content-type'] = 'text/plain; charset=utf-8';
    body = fault.body;
  } else if (fault.body !== undefined) {
    headers['content-type'] = 'application/json; charset=utf-8';
    body = JSON.stringify(fault.body);
  }
  headers['content-length'] = Buffer.byteLength(body);
  if (fault.truncate) truncateResponse(req, res);
  res.writeHead(status, headers);
  res.end(body);
  return true;
}
