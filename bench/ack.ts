/**
 * PRODUCT §8, acknowledgement latency of signed `/edge help` at 100 concurrent requests:
 * - ack: the bot (HTTP mode, fake Slack, sandbox) against a bare Bolt app that only acks,
 *   same load, same run; reported, since a saturating closed loop measures CPU per request
 *   (ack-open.ts measures what a user waits for, against its target).
 * - ack-under-load: the bot's p99 while it processes `/edge logs` of a 1,000,000-entry day and
 *   `/edge shield export` of 200 MB (the sandbox's big pull zone and Shield zone), within 1.5×
 *   its idle p99 of the same run, in rounds of idle then loaded. The bare Bolt app is sent a
 *   Poisson stream of its own at the same moments: its ratio is what the shared cores alone cost
 *   an ack. Every stream is Poisson arrivals at 100/s (ack-open.ts): a closed
 *   loop sends as fast as acks come back, and the bot's receiving thread acknowledges however
 *   far behind its main thread is, so a closed loop would flood the main thread with help
 *   answers and starve the very work this measures beside.
 * Every party has a process of its own: the bot and the bare app (compiled JavaScript, see
 * compiled.ts), the sandbox, and the fake Slack, which receives the replies and the uploads.
 * This process only sends the load, with undici, on 127.0.0.1, bounded in count and time.
 * Run alone: `npx tsx bench/ack.ts [ack|ack-under-load]`; `--serve bare|slack` is a server side.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { z } from 'zod';
import { isMain } from './child.js';
import type { CompiledTree } from './compiled.js';
import {
  type AppProcess,
  appEnv,
  BENCH_BOT_TOKEN,
  BENCH_SIGNING_SECRET,
  median,
  type SandboxProcess,
  spawnApp,
  startSandboxProcess,
  stopChild,
} from './startup.js';
import type { BenchRow } from './types.js';

const CONCURRENCY = 100;
const WARM_UP = 200;
/** Requests per side and round; the rounds alternate sides. */
const ROUND = 500;
const ROUNDS = 4;
/** ack-under-load: requests per side in each round's idle spell. */
const IDLE_PER_ROUND = 1_000;
/** ack-under-load's offered rate, idle and under load: the open-loop target rate. */
const LOADED_RATE = 100;
/** Under load: the heavy work runs this many times, each after an idle spell of the same rate. */
const LOADED_ROUNDS = 3;
/** Under load: slices of this many requests per side keep coming until the heavy work is done. */
const LOADED_SLICE = 100;
/** Each round's heavy work must finish within this. */
const LOADED_MAX_MS = 240_000;
/** Fewer acks while a round's work ran than this, per side, and that round hardly loaded anything. */
const LOADED_MIN_ACKS_PER_ROUND = 500;
/** The pause before each later round's idle spell. */
const SETTLE_MS = 2_000;
/** No batch may run longer than this, whatever the server does. */
const BATCH_DEADLINE_MS = 60_000;

const BIG_PULL_ZONE = 900001;
const BIG_SHIELD_ZONE = 5900;

/** Nearest-rank percentile of `values` (0 < p ≤ 1). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

export interface LoadResult {
  /** Acknowledgement time of each answered request, ms. */
  latencies: number[];
  /** When each answered request was sent (performance.now()). */
  sentAt: number[];
  /** Requests that failed or were not answered 200. */
  failures: number;
  /** Requests acknowledged with a body: the bot's "too busy, not run" (threaded-receiver.ts). */
  refused: number;
}

/** Keep-alive connections to one server, opened once so that connecting is not what is measured. */
export function connect(url: string, concurrency = CONCURRENCY): { pool: Pool; path: string } {
  const target = new URL(url);
  return {
    pool: new Pool(target.origin, { connections: concurrency, pipelining: 1 }),
    path: target.pathname,
  };
}

/**
 * Sends every request, at most `concurrency` at a time, over the pool's connections; stops
 * sending at `deadlineMs` after the start.
 */
export async function sendLoad(
  target: { pool: Pool; path: string },
  requests: readonly SignedRequest[],
  concurrency = CONCURRENCY,
  deadlineMs = BATCH_DEADLINE_MS,
): Promise<LoadResult> {
  const result: LoadResult = { latencies: [], sentAt: [], failures: 0, refused: 0 };
  const deadline = performance.now() + deadlineMs;
  let next = 0;
  const worker = async () => {
    while (next < requests.length && performance.now() < deadline) {
      const request = requests[next++]!;
      const sent = performance.now();
      try {
        const response = await target.pool.request({
          path: target.path,
          method: 'POST',
          headers: request.headers,
          body: request.body,
          headersTimeout: 30_000,
          bodyTimeout: 30_000,
        });
        const body = await response.body.text();
        if (response.statusCode !== 200) result.failures++;
        else if (body !== '') result.refused++;
        else {
          result.latencies.push(performance.now() - sent);
          result.sentAt.push(sent);
        }
      } catch {
        result.failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return result;
}

const SlackReadySchema = z.object({ type: z.literal('ready'), apiUrl: z.string(), url: z.string() });
const UploadsSchema = z.object({
  type: z.literal('uploads'),
  files: z.array(z.object({ filename: z.string(), bytes: z.number() })),
});
const AnswersSchema = z.object({ type: z.literal('answers'), count: z.number(), bytes: z.number() });

/** The fake Slack in a process of its own, and signed `/edge …` requests whose answers go to it. */
async function slackSide() {
  const { slashCommand } = await import('../test/support/payloads.js');
  const { signSlackRequest } = await import('../test/support/signer.js');
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), fileURLToPath(import.meta.url), '--serve', 'slack'],
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  const message = <T>(schema: z.ZodType<T>) =>
    new Promise<T>((resolve, reject) => {
      const listen = (raw: unknown) => {
        const parsed = schema.safeParse(raw);
        if (!parsed.success) return;
        child.off('message', listen);
        resolve(parsed.data);
      };
      child.on('message', listen);
      child.once('exit', (code) => reject(new Error(`the fake Slack exited with ${code}`)));
    });
  const ready = await message(SlackReadySchema);
  let sent = 0;
  const commands = (count: number, text = 'help', channelId?: string): SignedRequest[] =>
    Array.from({ length: count }, () => {
      const responseUrl = `${ready.url}/response/bench-${++sent}`;
      const { body, contentType } = slashCommand({ text, responseUrl, ...(channelId ? { channelId } : {}) });
      return {
        body,
        headers: signSlackRequest({ signingSecret: BENCH_SIGNING_SECRET, body, contentType }),
      };
    });
  return {
    apiUrl: ready.apiUrl,
    commands,
    /** The files the bot uploaded so far. */
    async uploads() {
      const answer = message(UploadsSchema);
      child.send({ type: 'uploads' });
      return (await answer).files;
    },
    /** How many response_url posts arrived so far, and their bytes in all (as JSON). */
    async answers() {
      const answer = message(AnswersSchema);
      child.send({ type: 'answers' });
      const { count, bytes } = await answer;
      return { count, bytes };
    },
    stop: () => stopChild(child),
  };
}

interface Rig {
  sandbox: SandboxProcess;
  slack: Awaited<ReturnType<typeof slackSide>>;
  dir: string;
  compiled: CompiledTree;
  close(): Promise<void>;
}

async function startRig(): Promise<Rig> {
  const { compileForBench } = await import('./compiled.js');
  const compiled = await compileForBench();
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-bench-ack-'));
  const cleanUp = async () => {
    await rm(dir, { recursive: true, force: true });
    await compiled.remove();
  };
  const sandbox = await startSandboxProcess(compiled).catch(async (error: unknown) => {
    await cleanUp();
    throw error;
  });
  const slack = await slackSide().catch(async (error: unknown) => {
    await sandbox.stop();
    await cleanUp();
    throw error;
  });
  return {
    sandbox,
    slack,
    dir,
    compiled,
    async close() {
      await slack.stop();
      await sandbox.stop();
      await cleanUp();
    },
  };
}

/**
 * The bot as `npm start` runs it (compiled), the bare Bolt app of this file, or the bare app
 * that also posts an answer of `answerBytes` to each command's response_url.
 */
function startServer(rig: Rig, side: 'real' | 'bare' | 'answering', answerBytes = 0): Promise<AppProcess> {
  const env = {
    ...appEnv({
      slackApiUrl: rig.slack.apiUrl,
      platform: rig.sandbox.env,
      stateDatabaseUrl: `file:${join(rig.dir, `state-${side}.db`)}`,
    }),
    ...(side === 'answering' ? { BENCH_ANSWER_BYTES: String(answerBytes) } : {}),
  };
  // EDGEOPS_BENCH_PROFILE=DIR writes a CPU profile of each side there when it stops.
  const profile = process.env.EDGEOPS_BENCH_PROFILE;
  const args = [
    ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`, `--cpu-prof-name=${side}.cpuprofile`] : []),
    ...(side === 'real'
      ? [rig.compiled.script('src/main.ts')]
      : [rig.compiled.script('bench/ack.ts'), '--serve', 'bare']),
  ];
  return spawnApp(args, env);
}

const ms = (value: number) => Math.round(value * 10) / 10;

/** The bot and the bare Bolt app side by side, with signed `/edge` commands for either (ack-open.ts). */
export async function ackRig(): Promise<{
  urls: Record<'real' | 'bare', string>;
  commands(count: number, text?: string): SignedRequest[];
  /** Response_url posts received so far, and their bytes in all. */
  answers(): Promise<{ count: number; bytes: number }>;
  /** Starts the bare app that also posts an answer of this many bytes to each response_url. */
  startAnswering(answerBytes: number): Promise<string>;
  close(): Promise<void>;
}> {
  const rig = await startRig();
  const servers: AppProcess[] = [];
  const close = async () => {
    for (const server of servers) await server.stop();
    await rig.close();
  };
  try {
    servers.push(await startServer(rig, 'real'));
    servers.push(await startServer(rig, 'bare'));
  } catch (error) {
    await close();
    throw error;
  }
  return {
    urls: { real: servers[0]!.eventsUrl, bare: servers[1]!.eventsUrl },
    commands: rig.slack.commands,
    answers: rig.slack.answers,
    async startAnswering(answerBytes) {
      const server = await startServer(rig, 'answering', answerBytes);
      servers.push(server);
      return server.eventsUrl;
    },
    close,
  };
}

export async function benchAck(log: (line: string) => void = () => undefined): Promise<BenchRow[]> {
  const rig = await startRig();
  const servers: AppProcess[] = [];
  try {
    const real = await startServer(rig, 'real');
    servers.push(real);
    const bare = await startServer(rig, 'bare');
    servers.push(bare);
    const sides = { real: connect(real.eventsUrl), bare: connect(bare.eventsUrl) };
    const rounds = { real: [] as number[][], bare: [] as number[][] };
    let failures = 0;
    let refused = 0;
    for (const side of ['bare', 'real'] as const)
      failures += (await sendLoad(sides[side], rig.slack.commands(WARM_UP))).failures;
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating, so a burst of other work on the machine touches both sides alike.
      for (const side of round % 2 ? (['real', 'bare'] as const) : (['bare', 'real'] as const)) {
        const result = await sendLoad(sides[side], rig.slack.commands(ROUND));
        rounds[side].push(result.latencies);
        failures += result.failures;
        refused += result.refused;
      }
    }
    await Promise.all([sides.real.pool.close(), sides.bare.pool.close()]);
    // Each side's figure is the median of its rounds: a stall of this shared machine during one
    // round (it holds 100 requests at once, a whole p99) then moves neither side's figure.
    const figure = (side: 'real' | 'bare', q: number) =>
      median(rounds[side].map((latencies) => percentile(latencies, q)));
    const pooled = (side: 'real' | 'bare', q: number) => ms(percentile(rounds[side].flat(), q));
    log(
      `ack: ${ROUNDS} rounds of ${ROUND} per side at ${CONCURRENCY} concurrent; p99 per round: bot ` +
        `${rounds.real.map((l) => ms(percentile(l, 0.99))).join('/')} ms, bare Bolt ${rounds.bare.map((l) => ms(percentile(l, 0.99))).join('/')} ms; ` +
        `all ${ROUND * ROUNDS} together: bot p50 ${pooled('real', 0.5)} ms, p99 ${pooled('real', 0.99)} ms, ` +
        `bare Bolt p50 ${pooled('bare', 0.5)} ms, p99 ${pooled('bare', 0.99)} ms; ${failures} failed, ${refused} answered as busy`,
    );
    const p99 = figure('real', 0.99) / figure('bare', 0.99);
    const p50 = figure('real', 0.5) / figure('bare', 0.5);
    return [
      {
        figure: `/edge help ack p99 at ${CONCURRENCY} concurrent (closed loop), bot vs bare Bolt (ms, median of ${ROUNDS} rounds)`,
        value: ms(figure('real', 0.99)),
        baseline: ms(figure('bare', 0.99)),
        ratio: p99,
        // A saturating closed loop measures CPU per request, not a user's wait: ack-open has the
        // target. The bot's thread acks before the answer's work, whose queue it bounds.
        target: 'reported; every request answered, none as busy',
        pass: failures === 0 && refused === 0,
      },
      {
        figure: `/edge help ack p50 at ${CONCURRENCY} concurrent, bot vs bare Bolt (ms, median of ${ROUNDS} rounds)`,
        value: ms(figure('real', 0.5)),
        baseline: ms(figure('bare', 0.5)),
        ratio: p50,
        target: 'reported',
        pass: true,
      },
    ];
  } finally {
    for (const server of servers) await server.stop();
    await rig.close();
  }
}

/**
 * Sends `/edge logs` for the big pull zone and `/edge shield export` for the big Shield zone to the
 * bot, and resolves when both have finished (their audit rows say so; `finishedBefore` rows of
 * earlier rounds are already there) with when that was seen.
 */
async function heavyWork(
  rig: Rig,
  real: AppProcess,
  finishedBefore: number,
  log: (line: string) => void,
): Promise<number> {
  const { createClient } = await import('@libsql/client');
  // A channel of its own per round: the same `/edge logs` in one channel within the minute
  // would join the last round's answer (logs.ts, answerShared) instead of doing the work.
  const channel = `CBENCH${finishedBefore}`;
  const commands = [
    // Yesterday: a whole million-entry day whatever the hour, where today ends at the clock's now.
    ...rig.slack.commands(1, `logs ${BIG_PULL_ZONE} yesterday`, channel),
    ...rig.slack.commands(1, `shield export ${BIG_SHIELD_ZONE} --last 1h`, channel),
  ];
  const started = performance.now();
  const target = connect(real.eventsUrl, 2);
  const sent = await sendLoad(target, commands, 2);
  await target.pool.close();
  if (sent.failures > 0) throw new Error('the bot did not acknowledge /edge logs or /edge shield export');
  const state = createClient({ url: `file:${join(rig.dir, 'state-real.db')}` });
  try {
    for (;;) {
      const done = await state.execute(
        `SELECT operation, outcome FROM audit_log WHERE operation IN ('logs.origin', 'shield.export')
           AND outcome NOT IN ('started', 'requested') ORDER BY id`,
      );
      if (done.rows.length >= finishedBefore + 2) {
        const doneAt = performance.now();
        const rows = done.rows.slice(finishedBefore);
        const outcomes = rows.map((row) => `${String(row.operation)} ${String(row.outcome)}`);
        const files = (await rig.slack.uploads()).map(
          (file) => `${file.filename} ${(file.bytes / 1e6).toFixed(0)} MB`,
        );
        log(
          `ack-under-load: ${outcomes.join(', ')} after ${Math.round(doneAt - started)} ms; uploaded ${files.join(', ') || 'nothing'}`,
        );
        if (rows.some((row) => row.outcome !== 'succeeded'))
          throw new Error(`the heavy work did not succeed: ${outcomes.join(', ')}`);
        return doneAt;
      }
      if (performance.now() - started > LOADED_MAX_MS)
        throw new Error('the heavy work did not finish in time');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    state.close();
  }
}

/** The machine's CPU time so far, busy and in all (Linux's /proc/stat); undefined elsewhere. */
function machineCpu(): { busy: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const busy = [user, nice, system, irq, softirq, steal].reduce((sum: number, v) => sum + (v ?? 0), 0);
    return { busy, total: busy + (idle ?? 0) + (iowait ?? 0) };
  } catch {
    return undefined;
  }
}

/**
 * Samples how many threads are runnable (Linux's procs_running, this sampler left out) every
 * 10 ms; `stop` gives the share of samples with more than there are cores, when some wait for one.
 */
function sampleRunQueue(): { stop(): number | undefined } {
  const cores = cpus().length;
  let samples = 0;
  let over = 0;
  const timer = setInterval(() => {
    try {
      const match = /^procs_running (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
      if (!match) return;
      samples++;
      if (Number(match[1]) - 1 > cores) over++;
    } catch {
      // Not Linux: nothing to sample.
    }
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      return samples > 0 ? over / samples : undefined;
    },
  };
}

/** The share of the machine's CPU time that was busy between two readings. */
function cpuBusyShare(
  before: ReturnType<typeof machineCpu>,
  after: ReturnType<typeof machineCpu>,
): number | undefined {
  if (!before || !after || after.total <= before.total) return undefined;
  return (after.busy - before.busy) / (after.total - before.total);
}

type Side = 'real' | 'bare';
const SIDES: readonly Side[] = ['real', 'bare'];

/** Both sides at once, each its own Poisson stream at `rate`: the same moments of the machine. */
async function openLoopBoth(
  rig: Rig,
  targets: Record<Side, { pool: Pool; path: string }>,
  count: number,
  rate: number,
): Promise<Record<Side, LoadResult>> {
  const { sendOpenLoop } = await import('./ack-open.js');
  const [real, bare] = await Promise.all(
    SIDES.map((side) => sendOpenLoop(targets[side], rig.slack.commands(count), rate)),
  );
  return { real: real!, bare: bare! };
}

const emptyLoad = (): LoadResult => ({ latencies: [], sentAt: [], failures: 0, refused: 0 });

function addLoad(into: LoadResult, from: LoadResult, sentBefore = Number.POSITIVE_INFINITY): void {
  from.latencies.forEach((latency, i) => {
    if (from.sentAt[i]! >= sentBefore) return;
    into.latencies.push(latency);
    into.sentAt.push(from.sentAt[i]!);
  });
  into.failures += from.failures;
  into.refused += from.refused;
}

/**
 * The bot's ack p99 at 100/s while it summarises a 1,000,000-entry day and exports 200 MB, against
 * its idle p99; and the same for the bare Bolt app, sent its own Poisson stream at the same moments.
 * The bare app does none of the work, so its ratio is what the machine's shared cores alone cost
 * an ack: the floor under the bot's ratio.
 */
export async function benchAckUnderLoad(log: (line: string) => void = () => undefined): Promise<BenchRow[]> {
  const rig = await startRig();
  const servers: AppProcess[] = [];
  try {
    const real = await startServer(rig, 'real');
    servers.push(real);
    const bare = await startServer(rig, 'bare');
    servers.push(bare);
    const targets = { real: connect(real.eventsUrl), bare: connect(bare.eventsUrl) };
    for (const side of SIDES) await sendLoad(targets[side], rig.slack.commands(WARM_UP));
    const idle = { real: emptyLoad(), bare: emptyLoad() };
    const loaded = { real: emptyLoad(), bare: emptyLoad() };
    const over = { idle: [] as number[], loaded: [] as number[] };
    const busyShares: number[] = [];
    // Rounds of idle, then loaded: a slower moment of the machine touches both conditions.
    const perRound = { real: [] as number[], bare: [] as number[] };
    for (let round = 0; round < LOADED_ROUNDS; round++) {
      // What the last round's work left behind (collections, the fake Slack letting go of its
      // uploads) settles before the idle spell, which would otherwise look slower than idle.
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const idleQueue = sampleRunQueue();
      const quiet = await openLoopBoth(rig, targets, IDLE_PER_ROUND, LOADED_RATE);
      for (const side of SIDES) addLoad(idle[side], quiet[side]);
      const idleOver = idleQueue.stop();
      if (idleOver !== undefined) over.idle.push(idleOver);

      let heavyDoneAt = Number.POSITIVE_INFINITY;
      let heavyError: unknown;
      const heavy = heavyWork(rig, real, round * 2, log).then(
        (doneAt) => {
          heavyDoneAt = doneAt;
        },
        (error: unknown) => {
          heavyError = error;
          heavyDoneAt = performance.now();
        },
      );
      const cpuBefore = machineCpu();
      const loadedQueue = sampleRunQueue();
      const started = performance.now();
      const slices: Record<Side, LoadResult>[] = [];
      while (heavyDoneAt === Number.POSITIVE_INFINITY && performance.now() - started < LOADED_MAX_MS)
        slices.push(await openLoopBoth(rig, targets, LOADED_SLICE, LOADED_RATE));
      await heavy;
      const busy = cpuBusyShare(cpuBefore, machineCpu());
      if (busy !== undefined) busyShares.push(busy);
      const loadedOver = loadedQueue.stop();
      if (loadedOver !== undefined) over.loaded.push(loadedOver);
      if (heavyError) throw heavyError;
      // Only what was sent while the heavy work ran counts.
      for (const side of SIDES) {
        const before = loaded[side].latencies.length;
        for (const slice of slices) addLoad(loaded[side], slice[side], heavyDoneAt);
        perRound[side].push(loaded[side].latencies.length - before);
      }
    }
    await Promise.all(SIDES.map((side) => targets[side].pool.close()));
    const share = (values: number[]) =>
      values.length === 0 ? 'unknown' : values.map((value) => `${Math.round(value * 100)}%`).join('/');
    const p99 = (result: LoadResult) => percentile(result.latencies, 0.99);
    const ratio = (side: Side) => p99(loaded[side]) / p99(idle[side]);
    const unanswered = (side: Side) =>
      idle[side].failures + loaded[side].failures + idle[side].refused + loaded[side].refused;
    log(
      `ack-under-load: ${LOADED_ROUNDS} rounds; idle p99 bot ${ms(p99(idle.real))} ms, bare Bolt ${ms(p99(idle.bare))} ms ` +
        `(${idle.real.latencies.length} and ${idle.bare.latencies.length} acks); under load p50 bot ${ms(percentile(loaded.real.latencies, 0.5))} ms, ` +
        `bare Bolt ${ms(percentile(loaded.bare.latencies, 0.5))} ms; p99 bot ${ms(p99(loaded.real))} ms, bare Bolt ${ms(p99(loaded.bare))} ms ` +
        `(${perRound.real.join('/')} and ${perRound.bare.join('/')} acks while each round's work ran, Poisson ${LOADED_RATE}/s each); ` +
        `${unanswered('real')} and ${unanswered('bare')} failed or answered as busy; the machine's ${cpus().length} cores were ` +
        `${share(busyShares)} busy while the work ran, and more threads than cores were runnable in ${share(over.loaded)} ` +
        `of 10 ms samples (idle: ${share(over.idle)})`,
    );
    // Every round must have run under load long enough to count.
    const enough = SIDES.every((side) => perRound[side].every((count) => count >= LOADED_MIN_ACKS_PER_ROUND));
    return [
      {
        figure: `/edge help ack p99 at ${LOADED_RATE}/s during a 1,000,000-entry day + 200 MB export, vs idle (ms, ${LOADED_ROUNDS} rounds)`,
        value: ms(p99(loaded.real)),
        baseline: ms(p99(idle.real)),
        ratio: ratio('real'),
        target: '≤ 1.5× idle, every request answered',
        pass: ratio('real') <= 1.5 && unanswered('real') === 0 && enough,
      },
      {
        figure: `bare Bolt's ack p99 at ${LOADED_RATE}/s at the same moments, vs its idle (ms): what the shared cores cost any app`,
        value: ms(p99(loaded.bare)),
        baseline: ms(p99(idle.bare)),
        ratio: ratio('bare'),
        target: 'reported: the floor under the row above',
        pass: unanswered('bare') === 0 && enough,
      },
      {
        figure: `/edge help ack p99 at ${LOADED_RATE}/s during that work, bot vs bare Bolt at the same moments (ms)`,
        value: ms(p99(loaded.real)),
        baseline: ms(p99(loaded.bare)),
        ratio: p99(loaded.real) / p99(loaded.bare),
        target: 'reported',
        pass: true,
      },
    ];
  } finally {
    for (const server of servers) await server.stop();
    await rig.close();
  }
}

// ---------------------------------------------------------------- the server sides (child processes)

/** A Bolt app in HTTP mode whose `/edge` only acknowledges: the floor any Slack app pays. */
async function serveBare(): Promise<void> {
  const { App, HTTPReceiver, LogLevel } = await import('@slack/bolt');
  const port = Number(process.env.PORT);
  const receiver = new HTTPReceiver({
    signingSecret: process.env.SLACK_SIGNING_SECRET ?? '',
    endpoints: '/slack/events',
    port,
    processBeforeResponse: false,
  });
  const app = new App({
    receiver,
    token: process.env.SLACK_BOT_TOKEN ?? BENCH_BOT_TOKEN,
    logLevel: LogLevel.INFO,
    clientOptions: { slackApiUrl: process.env.SLACK_API_URL },
  });
  // BENCH_ANSWER_BYTES: after the ack, post a fixed answer of that size to the response_url, with
  // undici as the bot does: the least any app that answers pays on top of acknowledging.
  const answerBytes = Number(process.env.BENCH_ANSWER_BYTES ?? 0);
  const answer = answerBytes > 0 ? fixedAnswer(answerBytes) : undefined;
  const { Agent, request } = await import('undici');
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  app.command('/edge', async ({ ack, command }) => {
    await ack();
    if (!answer || !command.response_url) return;
    const response = await request(command.response_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: answer,
      dispatcher: agent,
    });
    await response.body.text();
  });
  // Exit on SIGTERM as the bot does, so that a CPU profile (EDGEOPS_BENCH_PROFILE) is written.
  process.once('SIGTERM', () => process.exit(0));
  await app.start(port);
  // Ready once Bolt listens, said on METRICS_PORT as the bot says it.
  const { createServer } = await import('node:http');
  createServer((req, res) => {
    const ready = req.url === '/readyz';
    res.writeHead(ready ? 200 : 404).end(ready ? 'ready\n' : undefined);
  }).listen(Number(process.env.METRICS_PORT));
}

/** An ephemeral answer whose JSON is `bytes` long (at least its frame). */
function fixedAnswer(bytes: number): string {
  const frame = JSON.stringify({ response_type: 'ephemeral', text: '' });
  return JSON.stringify({ response_type: 'ephemeral', text: 'x'.repeat(Math.max(1, bytes - frame.length)) });
}

/** The fake Slack Web API, answering the bot's replies and keeping its uploads. Runs under tsx. */
async function serveSlack(): Promise<void> {
  const { startFakeSlack } = await import('../test/support/fake-slack.js');
  // Schema checks of every reply would only cost time here.
  const fake = await startFakeSlack({ validateBlocks: false });
  // Answers are counted and let go: a capacity run sends hundreds of thousands, and a fake Slack
  // holding them all would spend the shared cores collecting garbage.
  const answers = { count: 0, bytes: 0 };
  const forget = () => {
    for (const post of fake.responses.splice(0)) {
      answers.count++;
      answers.bytes += JSON.stringify(post.body).length;
    }
  };
  setInterval(forget, 1_000).unref();
  process.on('message', (message: unknown) => {
    const type = z.object({ type: z.enum(['uploads', 'answers']) }).safeParse(message);
    if (!type.success) return;
    if (type.data.type === 'answers') {
      forget();
      process.send?.({ type: 'answers', ...answers });
      return;
    }
    // Reported once and let go: each round of ack-under-load uploads 355 MB.
    const files = fake.uploads
      .splice(0)
      .map((file) => ({ filename: file.filename, bytes: file.bytes.length }));
    process.send?.({ type: 'uploads', files });
  });
  process.send?.({ type: 'ready', apiUrl: fake.apiUrl, url: fake.url });
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--serve') {
    if (args[1] === 'bare') await serveBare();
    else if (args[1] === 'slack') {
      // The measuring process going away ends this one too.
      process.on('disconnect', () => process.exit(0));
      await serveSlack();
    } else throw new Error(`unknown server side: ${args[1]}`);
  } else {
    const report = (line: string) => process.stderr.write(`${line}\n`);
    const which = args[0] ?? 'ack';
    console.table(which === 'ack-under-load' ? await benchAckUnderLoad(report) : await benchAck(report));
  }
}
