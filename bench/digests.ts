/**
 * Issue 32's row: ten digests of ten pull zones with 1,000,000 entries a day, all due at the same
 * minute, against the same ten summaries (what `/edge logs` reads and draws) back to back (target ≤ 1.5×), and
 * the peak RSS of the process that posts the digests (target < 400 MB): they queue on the report
 * pool instead of stampeding. The sandbox serves the days from this process; each side is the bot
 * alone, in a process of its own, run from compiled JavaScript as in production (compiled.ts).
 * Run alone: `npx tsx bench/digests.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Surface } from '../src/operations/engine/ports.js';
import type { Reply } from '../src/reply/model.js';
import { isMain, measureInChild, reportMeasurement } from './child.js';
import type { BenchRow, ChildMeasurement } from './types.js';

const ZONES = Array.from({ length: 10 }, (_, index) => 400_001 + index);
const ENTRIES = Number(process.env.EDGEOPS_BENCH_DIGEST_ENTRIES ?? 1_000_000);
const TARGET_RATIO = 1.5;
const TARGET_RSS_MB = 400;
const MB = 1024 * 1024;
/** The digests are due at 00:00 UTC: each covers the day before, one day of logs. */
const DUE_MS = Date.parse('2026-11-22T00:00:00.000Z');
const SET_AT_MS = DUE_MS - 3_600_000;

type Side = 'digests' | 'summaries';
const SIDES: readonly Side[] = ['summaries', 'digests'];
const ROUNDS = Number(process.env.EDGEOPS_BENCH_DIGEST_ROUNDS ?? 3);

/** The mean time of a side's rounds, its largest peak RSS, and whether every round posted all ten. */
const meanOf = (runs: readonly ChildMeasurement[]): ChildMeasurement => ({
  ms: runs.reduce((sum, run) => sum + run.ms, 0) / runs.length,
  peakRssBytes: Math.max(...runs.map((run) => run.peakRssBytes)),
  detail: { posted: Math.min(...runs.map((run) => run.detail?.posted ?? 0)) },
});

const channelOf = (index: number) => `C0BENCH${index}`;

/** A surface that counts what reaches a channel and removes the files an adapter would have uploaded. */
function countingSurface(posted: Set<string>): Surface {
  const drop = async (reply: Reply) => {
    const files = [reply, ...(reply.thread ?? [])].flatMap((part) => part.files ?? []);
    await Promise.all(files.map((file) => (file.path ? rm(file.path, { force: true }) : undefined)));
  };
  const ref = { channelId: 'C0BENCH', ts: '1.000001' };
  return {
    async respond(reply) {
      await drop(reply);
      return undefined;
    },
    async postToChannel(channelId, reply) {
      if (reply.thread?.length) posted.add(channelId);
      await drop(reply);
      return { ...ref, channelId };
    },
    permalink: async () => undefined,
    update: async (_ref, reply) => drop(reply),
    sendDirect: async (_user, reply) => {
      await drop(reply);
      return ref;
    },
    deleteMessage: async () => undefined,
    openModal: async () => undefined,
    openPanel: async () => undefined,
  };
}

/** One side, in this process: the ten zones' day read and posted, timed from the moment they are due. */
async function runSide(side: Side): Promise<void> {
  const { loadConfig } = await import('../src/config.js');
  const { createRuntime } = await import('../src/runtime/runtime.js');
  const { SecretRegistry } = await import('../src/secrets/registry.js');
  const { createLogger } = await import('../src/telemetry/log.js');
  const dir = mkdtempSync(join(tmpdir(), 'edgeops-bench-digests-'));
  let nowMs = SET_AT_MS;
  const now = () => nowMs;
  const config = loadConfig({
    PLATFORM_API_URL: process.env.BENCH_PLATFORM_API_URL,
    PLATFORM_API_KEY: process.env.BENCH_PLATFORM_API_KEY,
    PLATFORM_LOGGING_URL: process.env.BENCH_PLATFORM_LOGGING_URL,
    STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
    EDGEOPS_LOG_CACHE_DIR: join(dir, 'log-cache'),
    EDGEOPS_MAX_DIGESTS_PER_USER: String(ZONES.length),
  });
  const secrets = new SecretRegistry();
  const runtime = await createRuntime({
    config,
    platform: config.platform!,
    secrets,
    logger: createLogger({ level: 'warn', secrets, clock: now, write: () => undefined }),
    now,
    fetchGroupMembers: async () => [],
    digestTickMs: 3_600_000,
  });
  const posted = new Set<string>();
  const surface = countingSurface(posted);
  const ask = (text: string, index: number) =>
    runtime.engine.plan({ userId: 'U0BENCH', channelId: channelOf(index), text, surface }).run();
  try {
    let ms: number;
    if (side === 'digests') {
      runtime.digestRunner.start(surface);
      for (const [index, zone] of ZONES.entries()) await ask(`digest logs ${zone} --at 00:00`, index);
      nowMs = DUE_MS;
      const started = performance.now();
      await runtime.digestRunner.tick();
      ms = performance.now() - started;
    } else {
      // The same ten summaries, read and drawn one after the other, without a long job's progress
      // messages (whose pauses for Slack would make the baseline slower than the work).
      const { readOriginWindow } = await import('../src/operations/logs/logs.js');
      const { renderOriginHeadline } = await import('../src/operations/logs/render.js');
      nowMs = DUE_MS;
      const window = { kind: 'range' as const, startMs: DUE_MS - 86_400_000, endMs: DUE_MS };
      const job = { signal: new AbortController().signal, status: () => undefined };
      const started = performance.now();
      for (const [index, zone] of ZONES.entries()) {
        const result = await readOriginWindow(
          runtime.services,
          { pullZoneId: zone, window, title: 'the day before', requester: 'U0BENCH' },
          job,
        );
        await surface.postToChannel(channelOf(index), renderOriginHeadline(result));
      }
      ms = performance.now() - started;
    }
    reportMeasurement({ ms, detail: { posted: posted.size } });
  } finally {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchDigests(log: (line: string) => void = () => undefined): Promise<BenchRow[]> {
  // Imported here, not at the top: the measured sides load this module and must not load TypeScript.
  const { compileForBench } = await import('./compiled.js');
  const { startSandbox } = await import('../src/sandbox/server.js');
  const compiled = await compileForBench();
  // The sandbox's clock stands at the minute the digests are due, as the bot's does when they run.
  const sandbox = await startSandbox({ now: () => DUE_MS });
  try {
    // The day before the one summarised holds nothing: each summary reads one day of ENTRIES.
    sandbox.knobs.setLogDaysKept(1);
    for (const zone of ZONES) sandbox.knobs.setLogDay(zone, ENTRIES);
    const env = {
      BENCH_PLATFORM_API_URL: sandbox.apiUrl,
      BENCH_PLATFORM_API_KEY: sandbox.apiKey,
      BENCH_PLATFORM_LOGGING_URL: sandbox.loggingUrl,
    };
    const measure = (side: Side): Promise<ChildMeasurement> =>
      measureInChild(compiled.script('bench/digests.ts'), ['--side', side], env);
    // Rounds in alternating order: the side that goes first also warms the sandbox that serves both.
    const runs: Record<Side, ChildMeasurement[]> = { summaries: [], digests: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const side of round % 2 === 0 ? SIDES : [...SIDES].reverse()) {
        const measured = await measure(side);
        runs[side].push(measured);
        log(
          `digests round ${round + 1}, ${side}: ${Math.round(measured.ms)} ms, peak RSS ${Math.round(measured.peakRssBytes / MB)} MB, ${measured.detail?.posted} with a thread`,
        );
      }
    const summaries = meanOf(runs.summaries);
    const digests = meanOf(runs.digests);
    const mb = (bytes: number) => Math.round(bytes / MB);
    log(
      `digests: ${ZONES.length} zones of ${ENTRIES.toLocaleString('en-US')} entries, mean of ${ROUNDS}: back to back ${Math.round(summaries.ms)} ms (peak RSS ${mb(summaries.peakRssBytes)} MB), as digests due at one minute ${Math.round(digests.ms)} ms (peak RSS ${mb(digests.peakRssBytes)} MB); ${sandbox.requests.count('logs.origin')} day downloads in all`,
    );
    const ratio = digests.ms / summaries.ms;
    return [
      {
        figure: `ten digests of ten ${ENTRIES.toLocaleString('en-US')}-entry zones due at one minute, mean of ${ROUNDS} (ms)`,
        value: Math.round(digests.ms),
        baseline: Math.round(summaries.ms),
        ratio,
        target: `≤ ${TARGET_RATIO}× the ten summaries back to back`,
        pass: ratio <= TARGET_RATIO && digests.detail?.posted === ZONES.length,
      },
      {
        figure: `peak RSS while those ten digests are posted, largest of ${ROUNDS} (MB)`,
        value: mb(digests.peakRssBytes),
        baseline: mb(summaries.peakRssBytes),
        ratio: digests.peakRssBytes / summaries.peakRssBytes,
        target: `< ${TARGET_RSS_MB} MB`,
        pass: digests.peakRssBytes < TARGET_RSS_MB * MB,
      },
    ];
  } finally {
    await sandbox.close();
    await compiled.remove();
  }
}

if (isMain(import.meta.url)) {
  const [flag, side] = process.argv.slice(2);
  if (flag === '--side' && (side === 'digests' || side === 'summaries')) await runSide(side);
  else {
    const rows = await benchDigests((line) => process.stderr.write(`${line}\n`));
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  }
}
