import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { type RunningSlackApp, startSlackApp } from '../../src/slack/app.js';
import { createLogger } from '../../src/telemetry/log.js';
import { pinnedClock } from '../support/clock.js';
import { type FakeSlack, startFakeSlack } from '../support/fake-slack.js';
import { blockSuggestion, slashCommand, socketEnvelope } from '../support/payloads.js';
import { expectProbesOnMetricsPortOnly } from '../support/probes.js';

const clock = pinnedClock();

const APP_TOKEN = 'xapp-1-A0EDGEOPS-test-socket-token';
const BOT_TOKEN = 'xoxb-socket-test-bot-token';

let fake: FakeSlack;
let sandbox: Sandbox;
let runtime: Runtime;
let slack: RunningSlackApp;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edgeops-socket-'));
  fake = await startFakeSlack({ now: clock });
  sandbox = await startSandbox({ now: clock });
  const config = loadConfig({
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_APP_TOKEN: APP_TOKEN,
    SLACK_API_URL: fake.apiUrl,
    PLATFORM_API_URL: sandbox.apiUrl,
    PLATFORM_API_KEY: sandbox.apiKey,
    PLATFORM_LOGGING_URL: sandbox.loggingUrl,
    STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
  });
  expect(config.mode).toBe('socket');
  const secrets = new SecretRegistry();
  const logger = createLogger({ clock: pinnedClock(), level: 'warn', secrets, write: () => undefined });
  runtime = await createRuntime({ config, platform: config.platform!, secrets, logger, now: clock });
  slack = await startSlackApp({
    mode: 'socket',
    botToken: BOT_TOKEN,
    appToken: APP_TOKEN,
    apiUrl: fake.apiUrl,
    port: 0,
    metricsPort: 0,
    engine: runtime.engine,
    services: runtime.services,
    metrics: runtime.metrics,
    logger,
    clientRetries: { retries: 1, minTimeout: 0, maxTimeout: 1 },
  });
});

afterAll(async () => {
  await slack?.stop();
  await runtime?.close();
  await sandbox?.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Socket Mode', () => {
  it('connects through apps.connections.open, acknowledges an envelope and answers the command', async () => {
    await fake.socket.waitForConnection(5_000);
    expect(fake.callsTo('apps.connections.open')[0]?.token).toBe(APP_TOKEN);
    const responseUrl = fake.responseUrl();
    const envelope = socketEnvelope(slashCommand({ text: 'dns', responseUrl }));
    const ack = await fake.socket.send(envelope, 5_000);
    expect(ack.envelope_id).toBe(envelope.envelope_id);
    const reply = await fake.waitForResponse((post) => responseUrl.endsWith(post.id), 5_000);
    expect(JSON.stringify(reply.body)).toContain('DNS zones');
  });

  it('answers a zone picker with its options inside the envelope’s acknowledgement', async () => {
    await fake.socket.waitForConnection(5_000);
    const envelope = socketEnvelope(
      blockSuggestion({
        blockId: 'zone',
        actionId: 'pick-zone:pullzone',
        value: 'media',
        privateMetadata: JSON.stringify({ c: 'C0OPS', m: '' }),
      }),
    );
    const ack = await fake.socket.send(envelope, 5_000);
    expect(ack.payload).toEqual({
      options: [{ text: { type: 'plain_text', text: 'media-cdn · Pull zone 410112' }, value: '410112' }],
    });
  });

  it('acknowledges /edge before Bolt dispatches it, and refuses a listener acking it with a body', async () => {
    await fake.socket.waitForConnection(5_000);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // Held before every listener, as Bolt's own middleware is: the command is not dispatched yet.
    slack.app.use(async ({ next }) => {
      await gate;
      await next();
    });
    const refused: unknown[] = [];
    slack.app.command('/edge', async ({ ack }) => {
      await ack({ text: 'a body' } as never).catch((error: unknown) => refused.push(error));
    });
    const responseUrl = fake.responseUrl();
    const envelope = socketEnvelope(slashCommand({ text: 'help', responseUrl }));
    try {
      const ack = await fake.socket.send(envelope, 5_000);
      expect(ack).toMatchObject({ envelope_id: envelope.envelope_id });
      // Acknowledged with no answer in it.
      expect(ack.payload ?? {}).toEqual({});
      expect(fake.responses.some((post) => responseUrl.endsWith(post.id))).toBe(false);
    } finally {
      open();
    }
    await fake.waitForResponse((post) => responseUrl.endsWith(post.id), 5_000);
    await expect.poll(() => refused.length).toBe(1);
    expect(String(refused[0])).toContain(
      '/edge is acknowledged on arrival: its listener cannot ack with a body',
    );
  });

  it('still serves /healthz for the container health check', async () => {
    expect((await fetch(`http://127.0.0.1:${slack.port}/healthz`)).status).toBe(200);
  });

  it('serves /readyz and /metrics on METRICS_PORT only, and /healthz on both ports', async () => {
    await expectProbesOnMetricsPortOnly(
      `http://127.0.0.1:${slack.metricsPort}`,
      `http://127.0.0.1:${slack.port}`,
    );
  });
});
