/**
 * The bot as a process of its own, as src/main.ts starts it in HTTP mode, but on the test's
 * clock: the instant is read from the file TEST_CLOCK_FILE names (the test moves it), and the
 * watch poller wakes every TEST_WATCH_TICK_MS. For replica tests whose behaviour depends on time.
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { startSlackApp } from '../../src/slack/app.js';
import { createSlackMessenger } from '../../src/slack/surface.js';
import { createLogger } from '../../src/telemetry/log.js';

const clockFile = process.env.TEST_CLOCK_FILE ?? '';
const now = (): number => Number(readFileSync(clockFile, 'utf8'));

const config = loadConfig(process.env);
const secrets = new SecretRegistry();
const logger = createLogger({ level: config.logLevel, secrets, clock: now });
const runtime = await createRuntime({
  config,
  platform: config.platform!,
  secrets,
  logger,
  now,
  watchTickMs: Number(process.env.TEST_WATCH_TICK_MS ?? 100),
});
const slack = await startSlackApp({
  mode: 'http',
  botToken: config.slack.botToken!,
  signingSecret: config.slack.signingSecret,
  apiUrl: config.slack.apiUrl,
  port: config.port,
  metricsPort: config.metricsPort,
  engine: runtime.engine,
  services: runtime.services,
  metrics: runtime.metrics,
  logger,
});
await runtime.startBackground(createSlackMessenger({ client: slack.client, logger, secrets }));
logger.info('edgeops is ready', { port: slack.port, metricsPort: slack.metricsPort });
process.once('SIGTERM', () => {
  void slack
    .stop()
    .then(() => runtime.close())
    .finally(() => process.exit(0));
});
