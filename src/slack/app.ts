/**
 * The Bolt app in HTTP mode (POST /slack/events) or Socket Mode, with /healthz, /readyz and
 * /metrics beside it. Every listener acknowledges first and hands the work to the engine.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { App, HTTPReceiver, LogLevel, type Logger as SlackLogger, SocketModeReceiver } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { Engine } from '../operations/engine.js';
import type { Services } from '../operations/types.js';
import { createDeliveries } from './deliveries.js';
import { registerActions } from './listeners/actions.js';
import { registerCommands } from './listeners/commands.js';
import { registerViews } from './listeners/views.js';

export interface SlackAppOptions {
  mode: 'http' | 'socket';
  botToken: string;
  signingSecret?: string;
  appToken?: string;
  apiUrl: string;
  /** HTTP port; 0 picks a free one (tests). */
  port: number;
  engine: Engine;
  services: Services;
  metrics: Metrics;
  logger: Logger;
  /** Web API retry policy; the SDK default (up to 10 tries over minutes) suits production. */
  clientRetries?: { retries: number; minTimeout?: number; maxTimeout?: number };
}

export interface RunningSlackApp {
  app: App;
  client: WebClient;
  /** The port the HTTP server listens on (events in HTTP mode, health and metrics in both). */
  port: number;
  stop(): Promise<void>;
}

/**
 * Bolt's own logger goes through ours (so secrets are redacted) and never below INFO: the
 * SDK's DEBUG output prints whole request bodies, DMs with new keys included.
 */
function slackLogger(logger: Logger): SlackLogger {
  const slack = logger.child({ component: 'slack-sdk' });
  const text = (args: unknown[]) =>
    args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
  return {
    debug: () => undefined,
    info: (...args) => slack.info(text(args)),
    warn: (...args) => slack.warn(text(args)),
    error: (...args) => slack.error(text(args)),
    setLevel: () => undefined,
    getLevel: () => LogLevel.INFO,
    setName: () => undefined,
  };
}

function healthRoutes(services: Services, metrics: Metrics) {
  const send = (res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8') => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
  return [
    {
      path: '/healthz',
      method: ['GET'],
      handler: (_req: IncomingMessage, res: ServerResponse) => send(res, 200, 'ok\n'),
    },
    {
      path: '/readyz',
      method: ['GET'],
      handler: async (_req: IncomingMessage, res: ServerResponse) => {
        const ready = await services.state.ping().catch(() => false);
        send(res, ready ? 200 : 503, ready ? 'ready\n' : 'state database unreachable\n');
      },
    },
    {
      path: '/metrics',
      method: ['GET'],
      handler: async (_req: IncomingMessage, res: ServerResponse) =>
        send(res, 200, await metrics.registry.metrics(), metrics.registry.contentType),
    },
  ];
}

export async function startSlackApp(options: SlackAppOptions): Promise<RunningSlackApp> {
  const logger = slackLogger(options.logger);
  const customRoutes = healthRoutes(options.services, options.metrics);
  const clientOptions = {
    slackApiUrl: options.apiUrl,
    logger,
    logLevel: LogLevel.INFO,
    ...(options.clientRetries ? { retryConfig: options.clientRetries } : {}),
  };
  let receiver: HTTPReceiver | SocketModeReceiver;
  if (options.mode === 'socket') {
    if (!options.appToken) throw new Error('Socket Mode needs SLACK_APP_TOKEN');
    receiver = new SocketModeReceiver({
      appToken: options.appToken,
      logger,
      customRoutes,
      installerOptions: { clientOptions, port: options.port },
    });
  } else {
    if (!options.signingSecret) throw new Error('HTTP mode needs SLACK_SIGNING_SECRET');
    receiver = new HTTPReceiver({
      signingSecret: options.signingSecret,
      endpoints: '/slack/events',
      port: options.port,
      customRoutes,
      logger,
      processBeforeResponse: false,
      // Refuse a request that hangs before Bolt has handled it, so Slack retries elsewhere.
      unhandledRequestTimeoutMillis: 3001,
    });
  }
  const app = new App({ receiver, token: options.botToken, logger, clientOptions });
  // Slack redelivers what it thinks was lost, for up to a few minutes; ten covers it.
  const deliveries = createDeliveries({
    state: options.services.state,
    logger: options.logger,
    ttlMs: 10 * 60_000,
    now: options.services.now,
  });
  registerCommands(app, options, deliveries);
  registerActions(app, options, deliveries);
  registerViews(app, options, deliveries);
  app.error(async (error) => {
    options.logger.error('unhandled Slack listener error', { error });
  });

  const started = (await app.start(options.port)) as unknown;
  let port = options.port;
  const socketServer = (receiver as unknown as { httpServer?: Server }).httpServer;
  const server = (options.mode === 'http' ? started : socketServer) as Server | undefined;
  if (server && !server.listening) await new Promise((resolve) => server.once('listening', resolve));
  const address = server?.address?.();
  if (address && typeof address === 'object') port = address.port;
  return {
    app,
    client: app.client,
    port,
    stop: async () => {
      await app.stop();
      await deliveries.flush();
    },
  };
}
