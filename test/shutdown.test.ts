/**
 * How the process ends: a signal at any moment of the start stops what has started, newest first;
 * a start that cannot succeed ends with one redacted line.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PolicyLoadError } from '../src/policy/store.js';
import { createShutdown, startFailureLine } from '../src/runtime/shutdown.js';
import { SecretRegistry } from '../src/secrets/registry.js';
import { createLogger } from '../src/telemetry/log.js';
import { type AppProcess, startAppProcess } from './support/app-process.js';
import { pinnedClock } from './support/clock.js';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.js';
import { slashCommand } from './support/payloads.js';
import { postSigned } from './support/signer.js';

function shutdownForTest(deadlineMs?: number) {
  const lines: string[] = [];
  const exits: number[] = [];
  const logger = createLogger({
    level: 'info',
    secrets: new SecretRegistry(),
    clock: pinnedClock(),
    write: (line) => lines.push(line),
  });
  const shutdown = createShutdown({ logger, exit: (code) => exits.push(code), deadlineMs });
  return { shutdown, lines, exits };
}

describe('a signal during the start or the run', () => {
  it('stops what has started, newest first, once, then exits 0', async () => {
    const { shutdown, exits, lines } = shutdownForTest();
    const order: string[] = [];
    shutdown.onStop('the stores', async () => order.push('stores'));
    shutdown.onStop('the receiver', async () => order.push('receiver'));
    expect(shutdown.stopping).toBe(false);
    const first = shutdown.stop('SIGTERM');
    expect(shutdown.stopping).toBe(true);
    await Promise.all([first, shutdown.stop('SIGINT')]);
    expect(order).toEqual(['receiver', 'stores']);
    expect(exits).toEqual([0]);
    expect(lines.filter((line) => line.includes('"shutting down"'))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('already shutting down'))).toHaveLength(1);
  });

  it('waits for a start still under way, and stops it before the stores', async () => {
    const { shutdown, exits } = shutdownForTest();
    const order: string[] = [];
    let started!: (app: { stop(): Promise<void> }) => void;
    const starting = new Promise<{ stop(): Promise<void> }>((resolve) => {
      started = resolve;
    });
    shutdown.onStop('the stores', async () => order.push('stores'));
    shutdown.onStop('the receiver', async () => (await starting).stop());
    const stopped = shutdown.stop('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(exits).toEqual([]);
    started({ stop: async () => void order.push('receiver') });
    await stopped;
    expect(order).toEqual(['receiver', 'stores']);
    expect(exits).toEqual([0]);
  });

  it('goes on to the next step when one fails, and says which failed', async () => {
    const { shutdown, exits, lines } = shutdownForTest();
    const order: string[] = [];
    shutdown.onStop('the stores', async () => order.push('stores'));
    shutdown.onStop('the receiver', async () => {
      throw new Error('receiver would not close');
    });
    await shutdown.stop('SIGTERM');
    expect(order).toEqual(['stores']);
    expect(exits).toEqual([0]);
    expect(lines.join('\n')).toContain('receiver would not close');
    expect(lines.join('\n')).toContain('the receiver did not stop cleanly');
  });

  it('Ctrl-C: a second, a second or more after the first, exits 130 at once; a relayed repeat does not', async () => {
    const { shutdown, exits, lines } = shutdownForTest();
    let release!: () => void;
    shutdown.onStop('the Slack receiver', () => new Promise<void>((resolve) => (release = resolve)));
    shutdown.interrupt();
    shutdown.interrupt();
    expect(exits).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    shutdown.interrupt();
    expect(exits).toEqual([130]);
    expect(lines.join('\n')).toContain('"waitingFor":"the Slack receiver"');
    release();
  });

  it('exits 1 at its deadline, naming what had not stopped, instead of hanging', async () => {
    const { shutdown, exits, lines } = shutdownForTest(200);
    shutdown.onStop('the stores', async () => undefined);
    shutdown.onStop('the Slack receiver', () => new Promise(() => undefined));
    await shutdown.stop('SIGTERM');
    expect(exits).toEqual([1]);
    const said = lines.join('\n');
    expect(said).toContain('shutting down took more than 200 ms; exiting');
    expect(said).toContain('"waitingFor":"the Slack receiver"');
  });
});

describe('a start that cannot succeed', () => {
  it('ends with one line without the secrets a dependency’s message quoted', () => {
    const secrets = new SecretRegistry();
    secrets.add('state-token-0123456789abcdef');
    const error = new Error('HTTP 401 from the server: bad token Bearer state-token-0123456789abcdef');
    const line = startFailureLine(error, secrets);
    expect(line).toBe(
      'edgeops: failed to start: HTTP 401 from the server: bad token Bearer [redacted …cdef]\n',
    );
    expect(startFailureLine(new PolicyLoadError('grants[0].ops: unknown operation'), secrets)).toBe(
      'edgeops: policy error: grants[0].ops: unknown operation\n',
    );
  });
});

const ENTRY_ENV = (fakeApiUrl: string, dir: string) => ({
  SLACK_BOT_TOKEN: 'xoxb-shutdown-test-bot-token-7d1e',
  SLACK_API_URL: fakeApiUrl,
  PLATFORM_API_URL: 'http://127.0.0.1:9',
  PLATFORM_API_KEY: 'shutdown-platform-key-unused',
  PLATFORM_LOGGING_URL: 'http://127.0.0.1:9/logging',
  STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
});

const exitOf = (child: ChildProcess) =>
  new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (code, signal) => resolve([code, signal])),
  );

/**
 * The real entry point against a fake Slack and a fresh state database, started until its log
 * shows `waitFor`; `prepare` sets the fake up first. Everything is cleaned up after `body`.
 */
async function withEntryPoint(
  options: { env?: Record<string, string>; waitFor?: string; prepare?: (fake: FakeSlack) => void },
  body: (app: AppProcess, fake: FakeSlack) => Promise<void>,
) {
  const fake = await startFakeSlack();
  options.prepare?.(fake);
  const dir = mkdtempSync(join(tmpdir(), 'edgeops-shutdown-'));
  try {
    const app = await startAppProcess(
      { ...ENTRY_ENV(fake.apiUrl, dir), ...options.env },
      20_000,
      options.waitFor,
    );
    try {
      await body(app, fake);
    } finally {
      await app.stop();
    }
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const HTTP_ENV = { SLACK_SIGNING_SECRET: 'shutdown-signing-secret-93ab' };

describe('the real entry point', () => {
  it('Socket Mode: a SIGTERM while its connection cannot open ends it, abandoning the start, not hanging', async () => {
    await withEntryPoint(
      {
        env: { SLACK_APP_TOKEN: 'xapp-1-A0EDGEOPS-shutdown-app-token' },
        waitFor: 'state database open',
        prepare: (fake) =>
          fake.fail('apps.connections.open', { status: 500, times: Number.POSITIVE_INFINITY }),
      },
      async (app, fake) => {
        // A SIGHUP before the policy is loaded is no reason to die.
        app.child.kill('SIGHUP');
        await expect
          .poll(() => fake.callsTo('apps.connections.open').length, { timeout: 10_000 })
          .toBeGreaterThan(0);
        const exited = exitOf(app.child);
        const signalledAt = performance.now();
        app.child.kill('SIGTERM');
        expect(await exited, app.output()).toEqual([0, null]);
        // The 5 s given to a start still under way, and no more.
        expect(performance.now() - signalledAt).toBeLessThan(15_000);
        expect(app.output()).toContain('the Slack connection was still starting; it is abandoned');
        expect(app.output()).not.toContain('edgeops is ready');
      },
    );
  }, 30_000);

  it('HTTP mode: a second Ctrl-C ends a stop that is still draining, and says so', async () => {
    // A platform that never answers: the command below keeps the stop's drain going for its 20 s.
    const held = new Set<Socket>();
    const silent = createServer((socket) => held.add(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const platformUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      await withEntryPoint(
        {
          env: { ...HTTP_ENV, PLATFORM_API_URL: platformUrl, PLATFORM_LOGGING_URL: `${platformUrl}/logging` },
        },
        async (app) => {
          const ack = await postSigned(app.eventsUrl, slashCommand({ text: 'dns' }), {
            signingSecret: HTTP_ENV.SLACK_SIGNING_SECRET,
          });
          expect(ack.status).toBe(200);
          const exited = exitOf(app.child);
          app.child.kill('SIGINT');
          await expect.poll(() => app.output(), { timeout: 5_000 }).toContain('shutting down');
          // Within a second of the first, a SIGINT is the same keypress relayed twice: ignored.
          app.child.kill('SIGINT');
          await new Promise((resolve) => setTimeout(resolve, 1_200));
          expect(app.child.exitCode, app.output()).toBeNull();
          app.child.kill('SIGINT');
          expect(await exited, app.output()).toEqual([130, null]);
          expect(app.output()).toContain('a second SIGINT: exiting without waiting for the stop to end');
        },
      );
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
    }
  }, 30_000);

  it('a SIGTERM as soon as it starts ends it cleanly, not killed by the signal', async () => {
    await withEntryPoint({ env: HTTP_ENV, waitFor: 'edgeops starting in HTTP mode' }, async (app) => {
      const exited = exitOf(app.child);
      app.child.kill('SIGTERM');
      expect(await exited, app.output()).toEqual([0, null]);
      expect(app.output()).toContain('shutting down');
      expect(app.output()).not.toContain('edgeops is ready');
    });
  }, 25_000);
});
