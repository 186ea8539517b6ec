/**
 * `/edge stats` end to end on a 7-day hourly window (the zone checked, the window and the one
 * before it read at once, three charts drawn in the report worker, the CSV written) against one
 * `GET /statistics` of the same window alone, read and parsed by the same client. The sandbox
 * answers in microseconds, where the platform takes a network round trip and its own query: both
 * sides get the same added platform latency, so the ratio is the bot's overhead over the call it
 * cannot avoid. Run alone: `npx tsx bench/stats.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMain } from './child.js';
import type { BenchRow } from './types.js';

const TARGET = 1.5;
/** What a statistics call of the platform is taken to cost beyond the sandbox's own time. */
const PLATFORM_LATENCY_MS = 250;
const RUNS = 9;
const WEEK_MS = 7 * 86_400_000;

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

export async function benchStats(log: (line: string) => void = () => undefined): Promise<BenchRow[]> {
  // Imported here, not at the top: loading the bench table must not start a sandbox.
  const { loadConfig } = await import('../src/config.js');
  const { createRuntime } = await import('../src/runtime/runtime.js');
  const { startSandbox } = await import('../src/sandbox/server.js');
  const { SecretRegistry } = await import('../src/secrets/registry.js');
  const { createLogger } = await import('../src/telemetry/log.js');
  const { systemClock } = await import('../src/time/clock.js');
  const sandbox = await startSandbox({ now: systemClock });
  const dir = mkdtempSync(join(tmpdir(), 'edgeops-bench-stats-'));
  const config = loadConfig({
    PLATFORM_API_URL: sandbox.apiUrl,
    PLATFORM_API_KEY: sandbox.apiKey,
    PLATFORM_LOGGING_URL: sandbox.loggingUrl,
    PLATFORM_DATABASE_API_URL: sandbox.databaseApiUrl,
    STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
  });
  const secrets = new SecretRegistry();
  const runtime = await createRuntime({
    config,
    platform: config.platform!,
    secrets,
    logger: createLogger({ level: 'warn', secrets, clock: systemClock, write: () => undefined }),
    now: systemClock,
    fetchGroupMembers: async () => [],
  });
  let answered = 0;
  const surface = {
    respond: async () => {
      answered++;
      return undefined;
    },
    postToChannel: async () => ({ channelId: 'C0BENCH', ts: '1.000001' }),
    permalink: async () => undefined,
    update: async () => undefined,
    sendDirect: async () => ({ channelId: 'D0BENCH', ts: '1.000002' }),
    deleteMessage: async () => undefined,
    openModal: async () => undefined,
    openPanel: async () => undefined,
  };
  const command = async (channel: number) => {
    const started = performance.now();
    const before = answered;
    await runtime.engine
      .plan({ userId: 'U0BENCH', channelId: `C0BENCH${channel}`, text: 'stats 308006 --last 7d', surface })
      .run();
    if (answered !== before + 1) throw new Error('the command gave no answer');
    return performance.now() - started;
  };
  const call = async () => {
    const started = performance.now();
    const now = systemClock();
    const stats = await runtime.services.platform.getStatistics({
      pullZoneId: 308006,
      fromMs: now - WEEK_MS,
      toMs: now,
    });
    if (stats.points.length < 168) throw new Error(`only ${stats.points.length} points`);
    return performance.now() - started;
  };
  try {
    const measure = async (latencyMs: number) => {
      if (latencyMs > 0) sandbox.faults.set('statistics', { delayMs: latencyMs });
      else sandbox.faults.clear('statistics');
      await call();
      await command(0);
      const calls: number[] = [];
      const commands: number[] = [];
      // Alternated, so that both sides see the same machine.
      for (let run = 1; run <= RUNS; run++) {
        calls.push(await call());
        commands.push(await command(run));
      }
      return { call: median(calls), command: median(commands) };
    };
    const bare = await measure(0);
    log(
      `stats: on the bare sandbox, one GET /statistics ${bare.call.toFixed(1)} ms, /edge stats ${bare.command.toFixed(1)} ms (the bot's own work: ${(bare.command - bare.call).toFixed(0)} ms)`,
    );
    const real = await measure(PLATFORM_LATENCY_MS);
    const ratio = real.command / real.call;
    return [
      {
        figure: `/edge stats, 7-day hourly window, end to end (ms, platform latency ${PLATFORM_LATENCY_MS} ms)`,
        value: Math.round(real.command),
        baseline: Math.round(real.call),
        ratio,
        target: `≤ ${TARGET}× one GET /statistics`,
        pass: ratio <= TARGET,
      },
    ];
  } finally {
    await runtime.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) console.table(await benchStats((line) => console.log(line)));
