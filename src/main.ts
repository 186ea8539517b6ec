/**
 * The one composition root: configuration → the runtime → the chosen adapter (PRODUCT §1),
 * Slack (HTTP or Socket Mode) or the console, each handed the runtime built here.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Config, ConfigError, configSecrets, loadConfig } from './config.js';
import type { ConsoleBackends } from './console/backends.js';
import { youngCollectionsOn } from './reports/young-collection.js';
import type { Runtime } from './runtime/runtime.js';
import { createShutdown, type Shutdown, startFailureLine, stopLine } from './runtime/shutdown.js';
import { SecretRegistry } from './secrets/registry.js';
import { createLogger, type Logger } from './telemetry/log.js';
import { metricsPortRoutes, type ProbeServer, serveProbes } from './telemetry/probes.js';
import { systemClock } from './time/clock.js';

// One registry for every line this process writes, the last guards' and a failed start's included.
const secrets = new SecretRegistry();

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`edgeops: configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  secrets.add(...configSecrets(config));
  const logger = createLogger({ level: config.logLevel, secrets, clock: systemClock });

  if (config.mode === 'console') {
    await runConsoleMode(config, logger);
    return;
  }

  // A signal from here on stops what has started so far: installed before anything can take a request.
  const shutdown = createShutdown({ logger, exit: (code) => process.exit(code) });
  process.on('SIGTERM', () => void shutdown.stop('SIGTERM'));
  process.on('SIGINT', () => shutdown.interrupt());
  // SIGHUP reloads the policy; before the policy is loaded there is nothing to reload yet.
  const reload: { policy?: () => void } = {};
  process.on('SIGHUP', () =>
    reload.policy ? reload.policy() : logger.info('SIGHUP before the policy was loaded: nothing to reload'),
  );
  logger.info(`edgeops starting in ${config.mode === 'http' ? 'HTTP mode' : 'Socket Mode'}`, {
    mode: config.mode,
    port: config.port,
    metricsPort: config.metricsPort,
    // Off without --expose-gc (an own NODE_OPTIONS replaces the image's): long exports then peak higher.
    youngCollections: youngCollectionsOn(),
  });
  await runSlack(config, config.mode, logger, shutdown, reload);
}

/**
 * Console mode: the runtime built against what the console works against (the configured
 * platform, or the built-in sandbox with a state database of the session's own) with the demo
 * policy when no policy file is set, logging to the session's file; the console runs the
 * session on it. Its modules are loaded here, not at the top, so that Slack mode never pays
 * for them.
 */
async function runConsoleMode(config: Config, logger: Logger): Promise<void> {
  const [
    { createRuntime },
    { prepareConsoleBackends },
    { DEFAULT_CONSOLE_LOG_FILE, openConsoleLog },
    { runConsole },
    { createDemoPolicy },
  ] = await Promise.all([
    import('./runtime/runtime.js'),
    import('./console/backends.js'),
    import('./console/log-file.js'),
    import('./console/run.js'),
    import('./policy/defaults.js'),
  ]);
  // stdout carries only the conversation: the session's log lines go to a file.
  const log = openConsoleLog({
    clock: systemClock,
    path: DEFAULT_CONSOLE_LOG_FILE,
    level: config.logLevel,
    secrets,
  });
  log.logger.info('edgeops starting in console mode', { mode: 'console' });
  let backends: ConsoleBackends | undefined;
  // Whichever way the process ends (a second Ctrl-C, a closed output pipe), its temporary folder goes.
  process.once('exit', () => backends?.removeTemporaryFolder());
  const stop = new AbortController();

  async function session(): Promise<void> {
    let runtime: Runtime;
    try {
      backends = await prepareConsoleBackends({ config, secrets, logger: log.logger, now: systemClock });
      runtime = await createRuntime({
        config: backends.config,
        platform: backends.platform,
        secrets,
        logger: log.logger,
        fallbackPolicy: createDemoPolicy(),
        now: systemClock,
      });
    } catch (error) {
      logger.error('the console could not start', { error });
      await backends?.close().catch(() => undefined);
      log.close();
      throw error;
    }
    const probes = await serveConsoleProbes(config.metricsPort, runtime, log.logger);
    try {
      await runConsole({
        runtime,
        backends,
        log,
        secrets,
        policyFile: config.policyPath !== undefined,
        stop: stop.signal,
      });
    } finally {
      await probes?.close();
      await runtime
        .close()
        .catch((error: unknown) => log.logger.error('closing the runtime failed', { error }));
      await backends
        .close()
        .catch((error: unknown) => log.logger.error('closing the sandbox failed', { error }));
      log.logger.info('console session ended');
      log.close();
    }
  }

  const ended = session();
  // SIGTERM, or Ctrl-C when no TTY reads it: the session ends as :quit ends it, its jobs cancelled.
  const shutdown = createShutdown({ logger: log.logger, exit: (code) => process.exit(code) });
  shutdown.onStop('the console session', async () => {
    stop.abort();
    await ended.catch(() => undefined);
  });
  process.on('SIGTERM', () => void shutdown.stop('SIGTERM'));
  process.on('SIGINT', () => shutdown.interrupt());
  await ended;
}

/**
 * The console's /healthz, /readyz and /metrics on METRICS_PORT, as in every mode. A port that
 * another session holds refuses no session: it goes on without them, and its log says why.
 */
async function serveConsoleProbes(
  port: number,
  runtime: Runtime,
  logger: Logger,
): Promise<ProbeServer | undefined> {
  const stateReachable = () => runtime.services.state.ping().catch(() => false);
  const routes = metricsPortRoutes({
    metrics: runtime.metrics,
    notReady: async () => ((await stateReachable()) ? [] : ['state database unreachable']),
  });
  return serveProbes({ routes, port, variable: 'METRICS_PORT', logger }).catch((error: unknown) => {
    logger.warn('the console goes on without /healthz, /readyz and /metrics', { error });
    return undefined;
  });
}

/**
 * HTTP or Socket Mode. Its modules (Bolt among them) are loaded here, not at the top, so that the
 * console never pays for them.
 */
async function runSlack(
  config: Config,
  mode: 'http' | 'socket',
  logger: Logger,
  shutdown: Shutdown,
  reload: { policy?: () => void },
): Promise<void> {
  // HTTP mode's receiving thread loads Bolt's receiver while this thread loads the app below.
  const httpThread =
    mode === 'http' ? (await import('./slack/receivers/ack-thread-start.js')).prepareAckThread() : undefined;
  const [
    { createRuntime },
    { startSlackApp },
    { BotTokenRejectedError },
    { createSlackGroupFetcher },
    { createSlackMessenger },
  ] = await Promise.all([
    import('./runtime/runtime.js'),
    import('./slack/app.js'),
    import('./slack/bot-token.js'),
    import('./slack/groups.js'),
    import('./slack/surface.js'),
  ]);
  // A token Slack rejects is one line naming SLACK_BOT_TOKEN, as a configuration error is.
  const stopOnSlackError = (error: unknown): never =>
    error instanceof BotTokenRejectedError ? stopWith(error.message) : stopStarting(error);
  const fetchGroupMembers = createSlackGroupFetcher({
    token: config.slack.botToken!,
    apiUrl: config.slack.apiUrl,
  });
  const runtime = await createRuntime({
    config,
    platform: config.platform!,
    secrets,
    logger,
    fetchGroupMembers,
    now: systemClock,
  });
  // The background start's first sweep, if it runs, ends before the stores close under it, for at
  // most 5 s: its Slack calls are bounded by Slack's answers, not by the stop.
  let background: Promise<void> | undefined;
  shutdown.onStop('the stores', async () => {
    if (background) await Promise.race([background.catch(() => undefined), sleep(5_000)]);
    await runtime.close();
  });
  reload.policy = () => runtime.policies.reload();
  if (shutdown.stopping) return;
  const starting = startSlackApp({
    mode,
    botToken: config.slack.botToken!,
    signingSecret: config.slack.signingSecret,
    appToken: config.slack.appToken,
    apiUrl: config.slack.apiUrl,
    port: config.port,
    metricsPort: config.metricsPort,
    engine: runtime.engine,
    services: runtime.services,
    metrics: runtime.metrics,
    logger,
    onFatal: stopOnSlackError,
    httpThread,
  }).catch(stopOnSlackError);
  // Stopped before the stores: what its receiver acknowledged runs to its end first. A start
  // still under way 5 s after the signal (Socket Mode retrying its connection) has taken nothing.
  shutdown.onStop('the Slack receiver', async () => {
    const app = await Promise.race([starting, sleep(5_000).then(() => undefined)]);
    if (app) await app.stop();
    else logger.warn('the Slack connection was still starting; it is abandoned');
  });
  const slack = await starting;
  if (shutdown.stopping) return;
  background = runtime.startBackground(createSlackMessenger({ client: slack.client, logger, secrets }));
  // A failure while a signal stops the stores under it is the stop's, not the start's.
  await background.catch((error: unknown) => {
    if (!shutdown.stopping) throw error;
    logger.warn('the first sweep failed while the bot was stopping', { error });
  });
  if (!slack.isReady())
    logger.warn('edgeops is not ready: /readyz answers 503 until Slack accepts the bot token', {
      port: slack.port,
      metricsPort: slack.metricsPort,
    });
  // A failure of `ready` is onFatal's to report.
  slack.ready.then(
    () => logger.info('edgeops is ready', { port: slack.port, metricsPort: slack.metricsPort }),
    () => undefined,
  );
}

const fallbackLogger = createLogger({ level: 'error', secrets, clock: systemClock });

/** The reader of stdout or stderr went away (`npm start | head`): EPIPE on every later write. */
const isClosedPipe = (error: unknown): boolean =>
  error instanceof Error && (error as NodeJS.ErrnoException).code === 'EPIPE';

// Leave at once and write nothing more: logging the EPIPE would only meet the closed pipe again.
const leaveQuietly = () => process.exit(0);
process.stdout.on('error', (error) => {
  if (isClosedPipe(error)) leaveQuietly();
  else fallbackLogger.error('writing to stdout failed', { error });
});
// Nothing can be said about a failing stderr: it is where failures are said.
process.stderr.on('error', (error) => {
  if (isClosedPipe(error)) leaveQuietly();
});

// A last guard: nothing crashes the process; the failure is logged (redacted) instead.
process.on('unhandledRejection', (reason) =>
  isClosedPipe(reason) ? leaveQuietly() : fallbackLogger.error('unhandled rejection', { error: reason }),
);
process.on('uncaughtException', (error) =>
  isClosedPipe(error) ? leaveQuietly() : fallbackLogger.error('uncaught exception', { error }),
);

/** Ends a start that cannot succeed with one line on stderr that says what to fix. */
function stopWith(line: string): never {
  process.stderr.write(stopLine(line, secrets));
  process.exit(1);
}

function stopStarting(error: unknown): never {
  process.stderr.write(startFailureLine(error, secrets));
  process.exit(1);
}

main().catch((error: unknown) => stopStarting(error));
