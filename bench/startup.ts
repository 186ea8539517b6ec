/**
 * Start-up time: from spawning the bot (HTTP mode) to its first `/readyz` 200, against spawning
 * `node -e ''` to its exit, in the same run. The bot runs from compiled JavaScript as in the
 * Docker image (compiled.ts); `npm start` under tsx is reported beside it. Also the process
 * helpers the other benchmarks share: the sandbox in a process of its own, the bot spawned and
 * waited for. Run alone: `npx tsx bench/startup.ts`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { z } from 'zod';
import { isMain } from './child.js';
import type { CompiledTree } from './compiled.js';
import type { BenchRow } from './types.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const RUNS = 5;
const READY_TIMEOUT_MS = 30_000;

export const BENCH_SIGNING_SECRET = 'bench-signing-secret-3c9e1a';
export const BENCH_BOT_TOKEN = 'xoxb-bench-0000-bot-token-7f2a';

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((done) => server.close(done));
  return port;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A child that is stopped however the benchmark ends: SIGTERM, then SIGKILL after a grace. */
export async function stopChild(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------- the sandbox in its own process

const SandboxLinesSchema = z.object({
  PLATFORM_API_URL: z.url(),
  PLATFORM_API_KEY: z.string().min(1),
  PLATFORM_LOGGING_URL: z.url(),
  PLATFORM_DATABASE_API_URL: z.url(),
});
export type SandboxEnv = z.infer<typeof SandboxLinesSchema>;

const RequestCountsSchema = z.object({ total: z.number(), counts: z.record(z.string(), z.number()) });

export interface SandboxProcess {
  env: SandboxEnv;
  /** Requests the sandbox received for a route id, from its control endpoint. */
  count(routeId: string): Promise<number>;
  stop(): Promise<void>;
}

/**
 * `npm run sandbox` on free ports, so the data it generates (a million log entries, a 200 MB
 * export) costs neither the bot's process nor the one sending the load.
 */
export async function startSandboxProcess(compiled: CompiledTree): Promise<SandboxProcess> {
  const child = spawn(process.execPath, [compiled.script('src/sandbox/cli.ts')], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', SANDBOX_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  const ready = new Promise<SandboxEnv>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the sandbox did not start:\n${output}`)), 20_000);
    child.stdout.on('data', (text: string) => {
      output += text;
      if (!output.includes('Ctrl-C stops it.')) return;
      clearTimeout(timer);
      const pairs = [...output.matchAll(/^\s+([A-Z_]+)=(\S+)$/gm)].map((m) => [m[1], m[2]]);
      resolve(SandboxLinesSchema.parse(Object.fromEntries(pairs)));
    });
    child.once('exit', (code) => reject(new Error(`the sandbox exited with ${code}:\n${output}`)));
  });
  const env = await ready.catch(async (error: unknown) => {
    await stopChild(child);
    throw error;
  });
  return {
    env,
    async count(routeId) {
      const response = await request(`${env.PLATFORM_API_URL}/_sandbox/requests`);
      const body = RequestCountsSchema.parse(await response.body.json());
      return body.counts[routeId] ?? 0;
    },
    stop: () => stopChild(child),
  };
}

// ---------------------------------------------------------------- the bot as a process

export interface AppProcess {
  port: number;
  baseUrl: string;
  eventsUrl: string;
  child: ChildProcess;
  /** From spawn to the first /readyz 200. */
  readyMs: number;
  stop(): Promise<void>;
}

/** The environment of the bot in HTTP mode against the fake Slack and a platform. */
export function appEnv(options: {
  slackApiUrl: string;
  platform: SandboxEnv;
  stateDatabaseUrl: string;
  policyPath?: string;
}): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: BENCH_BOT_TOKEN,
    SLACK_SIGNING_SECRET: BENCH_SIGNING_SECRET,
    SLACK_API_URL: options.slackApiUrl,
    ...options.platform,
    STATE_DATABASE_URL: options.stateDatabaseUrl,
    LOG_LEVEL: 'info',
    ...(options.policyPath ? { EDGEOPS_POLICY: options.policyPath } : {}),
  };
}

async function readyz(baseUrl: string): Promise<boolean> {
  try {
    const response = await request(`${baseUrl}/readyz`);
    await response.body.dump();
    return response.statusCode === 200;
  } catch {
    return false;
  }
}

/**
 * Spawns `args` (a script and its arguments) with `env` and the port it should listen on, and
 * resolves once `/readyz` answers 200. Its log (stderr) is kept, last lines only, for the error
 * when it does not start; nothing is printed while it is measured.
 */
export async function spawnApp(args: string[], env: Record<string, string>): Promise<AppProcess> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    tail = (tail + text).slice(-4_000);
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  let exited: number | null = null;
  child.once('exit', (code) => {
    exited = code ?? -1;
  });
  for (;;) {
    if (exited !== null)
      throw new Error(`${args.join(' ')} exited with ${exited} before it was ready:\n${tail}`);
    if (await readyz(baseUrl)) break;
    if (performance.now() - started > READY_TIMEOUT_MS) {
      await stopChild(child);
      throw new Error(`${args.join(' ')} was not ready within ${READY_TIMEOUT_MS} ms:\n${tail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return {
    port,
    baseUrl,
    eventsUrl: `${baseUrl}/slack/events`,
    child,
    readyMs: performance.now() - started,
    stop: () => stopChild(child),
  };
}

/** `node -e ''`: what any Node process costs from spawn to exit. */
async function bareNodeMs(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return performance.now() - started;
}

export async function benchStartup(log: (line: string) => void = () => undefined): Promise<BenchRow[]> {
  const { compileForBench } = await import('./compiled.js');
  const { startFakeSlack } = await import('../test/support/fake-slack.js');
  const compiled = await compileForBench();
  const fake = await startFakeSlack({ validateBlocks: false });
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-bench-startup-'));
  // Start-up reads no platform data: a closed port stands in for it.
  const platform: SandboxEnv = {
    PLATFORM_API_URL: 'http://127.0.0.1:9',
    PLATFORM_API_KEY: 'bench-platform-key-unused',
    PLATFORM_LOGGING_URL: 'http://127.0.0.1:9/logging',
    PLATFORM_DATABASE_API_URL: 'http://127.0.0.1:9/database',
  };
  try {
    const measure = async (args: string[], run: number) => {
      const env = appEnv({
        slackApiUrl: fake.apiUrl,
        platform,
        stateDatabaseUrl: `file:${join(dir, `state-${run}-${args.length}.db`)}`,
      });
      const app = await spawnApp(args, env);
      await app.stop();
      return app.readyMs;
    };
    const node: number[] = [];
    const compiledRuns: number[] = [];
    const tsxRuns: number[] = [];
    // Alternating, so a burst of other work on the machine touches every side alike.
    for (let run = 0; run < RUNS; run++) {
      node.push(await bareNodeMs());
      compiledRuns.push(await measure([compiled.script('src/main.ts')], run));
      tsxRuns.push(await measure(['--import', import.meta.resolve('tsx'), join(REPO, 'src/main.ts')], run));
    }
    const baseline = median(node);
    const ours = median(compiledRuns);
    const underTsx = median(tsxRuns);
    log(
      `startup: node -e '' ${node.map(Math.round).join('/')} ms; compiled ${compiledRuns.map(Math.round).join('/')} ms; tsx ${tsxRuns.map(Math.round).join('/')} ms`,
    );
    return [
      {
        figure: 'start-up to /readyz 200, compiled (ms, median of 5)',
        value: Math.round(ours),
        baseline: Math.round(baseline),
        ratio: ours / baseline,
        target: "reported against node -e ''",
        pass: true,
      },
      {
        figure: 'start-up to /readyz 200, npm start under tsx (ms, median of 5)',
        value: Math.round(underTsx),
        baseline: Math.round(baseline),
        ratio: underTsx / baseline,
        target: "reported against node -e ''",
        pass: true,
      },
    ];
  } finally {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
    await compiled.remove();
  }
}

if (isMain(import.meta.url)) {
  console.table(await benchStartup((line) => process.stderr.write(`${line}\n`)));
}
