/**
 * What operators and their tools ask the bot (PRODUCT §1): /healthz, /readyz and /metrics on
 * METRICS_PORT, in every mode. The public port, where Slack's events arrive, answers /healthz alone,
 * so that readiness reasons and metrics are never served to whoever can reach the events URL.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './log.js';
import type { Metrics } from './metrics.js';

export interface ProbeRoute {
  path: string;
  methods: string[];
  answer(): Promise<{ status: number; body: string; contentType: string }>;
}

const TEXT = 'text/plain; charset=utf-8';

/** Process alive: answered on both ports, so a container health check may probe either. */
export const HEALTH_ROUTE: ProbeRoute = {
  path: '/healthz',
  methods: ['GET'],
  answer: async () => ({ status: 200, body: 'ok\n', contentType: TEXT }),
};

/** METRICS_PORT's routes; `notReady` names what keeps the bot from serving, nothing once it is ready. */
export function metricsPortRoutes(options: {
  metrics: Metrics;
  notReady: () => Promise<string[]>;
}): ProbeRoute[] {
  return [
    HEALTH_ROUTE,
    {
      path: '/readyz',
      methods: ['GET'],
      answer: async () => {
        const reasons = await options.notReady();
        return reasons.length === 0
          ? { status: 200, body: 'ready\n', contentType: TEXT }
          : { status: 503, body: `${reasons.join('\n')}\n`, contentType: TEXT };
      },
    },
    {
      path: '/metrics',
      methods: ['GET'],
      answer: async () => ({
        status: 200,
        body: await options.metrics.registry.metrics(),
        contentType: options.metrics.registry.contentType,
      }),
    },
  ];
}

export interface ProbeServer {
  /** The port listened on: the one asked for, or the one the system picked for 0. */
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `routes` on `port` (0 picks a free one), 404 for anything else, and logs the port once it
 * listens. A port it cannot listen on rejects with one line naming `variable`.
 */
export async function serveProbes(options: {
  routes: ProbeRoute[];
  port: number;
  variable: 'PORT' | 'METRICS_PORT';
  logger: Logger;
}): Promise<ProbeServer> {
  const { routes, logger } = options;
  const server = createServer((req, res) => {
    // A request target no URL parser reads (`GET http://[`) would throw out of the server and
    // leave its connection open: one line from anyone who reaches the port.
    const path = URL.canParse(req.url ?? '/', 'http://localhost')
      ? new URL(req.url ?? '/', 'http://localhost').pathname
      : undefined;
    if (path === undefined) {
      res.writeHead(400).end();
      return;
    }
    const route = routes.find((r) => r.path === path && r.methods.includes(req.method ?? 'GET'));
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    route
      .answer()
      .then(({ status, body, contentType }) => {
        res.writeHead(status, { 'content-type': contentType });
        res.end(body);
      })
      .catch((error: unknown) => {
        logger.error(`the ${path} route failed`, { error });
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  });
  await new Promise<void>((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `${options.variable}: port ${options.port} is in use; set ${options.variable} to a free port`
            : `${options.variable}: cannot listen on port ${options.port}: ${error.message}`,
        ),
      );
    server.once('error', refused);
    server.listen(options.port, () => {
      server.off('error', refused);
      resolve();
    });
  });
  // Once listening, a failing server is logged: it never ends the process.
  server.on('error', (error) => logger.error(`the ${options.variable} server failed`, { error }));
  const port = (server.address() as AddressInfo).port;
  logger.info(`serving ${routes.map((r) => r.path).join(', ')} on ${options.variable}`, {
    [options.variable === 'PORT' ? 'port' : 'metricsPort']: port,
  });
  return {
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
