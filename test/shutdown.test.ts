/**
 * How the process ends: a signal at any moment of the start stops what has started, newest first;
 * a start that cannot succeed ends with one redacted line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger, SecretRegistry } from '../src/log.js';
import { PolicyLoadError } from '../src/policy/store.js';
import { createShutdown, startFailureLine } from '../src/shutdown.js';
import { startAppProcess } from './support/app-process.js';
import { pinnedClock } from './support/clock.js';
import { startFakeSlack } from './support/fake-slack.js';

function shutdownForTest() {
  const lines: string[] = [];
  const exits: number[] = [];
  const logger = createLogger({
    level: 'info',
    secrets: new SecretRegistry(),
    clock: pinnedClock(),
    write: (line) => lines.push(line),
  });
  const shutdown = createShutdown({ logger, exit: (code) => exits.push(code) });
  return { shutdown, lines, exits };
}

describe('a signal during the start or the run', () => {
  it('stops what has started, newest first, once, then exits 0', async () => {
    const { shutdown, exits, lines } = shutdownForTest();
    const order: string[] = [];
    shutdown.onStop(async () => order.push('stores'));
    shutdown.onStop(async () => order.push('receiver'));
    expect(shutdown.stopping).toBe(false);
    const first = shutdown.stop('SIGTERM');
    expect(shutdown.stopping).toBe(true);
    await Promise.all([first, shutdown.stop('SIGINT')]);
    expect(order).toEqual(['receiver', 'stores']);
    expect(exits).toEqual([0]);
    expect(lines.filter((line) => line.includes('shutting down'))).toHaveLength(1);
  });

  it('waits for a start still under way, and stops it before the stores', async () => {
    const { shutdown, exits } = shutdownForTest();
    const order: string[] = [];
    let started!: (app: { stop(): Promise<void> }) => void;
    const starting = new Promise<{ stop(): Promise<void> }>((resolve) => {
      started = resolve;
    });
    shutdown.onStop(async () => order.push('stores'));
    shutdown.onStop(async () => (await starting).stop());
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
    shutdown.onStop(async () => order.push('stores'));
    shutdown.onStop(async () => {
      throw new Error('receiver would not close');
    });
    await shutdown.stop('SIGTERM');
    expect(order).toEqual(['stores']);
    expect(exits).toEqual([0]);
    expect(lines.join('\n')).toContain('receiver would not close');
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

describe('the real entry point', () => {
  it('a SIGTERM as soon as it starts ends it cleanly, not killed by the signal', async () => {
    const fake = await startFakeSlack();
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-shutdown-'));
    const app = await startAppProcess(
      {
        SLACK_BOT_TOKEN: 'xoxb-shutdown-test-bot-token-7d1e',
        SLACK_SIGNING_SECRET: 'shutdown-signing-secret-93ab',
        SLACK_API_URL: fake.apiUrl,
        PLATFORM_API_URL: 'http://127.0.0.1:9',
        PLATFORM_API_KEY: 'shutdown-platform-key-unused',
        PLATFORM_LOGGING_URL: 'http://127.0.0.1:9/logging',
        STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
      },
      20_000,
      'edgeops starting in HTTP mode',
    );
    try {
      const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        app.child.once('exit', (code, signal) => resolve([code, signal])),
      );
      app.child.kill('SIGTERM');
      expect(await exited, app.output()).toEqual([0, null]);
      expect(app.output()).toContain('shutting down');
      expect(app.output()).not.toContain('edgeops is ready');
    } finally {
      await app.stop();
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 25_000);
});
