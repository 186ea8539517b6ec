/**
 * The console serves /healthz, /readyz and /metrics on METRICS_PORT as every mode does (PRODUCT §1,
 * §2), through the real entry point; a port another process holds refuses no session.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { expectProbesOnMetricsPortOnly } from '../support/probes.js';

const repo = resolve(import.meta.dirname, '../..');
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Session {
  child: ChildProcessWithoutNullStreams;
  cwd: string;
  stdout(): string;
  /** Types `:quit` and resolves with the exit code. */
  quit(): Promise<number | null>;
}

/** A console session on the sandbox, once it has printed its banner (it listens before that). */
async function startSession(env: Record<string, string>): Promise<Session> {
  const cwd = mkdtempSync(join(tmpdir(), 'edgeops-console-probes-'));
  const child = spawn(process.execPath, ['--import', tsxLoader, join(repo, 'src/main.ts')], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(cwd, { recursive: true, force: true });
  });
  await Promise.race([
    once(child.stdout, 'data'),
    exited.then(([code]) => Promise.reject(new Error(`the console exited with ${code} before its banner`))),
  ]);
  return {
    child,
    cwd,
    stdout: () => stdout,
    async quit() {
      child.stdin.end(':quit\n');
      const [code] = await exited;
      return code;
    },
  };
}

const logLines = (session: Session) =>
  readFileSync(join(session.cwd, 'data', 'edgeops-console.log'), 'utf8').split('\n');

it('serves /healthz, /readyz and /metrics on METRICS_PORT while the session runs', async () => {
  const session = await startSession({ METRICS_PORT: '0' });
  const line = logLines(session).find((l) => l.includes('on METRICS_PORT')) ?? '';
  const port = /"metricsPort":([1-9]\d*)/.exec(line)?.[1];
  expect(port, line).toBeDefined();
  await expectProbesOnMetricsPortOnly(`http://127.0.0.1:${port}`);
  expect(await session.quit()).toBe(0);
  // The session's end closes the port.
  await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
}, 25_000);

it('goes on without them when another process holds METRICS_PORT, and says so in its log', async () => {
  const holder = createServer((_req, res) => res.end('not edgeops'));
  await new Promise<void>((listening) => holder.listen(0, listening));
  cleanups.push(() => new Promise<void>((closed) => holder.close(() => closed())));
  const held = (holder.address() as AddressInfo).port;
  const session = await startSession({ METRICS_PORT: String(held) });
  session.child.stdin.write('/edge dns\n');
  expect(await session.quit()).toBe(0);
  expect(session.stdout()).toContain('DNS zones (11)');
  const warning = logLines(session).find((l) => l.includes('the console goes on without /healthz'));
  expect(warning).toContain(`METRICS_PORT: port ${held} is in use`);
}, 25_000);
