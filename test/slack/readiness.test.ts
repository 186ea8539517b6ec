/**
 * The start-up check of the bot token (PRODUCT §1): a token Slack rejects stops the start with one
 * line naming SLACK_BOT_TOKEN; a Slack that does not answer keeps /readyz at 503 with the reason
 * while the check is retried with back-off, and the bot becomes ready once Slack answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { type RunningSlackApp, startSlackApp } from '../../src/slack/app.js';
import { BotTokenRejectedError, backoffMs, REJECTED_TOKEN_ERRORS } from '../../src/slack/bot-token.js';
import { createLogger } from '../../src/telemetry/log.js';
import { runUntilExit, startAppProcess } from '../support/app-process.js';
import { pinnedClock } from '../support/clock.js';
import { type FakeSlack, startFakeSlack } from '../support/fake-slack.js';
import { slashCommand, socketEnvelope } from '../support/payloads.js';
import { expectProbesOnMetricsPortOnly } from '../support/probes.js';

const BOT_TOKEN = 'xoxb-readiness-test-bot-token-41c7';
const APP_TOKEN = 'xapp-1-A0EDGEOPS-readiness-app-token';
const SIGNING_SECRET = 'readiness-signing-secret-5e2b';
// Start-up reads no platform data: a closed port stands in for the platform.
const PLATFORM_ENV = {
  PLATFORM_API_URL: 'http://127.0.0.1:9',
  PLATFORM_API_KEY: 'readiness-platform-key-unused',
  PLATFORM_LOGGING_URL: 'http://127.0.0.1:9/logging',
};
const BACKOFF = { initialMs: 20, maxMs: 80 };

interface Bot {
  fake: FakeSlack;
  runtime: Runtime;
  logs: string[];
  /** The public port: events in HTTP mode, /healthz. */
  baseUrl(slack: RunningSlackApp): string;
  /** METRICS_PORT: /healthz, /readyz, /metrics. */
  metricsUrl(slack: RunningSlackApp): string;
  start(extra?: { onFatal?: (error: Error) => void }): Promise<RunningSlackApp>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function bot(mode: 'http' | 'socket'): Promise<Bot> {
  const dir = mkdtempSync(join(tmpdir(), 'edgeops-readiness-'));
  const fake = await startFakeSlack({ now: pinnedClock() });
  const config = loadConfig({
    SLACK_BOT_TOKEN: BOT_TOKEN,
    ...(mode === 'socket' ? { SLACK_APP_TOKEN: APP_TOKEN } : { SLACK_SIGNING_SECRET: SIGNING_SECRET }),
    SLACK_API_URL: fake.apiUrl,
    ...PLATFORM_ENV,
    STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
  });
  const logs: string[] = [];
  const secrets = new SecretRegistry();
  const logger = createLogger({ level: 'info', secrets, clock: pinnedClock(), write: (l) => logs.push(l) });
  const runtime = await createRuntime({
    config,
    platform: config.platform!,
    secrets,
    logger,
    now: pinnedClock(),
  });
  cleanups.push(async () => {
    await runtime.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    fake,
    runtime,
    logs,
    baseUrl: (slack) => `http://127.0.0.1:${slack.port}`,
    metricsUrl: (slack) => `http://127.0.0.1:${slack.metricsPort}`,
    async start(extra = {}) {
      const slack = await startSlackApp({
        mode,
        botToken: BOT_TOKEN,
        signingSecret: mode === 'http' ? SIGNING_SECRET : undefined,
        appToken: mode === 'socket' ? APP_TOKEN : undefined,
        apiUrl: fake.apiUrl,
        port: 0,
        metricsPort: 0,
        engine: runtime.engine,
        services: runtime.services,
        metrics: runtime.metrics,
        logger,
        clientRetries: { retries: 0 },
        tokenCheckBackoff: BACKOFF,
        onFatal: extra.onFatal,
      });
      cleanups.push(() => slack.stop());
      return slack;
    },
  };
}

async function readyz(baseUrl: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${baseUrl}/readyz`);
  return { status: response.status, body: await response.text() };
}

const retryLines = (logs: string[], mode: string) =>
  logs.filter((line) => line.includes(`${mode}: Slack has not accepted SLACK_BOT_TOKEN yet`));

describe('the bot token check at start', () => {
  it.each(REJECTED_TOKEN_ERRORS)(
    'a token Slack answers %s for stops the start, naming SLACK_BOT_TOKEN',
    async (code) => {
      const b = await bot('http');
      b.fake.fail('auth.test', { error: code });
      const started = b.start();
      await expect(started).rejects.toBeInstanceOf(BotTokenRejectedError);
      const error = (await started.catch((e: unknown) => e)) as Error;
      expect(error.message).toMatch(
        new RegExp(`^SLACK_BOT_TOKEN: Slack rejected the bot token \\(${code}\\)`),
      );
      expect(error.message).not.toContain(BOT_TOKEN);
      expect(error.message).not.toContain('\n');
      // Nothing listens: no /slack/events for a bot that cannot answer.
      expect(b.fake.callsTo('auth.test')).toHaveLength(1);
    },
  );

  it('passes a token Slack accepts with one auth.test, and is ready at once', async () => {
    const b = await bot('http');
    const slack = await b.start();
    expect(slack.isReady()).toBe(true);
    expect(await readyz(b.metricsUrl(slack))).toEqual({ status: 200, body: 'ready\n' });
    expect(b.fake.callsTo('auth.test').map((call) => call.token)).toEqual([BOT_TOKEN]);
  });

  it('HTTP mode: while Slack answers 500, /readyz is 503 with the reason, then 200 once Slack answers', async () => {
    const b = await bot('http');
    b.fake.fail('auth.test', { status: 500, times: Number.POSITIVE_INFINITY });
    const slack = await b.start();
    expect(slack.isReady()).toBe(false);
    const notReady = await readyz(b.metricsUrl(slack));
    expect(notReady.status).toBe(503);
    expect(notReady.body).toMatch(
      /Slack has not accepted SLACK_BOT_TOKEN yet: auth\.test failed: Slack answered HTTP 500/,
    );
    expect((await fetch(`${b.baseUrl(slack)}/healthz`)).status).toBe(200);

    b.fake.reset();
    await slack.ready;
    expect(slack.isReady()).toBe(true);
    expect(await readyz(b.metricsUrl(slack))).toEqual({ status: 200, body: 'ready\n' });
    expect(b.logs.some((line) => line.includes('HTTP mode: Slack accepted the bot token'))).toBe(true);
  });

  it('HTTP mode: names an unreachable Slack in /readyz', async () => {
    const b = await bot('http');
    b.fake.fail('auth.test', { error: 'fatal_error', times: Number.POSITIVE_INFINITY });
    const slack = await b.start();
    const notReady = await readyz(b.metricsUrl(slack));
    expect(notReady.status).toBe(503);
    expect(notReady.body).toContain('auth.test failed: Slack answered fatal_error; next try in');
  });

  it('Socket Mode: logs one line per failed try with its back-off, connects only once Slack accepts the token', async () => {
    const b = await bot('socket');
    b.fake.fail('auth.test', { status: 500, times: 3 });
    const slack = await b.start();
    expect(slack.isReady()).toBe(false);
    expect((await fetch(`${b.baseUrl(slack)}/healthz`)).status).toBe(200);
    await slack.ready;
    await b.fake.socket.waitForConnection(5_000);

    const failed = b.fake.callsTo('auth.test').filter((call) => call.status === 500);
    expect(failed).toHaveLength(3);
    const lines = retryLines(b.logs, 'Socket Mode');
    expect(lines).toHaveLength(3);
    // The pause doubles: 20 ms, 40 ms, 80 ms (the cap), each named on its line.
    lines.forEach((line, index) => {
      expect(line).toContain(`next try in ${backoffMs(BACKOFF, index + 1)} ms (try ${index + 1})`);
      expect(line).toContain('Slack answered HTTP 500');
    });
    expect(b.logs.filter((line) => line.includes('"level":"warn"'))).toHaveLength(3);
    // The socket opened after the token was accepted, not before.
    const accepted = b.fake.callsTo('auth.test').find((call) => call.status === 200)!;
    const opened = b.fake.callsTo('apps.connections.open');
    expect(opened.length).toBeGreaterThan(0);
    expect(opened[0]!.receivedAt).toBeGreaterThan(accepted.receivedAt);
    expect(await readyz(b.metricsUrl(slack))).toEqual({ status: 200, body: 'ready\n' });

    const responseUrl = b.fake.responseUrl();
    const ack = await b.fake.socket.send(socketEnvelope(slashCommand({ text: 'help', responseUrl })), 5_000);
    expect(ack.envelope_id).toBeTruthy();
    await b.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 5_000);
  });

  it('a token Slack rejects on a later try ends the bot through onFatal', async () => {
    const b = await bot('socket');
    b.fake.fail('auth.test', { status: 500 });
    b.fake.fail('auth.test', { error: 'token_revoked' });
    let fatal: Error | undefined;
    const slack = await b.start({
      onFatal: (error) => {
        fatal = error;
      },
    });
    await expect(slack.ready).rejects.toBeInstanceOf(BotTokenRejectedError);
    expect(fatal?.message).toMatch(/^SLACK_BOT_TOKEN: Slack rejected the bot token \(token_revoked\)/);
    expect(b.fake.callsTo('apps.connections.open')).toEqual([]);
    const notReady = await readyz(b.metricsUrl(slack));
    expect(notReady).toMatchObject({ status: 503 });
    expect(notReady.body).toContain('Slack rejected SLACK_BOT_TOKEN (token_revoked)');
  });

  it('the back-off doubles from its first pause up to its cap', () => {
    expect(
      [1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => backoffMs({ initialMs: 1_000, maxMs: 60_000 }, attempt)),
    ).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
  });
});

describe('the real entry point', () => {
  it('HTTP mode: a rejected bot token stops the process with one line naming SLACK_BOT_TOKEN', async () => {
    const fake = await startFakeSlack({ tokens: ['xoxb-the-only-token-slack-knows'] });
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-readiness-main-'));
    try {
      const run = await runUntilExit({
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: fake.apiUrl,
        ...PLATFORM_ENV,
        STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
        // As the image runs it.
        NODE_OPTIONS: '--expose-gc',
      });
      expect(run.code, run.stderr).toBe(1);
      const plain = run.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
      expect(plain).toEqual([
        expect.stringMatching(/^edgeops: SLACK_BOT_TOKEN: Slack rejected the bot token \(invalid_auth\); /),
      ]);
      expect(run.stderr + run.stdout).not.toContain(BOT_TOKEN);
      const starting = run.stderr.split('\n').find((line) => line.includes('edgeops starting in HTTP mode'));
      expect(starting).toMatch(/"youngCollections":true/);
      expect(run.stderr).not.toContain('edgeops is ready');
      expect(run.stderr).not.toContain('on METRICS_PORT');
      expect(fake.callsTo('auth.test')).toHaveLength(1);
    } finally {
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 25_000);

  it('Socket Mode: a METRICS_PORT another process holds stops the start with one line naming it', async () => {
    const fake = await startFakeSlack();
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-readiness-main-'));
    const holder = createServer();
    await new Promise<void>((listening) => holder.listen(0, listening));
    const held = (holder.address() as AddressInfo).port;
    try {
      const run = await runUntilExit({
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_APP_TOKEN: APP_TOKEN,
        SLACK_API_URL: fake.apiUrl,
        ...PLATFORM_ENV,
        STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
        METRICS_PORT: String(held),
      });
      expect(run.code, run.stderr).toBe(1);
      const plain = run.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
      expect(plain).toEqual([
        `edgeops: failed to start: METRICS_PORT: port ${held} is in use; set METRICS_PORT to a free port`,
      ]);
      // Stopped before it took anything from Slack.
      expect(fake.callsTo('apps.connections.open')).toEqual([]);
    } finally {
      await new Promise((closed) => holder.close(closed));
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 25_000);

  it('Socket Mode: says so once on its first line, connects and becomes ready', async () => {
    const fake = await startFakeSlack();
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-readiness-main-'));
    const app = await startAppProcess({
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_APP_TOKEN: APP_TOKEN,
      SLACK_API_URL: fake.apiUrl,
      ...PLATFORM_ENV,
      STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
    });
    try {
      const [first = ''] = app.output().split('\n');
      expect(first).toContain('edgeops starting in Socket Mode');
      // Started without the image's --expose-gc, and says so.
      expect(first).toMatch(/"youngCollections":false/);
      expect(app.output()).not.toContain('Socket Mode mode');
      expect(fake.callsTo('apps.connections.open').length).toBeGreaterThan(0);
      expect(await readyz(app.metricsUrl())).toEqual({ status: 200, body: 'ready\n' });
      await expectProbesOnMetricsPortOnly(app.metricsUrl(), `http://127.0.0.1:${app.port}`);
    } finally {
      await app.stop();
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 25_000);

  it('HTTP mode: /readyz is 503 with the reason while Slack fails, and 200 once it answers', async () => {
    const fake = await startFakeSlack();
    fake.fail('auth.test', { status: 500, times: Number.POSITIVE_INFINITY });
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-readiness-main-'));
    const app = await startAppProcess(
      {
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: fake.apiUrl,
        ...PLATFORM_ENV,
        STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
      },
      20_000,
      'edgeops is not ready',
    );
    try {
      const notReady = await readyz(app.metricsUrl());
      expect(notReady.status).toBe(503);
      expect(notReady.body).toContain('auth.test failed: Slack answered HTTP 500');
      fake.reset();
      await expect.poll(() => app.output().includes('edgeops is ready'), { timeout: 15_000 }).toBe(true);
      expect(await readyz(app.metricsUrl())).toEqual({ status: 200, body: 'ready\n' });
      await expectProbesOnMetricsPortOnly(app.metricsUrl(), `http://127.0.0.1:${app.port}`);
      expect(app.output()).toContain('HTTP mode: Slack has not accepted SLACK_BOT_TOKEN yet');
      expect(app.output()).not.toContain(BOT_TOKEN);
    } finally {
      await app.stop();
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
