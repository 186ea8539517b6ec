/**
 * Start-up time: from spawning the bot (HTTP mode) to its first `/readyz` 200, against spawning
 * `node -e ''` to its exit, in the same run. The bot runs from compiled JavaScript as in the
 * Docker image (compiled.ts); `npm start` under tsx is reported beside it, and so is what
 * dominates both: loading the modules of HTTP mode and nothing else (`its imports`). Each side's
 * CPU time is reported beside its wall time: on a machine shared with other work the wall time
 * moves with the load, which every run logs, far more than the CPU time does. Also the process helpers the other benchmarks
 * share: the sandbox in a process of its own, the bot spawned and waited for. Run alone:
 * `npx tsx bench/startup.ts` (STARTUP_RUNS=N for more runs than 5).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { request } from 'undici';
import { z } from 'zod';
import { imageEnv, isMain } from './child.js';
import type { CompiledTree } from './compiled.js';
import type { BenchRow } from './types.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.STARTUP_RUNS) || 5;
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
const AddedPullZonesSchema = z.object({ ids: z.array(z.number().int()) });

/** The sandbox's libSQL database as its start-up lines give it: a Hrana-over-HTTP server. */
const DatabaseLinesSchema = z.object({
  SERVICE_DATABASE_URL: z.url(),
  SERVICE_DATABASE_AUTH_TOKEN: z.string().min(1),
});

const RequestCountsSchema = z.object({ total: z.number(), counts: z.record(z.string(), z.number()) });

export interface SandboxProcess {
  env: SandboxEnv;
  /** Its database, served over HTTP as a libSQL server would serve it. */
  database: { url: string; authToken: string };
  /** Requests the sandbox received for a route id, from its control endpoint. */
  count(routeId: string): Promise<number>;
  /** Adds `count` pull zones through the control endpoint; their ids. */
  addPullZones(count: number): Promise<number[]>;
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
  const ready = new Promise<{ env: SandboxEnv; database: { url: string; authToken: string } }>(
    (resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the sandbox did not start:\n${output}`)), 20_000);
      child.stdout.on('data', (text: string) => {
        output += text;
        if (!output.includes('Ctrl-C stops it.')) return;
        clearTimeout(timer);
        const pairs = [...output.matchAll(/^\s+([A-Z_]+)=(\S+)$/gm)].map((m) => [m[1], m[2]]);
        const lines = Object.fromEntries(pairs);
        const database = DatabaseLinesSchema.parse(lines);
        resolve({
          env: SandboxLinesSchema.parse(lines),
          database: { url: database.SERVICE_DATABASE_URL, authToken: database.SERVICE_DATABASE_AUTH_TOKEN },
        });
      });
      child.once('exit', (code) => reject(new Error(`the sandbox exited with ${code}:\n${output}`)));
    },
  );
  const { env, database } = await ready.catch(async (error: unknown) => {
    await stopChild(child);
    throw error;
  });
  return {
    env,
    database,
    async count(routeId) {
      const response = await request(`${env.PLATFORM_API_URL}/_sandbox/requests`);
      const body = RequestCountsSchema.parse(await response.body.json());
      return body.counts[routeId] ?? 0;
    },
    async addPullZones(count) {
      const response = await request(`${env.PLATFORM_API_URL}/_sandbox/pullzones`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ count }),
      });
      if (response.statusCode !== 200)
        throw new Error(`the sandbox did not add pull zones: ${await response.body.text()}`);
      return AddedPullZonesSchema.parse(await response.body.json()).ids;
    },
    stop: () => stopChild(child),
  };
}

// ---------------------------------------------------------------- the bot as a process

export interface AppProcess {
  port: number;
  baseUrl: string;
  eventsUrl: string;
  /** Where /readyz and /metrics answer. */
  metricsUrl: string;
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
  stateDatabaseAuthToken?: string;
  policyPath?: string;
}): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: BENCH_BOT_TOKEN,
    SLACK_SIGNING_SECRET: BENCH_SIGNING_SECRET,
    SLACK_API_URL: options.slackApiUrl,
    ...options.platform,
    STATE_DATABASE_URL: options.stateDatabaseUrl,
    ...(options.stateDatabaseAuthToken ? { STATE_DATABASE_AUTH_TOKEN: options.stateDatabaseAuthToken } : {}),
    LOG_LEVEL: 'info',
    ...(options.policyPath ? { EDGEOPS_POLICY: options.policyPath } : {}),
  };
}

async function readyz(metricsUrl: string): Promise<boolean> {
  try {
    const response = await request(`${metricsUrl}/readyz`);
    await response.body.dump();
    return response.statusCode === 200;
  } catch {
    return false;
  }
}

/**
 * Spawns `args` (a script and its arguments) with `env` and the ports it should listen on, and
 * resolves once `/readyz` answers 200 on its METRICS_PORT. Its log (stderr) is kept, last lines only, for the error
 * when it does not start; nothing is printed while it is measured.
 */
export async function spawnApp(args: string[], env: Record<string, string>): Promise<AppProcess> {
  const port = await freePort();
  const metricsPort = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...imageEnv(),
      ...env,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    tail = (tail + text).slice(-4_000);
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const metricsUrl = `http://127.0.0.1:${metricsPort}`;
  let exited: number | null = null;
  child.once('exit', (code) => {
    exited = code ?? -1;
  });
  for (;;) {
    if (exited !== null)
      throw new Error(`${args.join(' ')} exited with ${exited} before it was ready:\n${tail}`);
    if (await readyz(metricsUrl)) break;
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
    metricsUrl,
    child,
    readyMs: performance.now() - started,
    stop: () => stopChild(child),
  };
}

/** Wall time, and the CPU time of the process (all its threads, user and system). */
interface StartSample {
  wallMs: number;
  cpuMs: number;
}

/** What a script run with `-e` ends with, so that its CPU time can be read after it exits. */
const PRINT_CPU = 'process.stdout.write(JSON.stringify(process.cpuUsage()));';
const CpuUsageSchema = z.object({ user: z.number(), system: z.number() });

/** Spawn to exit of `node ARGS… -e SCRIPT`: `-e ''` is what any Node process costs. */
async function spawnToExit(args: string[], script: string): Promise<StartSample> {
  const started = performance.now();
  const child = spawn(process.execPath, [...args, '-e', `${script}\n${PRINT_CPU}`], {
    cwd: REPO,
    env: { ...process.env, ...imageEnv() },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => {
    out += text;
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`node ${args.join(' ')} -e … exited with ${code}`);
  const cpu = CpuUsageSchema.parse(JSON.parse(out));
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** CPU time a running process has used so far, from /proc (Linux); NaN elsewhere. */
async function cpuMsOf(pid: number | undefined): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name: state is 3rd, utime 14th and stime 15th (clock ticks).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** USER_HZ: 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** The modules HTTP mode loads before it listens (main.ts imports them once the mode is known). */
const HTTP_MODE_MODULES = [
  'src/runtime/runtime.ts',
  'src/slack/app.ts',
  'src/slack/bot-token.ts',
  'src/slack/groups.ts',
  'src/slack/surface.ts',
  // What main.ts itself imports before it knows the mode.
  'src/config.ts',
  'src/telemetry/log.ts',
  'src/policy/store.ts',
];

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

const list = (samples: readonly StartSample[], key: keyof StartSample) =>
  samples.map((sample) => Math.round(sample[key])).join('/');

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
  // Importing main.js would start the bot: this side loads what HTTP mode loads, and stops there.
  const importsOnly = (path: (file: string) => string) =>
    `await Promise.all(${JSON.stringify(HTTP_MODE_MODULES.map((file) => pathToFileURL(path(file)).href))}.map((url) => import(url)));`;
  const tsxLoader = ['--import', import.meta.resolve('tsx')];
  const sides = {
    node: [] as StartSample[],
    compiled: [] as StartSample[],
    compiledImports: [] as StartSample[],
    tsx: [] as StartSample[],
    tsxImports: [] as StartSample[],
  };
  try {
    const measure = async (args: string[], run: number): Promise<StartSample> => {
      const env = appEnv({
        slackApiUrl: fake.apiUrl,
        platform,
        stateDatabaseUrl: `file:${join(dir, `state-${run}-${args.length}.db`)}`,
      });
      const app = await spawnApp(args, env);
      const cpuMs = await cpuMsOf(app.child.pid);
      await app.stop();
      return { wallMs: app.readyMs, cpuMs };
    };
    log(`startup: load average (1, 5, 15 min) before: ${load()}`);
    // Alternating, so a burst of other work on the machine touches every side alike.
    for (let run = 0; run < RUNS; run++) {
      sides.node.push(await spawnToExit(['--input-type=module'], ''));
      sides.compiled.push(await measure([compiled.script('src/main.ts')], run));
      sides.compiledImports.push(
        await spawnToExit(
          ['--input-type=module'],
          importsOnly((file) => compiled.script(file)),
        ),
      );
      sides.tsx.push(await measure([...tsxLoader, join(REPO, 'src/main.ts')], run));
      sides.tsxImports.push(
        await spawnToExit(
          [...tsxLoader, '--input-type=module'],
          importsOnly((file) => join(REPO, file)),
        ),
      );
      const at = (samples: StartSample[]) =>
        `${Math.round(samples[run]!.wallMs)} ms (CPU ${Math.round(samples[run]!.cpuMs)})`;
      log(
        `startup run ${run + 1}: node -e '' ${at(sides.node)}; compiled ${at(sides.compiled)}, its imports ${at(sides.compiledImports)}; tsx ${at(sides.tsx)}, its imports ${at(sides.tsxImports)}; load ${load()}`,
      );
    }
    for (const key of ['wallMs', 'cpuMs'] as const)
      log(
        `startup ${key === 'wallMs' ? 'wall' : 'CPU'} ms: node -e '' ${list(sides.node, key)}; compiled ${list(sides.compiled, key)} (imports ${list(sides.compiledImports, key)}); tsx ${list(sides.tsx, key)} (imports ${list(sides.tsxImports, key)})`,
      );
    log(`startup: load average after: ${load()}`);
    const row = (figure: string, samples: StartSample[], key: keyof StartSample): BenchRow => {
      const value = median(samples.map((sample) => sample[key]));
      const baseline = median(sides.node.map((sample) => sample[key]));
      return {
        figure: `${figure} (${key === 'wallMs' ? 'wall' : 'CPU'} ms, median of ${RUNS})`,
        value: Math.round(value),
        baseline: Math.round(baseline),
        ratio: value / baseline,
        target: "reported against node -e ''",
        pass: true,
      };
    };
    const rows: BenchRow[] = [];
    for (const key of ['wallMs', 'cpuMs'] as const)
      rows.push(
        row('start-up to /readyz 200, compiled', sides.compiled, key),
        row("  of which: loading HTTP mode's modules", sides.compiledImports, key),
        row('start-up to /readyz 200, npm start under tsx', sides.tsx, key),
        row("  of which: loading HTTP mode's modules under tsx", sides.tsxImports, key),
      );
    return rows;
  } finally {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
    await compiled.remove();
  }
}

if (isMain(import.meta.url)) {
  console.table(await benchStartup((line) => process.stderr.write(`${line}\n`)));
}
