/**
 * The Bolt app in HTTP mode (POST /slack/events) or Socket Mode, with /healthz on PORT and
 * /healthz, /readyz and /metrics on METRICS_PORT (telemetry/probes.ts). Listeners acknowledge
 * before their work (a form once its fields are checked, a picker with its options) and hand the
 * work to the engine. `/edge` is acknowledged
 * earlier still: in HTTP mode by the thread that receives Slack's requests, before the app hears
 * of it (threaded-receiver.ts); over Socket Mode as the receiver hands it over (ack-on-arrival.ts).
 * Slack must accept the bot token (auth.test) before the app is ready; see bot-token.ts.
 */
import { App, LogLevel, type Logger as SlackLogger, SocketModeReceiver } from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import type { Services } from '../operations/engine/types.js';
import type { Logger } from '../telemetry/log.js';
import { HEALTH_ROUTE, metricsPortRoutes, type ProbeServer, serveProbes } from '../telemetry/probes.js';
import { type BotTokenWatch, type TokenCheckBackoff, watchBotToken } from './bot-token.js';
import { createDeliveries } from './deliveries.js';
import { registerActions } from './listeners/actions.js';
import { EDGE_COMMAND, registerCommands } from './listeners/commands.js';
import type { ListenerDeps } from './listeners/deps.js';
import { registerHome } from './listeners/home.js';
import { registerMentions } from './listeners/mentions.js';
import { registerOptions } from './listeners/options.js';
import { registerShortcuts } from './listeners/shortcuts.js';
import { registerViews } from './listeners/views.js';
import { membersOnly } from './members-only.js';
import { AckOnArrivalApp } from './receivers/ack-on-arrival.js';
import type { PreparedAckThread } from './receivers/ack-thread-start.js';
import { ThreadedHttpReceiver } from './receivers/threaded-receiver.js';
import { createTableMemory } from './tables.js';

export interface SlackAppOptions extends ListenerDeps {
  mode: 'http' | 'socket';
  botToken: string;
  signingSecret?: string;
  appToken?: string;
  apiUrl: string;
  /** The public port (events in HTTP mode, /healthz in both); 0 picks a free one (tests). */
  port: number;
  /** The port of /healthz, /readyz and /metrics; 0 picks a free one (tests). */
  metricsPort: number;
  /** Web API retry policy; the SDK default (up to 10 tries over minutes) suits production. */
  clientRetries?: { retries: number; minTimeout?: number; maxTimeout?: number };
  /** The pause between bot token checks while Slack cannot be reached (tests shorten it). */
  tokenCheckBackoff?: TokenCheckBackoff;
  /**
   * What happens when the app cannot go on after start-up: Slack rejected the token on a later
   * try, Socket Mode could not connect once it did, or HTTP mode's receiving thread ended.
   * Logged by default; main exits.
   */
  onFatal?: (error: Error) => void;
  /** HTTP mode: the receiving thread, started ahead so that it loads while the app does (main.ts). */
  httpThread?: PreparedAckThread;
}

export interface RunningSlackApp {
  app: App;
  client: WebClient;
  /** The public port listened on: events in HTTP mode, /healthz in both. */
  port: number;
  /** The port /healthz, /readyz and /metrics are served on. */
  metricsPort: number;
  /**
   * Resolves once Slack has accepted the bot token and, in Socket Mode, the socket is open; at
   * once when that happened during start-up. Rejects as onFatal is told.
   */
  ready: Promise<void>;
  /** Whether `ready` has resolved. */
  isReady(): boolean;
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

/** Why /readyz answers 503: the state database, and Slack's acceptance of the bot token. */
async function notReady(services: Services, token: BotTokenWatch): Promise<string[]> {
  const reasons: string[] = [];
  if (!(await services.state.ping().catch(() => false))) reasons.push('state database unreachable');
  const slack = token.notReadyReason();
  if (slack) reasons.push(slack);
  return reasons;
}

/** Socket Mode's receiver, or HTTP mode's, which answers /healthz on PORT beside /slack/events. */
function createReceiver(
  options: SlackAppOptions,
  logger: SlackLogger,
  clientOptions: WebClientOptions,
  onFatal: (error: Error) => void,
): ThreadedHttpReceiver | SocketModeReceiver {
  if (options.mode === 'socket')
    return new SocketModeReceiver({
      appToken: options.appToken!,
      logger,
      installerOptions: { clientOptions },
    });
  return new ThreadedHttpReceiver({
    signingSecret: options.signingSecret!,
    endpoint: '/slack/events',
    routes: [HEALTH_ROUTE],
    logger,
    commands: [EDGE_COMMAND],
    observe: options.metrics.ackObserved,
    // Refuse a request that hangs before Bolt has handled it, so Slack retries elsewhere.
    unhandledRequestTimeoutMillis: 3001,
    onEnded: (error) => onFatal(error),
    thread: options.httpThread,
  });
}

export async function startSlackApp(options: SlackAppOptions): Promise<RunningSlackApp> {
  const logger = slackLogger(options.logger);
  const clientOptions = {
    slackApiUrl: options.apiUrl,
    logger,
    logLevel: LogLevel.INFO,
    ...(options.clientRetries ? { retryConfig: options.clientRetries } : {}),
  };
  if (options.mode === 'socket' && !options.appToken) throw new Error('Socket Mode needs SLACK_APP_TOKEN');
  if (options.mode === 'http' && !options.signingSecret)
    throw new Error('HTTP mode needs SLACK_SIGNING_SECRET');
  // Before anything listens: a token Slack rejects stops the start here, with one line.
  const token = await watchBotToken({
    botToken: options.botToken,
    clientOptions: { slackApiUrl: options.apiUrl },
    logger: options.logger,
    modeName: options.mode === 'socket' ? 'Socket Mode' : 'HTTP mode',
    backoff: options.tokenCheckBackoff,
  });
  const onFatal =
    options.onFatal ?? ((error: Error) => options.logger.error('the Slack app cannot go on', { error }));
  const receiver = createReceiver(options, logger, clientOptions, onFatal);
  // The token check above is Bolt's auth.test: Bolt's own would fail for good if Slack were
  // down at that moment, and every request after it.
  const authorize = async () => {
    const identity = token.identity();
    return { botToken: options.botToken, botId: identity?.botId, botUserId: identity?.botUserId };
  };
  const appOptions = {
    receiver,
    authorize,
    logger,
    clientOptions,
    // No listener keeps conversation state; Bolt's default store rejects with a new Error per event.
    convoStore: false as const,
  };
  // HTTP mode's receiver acknowledges `/edge` on its own thread; over Socket Mode the app does.
  const app =
    receiver instanceof ThreadedHttpReceiver
      ? new App(appOptions)
      : new AckOnArrivalApp({
          ...appOptions,
          ackOnArrival: { commands: [EDGE_COMMAND], observe: options.metrics.ackObserved },
        });
  // Slack redelivers what it thinks was lost, for up to a few minutes; ten covers it.
  const deliveries = createDeliveries({
    state: options.services.state,
    logger: options.logger,
    ttlMs: 10 * 60_000,
    now: options.services.now,
  });
  // Before any listener: a request from outside the workspace the app is installed in runs nothing.
  app.use(
    membersOnly({
      home: () => token.identity(),
      audit: options.services.audit,
      secrets: options.services.secrets,
      logger: options.logger,
    }),
  );
  // One memory for the app: a workspace that refused a table gets code blocks for an hour.
  const listeners = {
    ...options,
    tables: options.tables ?? createTableMemory({ now: options.services.now, logger: options.logger }),
  };
  registerCommands(app, listeners, deliveries);
  registerActions(app, listeners, deliveries);
  registerViews(app, listeners, deliveries);
  registerMentions(app, listeners, deliveries);
  registerShortcuts(app, listeners);
  registerOptions(app, options);
  // Outside a request (approval sweeps, Home refreshes) with the bot token; listeners get Bolt's per-request one.
  const client = new WebClient(options.botToken, clientOptions);
  registerHome(app, options, client);
  app.error(async (error) => {
    options.logger.error('unhandled Slack listener error', { error });
  });

  let metricsServer: ProbeServer | undefined;
  let healthServer: ProbeServer | undefined;
  let port: number;
  let socketOpen = false;
  try {
    // Before the public port: a metrics port in use stops the start before Slack's requests arrive.
    metricsServer = await serveProbes({
      routes: metricsPortRoutes({
        metrics: options.metrics,
        notReady: () => notReady(options.services, token),
      }),
      port: options.metricsPort,
      variable: 'METRICS_PORT',
      logger: options.logger,
    });
    if (receiver instanceof ThreadedHttpReceiver) {
      port = (await receiver.start(options.port)).port;
    } else {
      // Socket Mode's public port is ours: it answers while the socket waits for Slack to take the token.
      healthServer = await serveProbes({
        routes: [HEALTH_ROUTE],
        port: options.port,
        variable: 'PORT',
        logger: options.logger,
      });
      port = healthServer.port;
      // Connected during start-up when Slack already answered; otherwise once it does.
      if (token.identity()) {
        await app.start();
        socketOpen = true;
      }
    }
  } catch (error) {
    token.stop();
    await healthServer?.close();
    await metricsServer?.close();
    throw error;
  }
  let ready = false;
  const readiness = token.accepted.then(async () => {
    if (options.mode === 'socket' && !socketOpen) await app.start();
    ready = true;
  });
  readiness.catch((error: unknown) => onFatal(error instanceof Error ? error : new Error(String(error))));
  if (token.identity()) await readiness;

  return {
    app,
    client,
    port,
    metricsPort: metricsServer.port,
    ready: readiness,
    isReady: () => ready,
    stop: async () => {
      token.stop();
      await app.stop();
      await healthServer?.close();
      await deliveries.flush();
      // Last: /metrics and /readyz answer while what was acknowledged runs to its end.
      await metricsServer?.close();
    },
  };
}
