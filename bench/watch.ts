/**
 * Watches: one poll of a 1,000,000-entry day when nothing is new, against a full summary of the
 * same day (target ≤ 0.5×), and how long a watch goes unpolled after its replica dies (target
 * ≤ 2 poll intervals). Each side of the first figure reads the day from disk in its own process,
 * compiled as in production, in alternating rounds. Run alone: `npx tsx bench/watch.ts [entries]`.
 */
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { jsonArrayEntries } from '../src/reports/json-entries.js';
import { initialProgress, PollCounter, type WatchProgress } from '../src/watches/progress.js';
import { isMain, measureInChild, reportMeasurement } from './child.js';
import { originDayStream } from './origin-day.js';
import { median } from './startup.js';
import type { BenchRow, ChildMeasurement } from './types.js';

const DAY_START = Date.UTC(2026, 10, 21);
const MB = 1024 * 1024;
const RUNS = 3;
const MINUTE = 60_000;

/** Reads the day once through a watch's counter, as one poll does; returns the progress after it. */
async function pollOnce(file: string, progress: WatchProgress, nowMs: number) {
  const counter = new PollCounter(progress, { status: '5xx', code: null }, DAY_START, nowMs);
  for await (const batch of jsonArrayEntries(createReadStream(file, { highWaterMark: 64 * 1024 }), 'logs'))
    for (const element of batch) counter.add(element);
  return counter.finish({ count: 50, windowMs: 5 * MINUTE });
}

/** A watch that has already counted the day: the second poll finds nothing new. */
async function pollSide(file: string): Promise<void> {
  const end = DAY_START + 24 * 60 * MINUTE;
  const first = await pollOnce(file, initialProgress(DAY_START), end);
  const started = performance.now();
  const second = await pollOnce(file, first.progress, end + MINUTE);
  reportMeasurement({
    ms: performance.now() - started,
    detail: { added: second.added, counted: first.added, cursorIds: first.progress.cursor.recent.length },
  });
}

/**
 * Two pollers share one state database on a simulated clock that moves in twentieths of the
 * interval; the one that polled first stops (as if killed); how long until the other has polled.
 */
async function takeoverIntervals(): Promise<number> {
  const [
    { openStateStore },
    { migrations },
    { createWatchStore },
    { createWatchPoller },
    { createAuditLog },
  ] = await Promise.all([
    import('../src/state/store.js'),
    import('../src/runtime/migrations.js'),
    import('../src/watches/store.js'),
    import('../src/operations/watches/poller.js'),
    import('../src/state/audit.js'),
  ]);
  const { createLogger } = await import('../src/telemetry/log.js');
  const { SecretRegistry } = await import('../src/secrets/registry.js');
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-bench-watch-'));
  let nowMs = DAY_START + 12 * 60 * MINUTE;
  const now = () => nowMs;
  const logger = createLogger({
    level: 'error',
    secrets: new SecretRegistry(),
    clock: now,
    write: () => undefined,
  });
  const state = await openStateStore({
    url: `file:${join(dir, 'state.db')}`,
    logger,
    now: () => new Date(nowMs),
    migrations,
  });
  try {
    const store = createWatchStore(state.client);
    const every = MINUTE;
    await store.insert(
      {
        id: 'wa_000000000001',
        owner: 'U0BENCH',
        channelId: 'C0BENCH',
        threadTs: null,
        pullZoneId: 1,
        status: null,
        code: null,
        everyMs: every,
        startedAt: nowMs,
        endsAt: nowMs + 120 * MINUTE,
        alert: null,
        nextPollAt: nowMs,
        progress: initialProgress(nowMs),
      },
      { perUser: 3, perWorkspace: 20 },
    );
    await store.setMessage('wa_000000000001', '1.000001');
    const polls: { by: string; at: number }[] = [];
    const replica = (name: string) =>
      createWatchPoller({
        store,
        platform: {
          getOriginErrorLogs: async () => {
            polls.push({ by: name, at: nowMs });
            return { body: Readable.from([Buffer.from('{"logs":[]}')]) } as never;
          },
        },
        authorizer: {
          decide: async (operation) => ({ allowed: true, operation, rule: 'grant', grounds: {} }) as never,
          explanation: async () => ({}) as never,
          allowedAmong: async (operations) => new Set(operations),
          ruledAmong: () => new Set(),
        },
        audit: createAuditLog({ store: state, secrets: new SecretRegistry(), now: () => new Date(nowMs) }),
        logger,
        metrics: {
          setRunningWatches: () => undefined,
          watchPolled: () => undefined,
          watchTakenOver: () => undefined,
        },
        now,
        instanceId: name,
        callsPerMinute: 1000,
      });
    const [a, b] = [replica('a'), replica('b')];
    await a.tick();
    await b.tick();
    const killedAt = polls.at(-1)!.at;
    for (let step = 0; step < 80 && !polls.some((poll) => poll.by === 'b'); step++) {
      nowMs += every / 20;
      await b.tick();
    }
    const taken = polls.find((poll) => poll.by === 'b');
    return taken ? (taken.at - killedAt) / every : Number.POSITIVE_INFINITY;
  } finally {
    await state.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchWatch(
  log: (line: string) => void = () => undefined,
  entries = 1_000_000,
): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-bench-watch-'));
  const { compileForBench } = await import('./compiled.js');
  const compiled = await compileForBench();
  const script = compiled.script('bench/watch.ts');
  // The baseline is the summary side of the logs bench: the same day summarised as /edge logs does.
  const summaryScript = compiled.script('bench/logs.ts');
  try {
    const file = join(dir, 'day.json');
    await pipeline(originDayStream({ entries, dayStartMs: DAY_START }), createWriteStream(file));
    const dayMb = statSync(file).size / MB;
    const polls: ChildMeasurement[] = [];
    const summaries: ChildMeasurement[] = [];
    for (let run = 0; run < RUNS; run++) {
      const summary = await measureInChild(summaryScript, ['--side', 'ours', file, join(dir, 'out.csv')]);
      const poll = await measureInChild(script, ['--side', 'poll', file]);
      summaries.push(summary);
      polls.push(poll);
      log(
        `watch round ${run + 1}: poll with nothing new ${Math.round(poll.ms)} ms (${poll.detail?.added} new, ` +
          `${poll.detail?.cursorIds} ids in the cursor), summary ${Math.round(summary.ms)} ms; ` +
          `poll peak RSS ${Math.round(poll.peakRssBytes / MB)} MB; the day is ${dayMb.toFixed(0)} MB`,
      );
    }
    const label = entries.toLocaleString('en-US');
    const pollMs = median(polls.map((run) => run.ms));
    const summaryMs = median(summaries.map((run) => run.ms));
    const takeover = await takeoverIntervals();
    log(`watch: takeover after the polling replica stopped: ${takeover.toFixed(2)} poll intervals`);
    return [
      {
        figure: `watch poll of a ${label}-entry day (${dayMb.toFixed(0)} MB) with nothing new, median of ${RUNS} (ms)`,
        value: Math.round(pollMs),
        baseline: Math.round(summaryMs),
        ratio: pollMs / summaryMs,
        target: '≤ 0.5× a full summary of the day',
        pass: pollMs / summaryMs <= 0.5,
      },
      {
        figure: 'watch poll peak RSS, largest of the rounds (MB)',
        value: Math.round(Math.max(...polls.map((run) => run.peakRssBytes)) / MB),
        baseline: Math.round(Math.max(...summaries.map((run) => run.peakRssBytes)) / MB),
        ratio:
          Math.max(...polls.map((run) => run.peakRssBytes)) /
          Math.max(...summaries.map((run) => run.peakRssBytes)),
        target: 'streamed: < 300 MB',
        pass: Math.max(...polls.map((run) => run.peakRssBytes)) / MB < 300,
      },
      {
        figure: 'watch takeover after its replica stopped (poll intervals)',
        value: Number(takeover.toFixed(2)),
        baseline: 2,
        ratio: takeover / 2,
        target: '≤ 2 poll intervals',
        pass: takeover <= 2,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
    await compiled.remove();
  }
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--side') {
    const [, side, file] = args;
    if (side === 'poll' && file) await pollSide(file);
    else throw new Error(`unknown side: ${args.join(' ')}`);
  } else {
    const report = (line: string) => process.stderr.write(`${line}\n`);
    console.table(await benchWatch(report, args[0] ? Number(args[0]) : undefined));
  }
}
