/**
 * The bot as a separate process (`node --import tsx src/main.ts`), for replica and restart
 * tests: several instances sharing one state database, or one killed mid-execution.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { repoRoot } from './block-kit.js';

export interface AppProcess {
  port: number;
  eventsUrl: string;
  /** Where /healthz, /readyz and /metrics answer, as its log says once it listens there. */
  metricsUrl(): string;
  child: ChildProcess;
  output: () => string;
  /** SIGKILL: no shutdown hooks, as in a crash. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * libfaketime's variables, when the suite runs under `faketime` to check it at another hour: the
 * bot's process then shares the suite's clock, as it shares the real one otherwise (Bolt checks
 * the signatures the suite makes against it). Empty in a normal run.
 */
function faketimeEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && (entry[0] === 'LD_PRELOAD' || entry[0].startsWith('FAKETIME')),
    ),
  );
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

/**
 * Starts the bot and resolves once its log shows `waitFor` (by default: it is ready). `entry` is
 * the script to run: src/main.ts, or test/support/clocked-app.ts for a bot on the test's clock.
 */
export async function startAppProcess(
  env: Record<string, string>,
  timeoutMs = 20_000,
  waitFor = 'edgeops is ready',
  entry = 'src/main.ts',
): Promise<AppProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePort(env, timeoutMs, waitFor, entry);
    } catch (error) {
      // The free port was taken by another process between our look and the bot's listen.
      if (!String(error).includes('EADDRINUSE') || attempt >= 3) throw error;
    }
  }
}

async function startOnFreePort(
  env: Record<string, string>,
  timeoutMs: number,
  waitFor: string,
  entry: string,
): Promise<AppProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(repoRoot, entry)], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...faketimeEnv(),
      // A free port, which the log names: never a default another process may hold.
      METRICS_PORT: '0',
      ...env,
      PORT: String(port),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`app did not start in time:\n${output}`)), timeoutMs);
    const check = () => {
      if (output.includes(waitFor)) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`app exited with ${code} before it was ready:\n${output}`));
    });
  });
  return {
    port,
    eventsUrl: `http://127.0.0.1:${port}/slack/events`,
    metricsUrl() {
      const metricsPort = /"metricsPort":([1-9]\d*)/.exec(output)?.[1];
      if (!metricsPort) throw new Error(`the app has not logged its metrics port:\n${output}`);
      return `http://127.0.0.1:${metricsPort}`;
    },
    child,
    output: () => output,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface EntryPointRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real entry point until it exits on its own (a start that must stop), bounded. */
export async function runUntilExit(env: Record<string, string>, timeoutMs = 20_000): Promise<EntryPointRun> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(repoRoot, 'src/main.ts')], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...faketimeEnv(),
      // A free port, which the log names: never a default another process may hold.
      METRICS_PORT: '0',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}
