/**
 * PRODUCT §8: the summary and CSV of a 1,000,000-entry origin-log day against the floor (JSON.parse
 * of the whole body, then of every inner `log` string, on one thread), under 300 MB peak RSS. The
 * targets are the performance issue's: wall time ≤ 0.5× the floor's, CPU time ≤ 0.6× (CPU time
 * is what no faster or slower core changes). The day is generated once to a temp file, then each
 * side reads it in its own process, run from compiled JavaScript as in production (compiled.ts),
 * in alternating rounds. Run alone: `npx tsx bench/logs.ts [entries]`.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { summariseOriginErrors } from '../src/reports/origin/summary.js';
import { createReportPool } from '../src/reports/pool.js';
import { isMain, measureInChild, reportMeasurement } from './child.js';
import { originDayStream } from './origin-day.js';
import type { BenchRow, ChildMeasurement } from './types.js';

const DAY_START = Date.UTC(2026, 10, 21);
const MB = 1024 * 1024;
const RUNS = 3;

/** How the summary gets under the floor: what the bench prints with its figures. */
const ROUTE =
  "no JSON.parse: an entry in the platform's form is matched whole by one pattern over the bytes and its CSV row copied from them by WebAssembly (origin/rows.ts), any other read byte by byte (origin/scan.ts), JSON.parse only for what neither takes";

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const loads = () =>
  loadavg()
    .map((load) => load.toFixed(1))
    .join(' ');

/** A side's CPU time, as it reported it. */
const cpuOf = (side: ChildMeasurement) => side.detail?.cpuMs ?? Number.NaN;

/** CPU time of every thread of this process since `since`: less disturbed by a busy machine than wall time. */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** Wall time target: a ratio to the floor's. */
const WALL_TARGET = 0.5;
/** CPU time target, every thread counted: a ratio to the floor's. */
const CPU_TARGET = 0.6;

/** The floor: what any summary must at least do, with the whole body in memory. */
async function floorSide(file: string): Promise<void> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const document: unknown = JSON.parse(await readFile(file, 'utf8'));
  let parsed = 0;
  let malformed = 0;
  const logs = typeof document === 'object' && document !== null && 'logs' in document ? document.logs : [];
  for (const entry of Array.isArray(logs) ? logs : []) {
    const log: unknown = typeof entry === 'object' && entry !== null && 'log' in entry ? entry.log : '';
    try {
      JSON.parse(String(log));
      parsed++;
    } catch {
      malformed++;
    }
  }
  reportMeasurement({ ms: performance.now() - started, detail: { parsed, malformed, cpuMs: cpuMs(cpu) } });
}

/**
 * Ours: streamed from disk as if from the socket, summary and CSV in the report worker. The CSV
 * goes to a new empty file, as the bot's does (temporaryCsvPath), not over the last round's.
 */
async function oursSide(file: string, csvPath: string): Promise<void> {
  const pool = createReportPool();
  // A running bot has its worker thread up already: start it before the clock does.
  await summariseOriginErrors({
    source: originDayStream({ entries: 10, dayStartMs: DAY_START }),
    csvPath: `${csvPath}.warm-up`,
    pool,
  });
  await writeFile(csvPath, '', { flag: 'wx', mode: 0o600 });
  const started = performance.now();
  const cpu = process.cpuUsage();
  const summary = await summariseOriginErrors({
    source: createReadStream(file, { highWaterMark: 64 * 1024 }),
    csvPath,
    pool,
  });
  const ms = performance.now() - started;
  await pool.close();
  reportMeasurement({
    ms,
    detail: {
      total: summary.total,
      malformed: summary.malformed,
      csvBytes: summary.csv.bytes,
      cpuMs: cpuMs(cpu),
    },
  });
}

export async function benchLogs(
  log: (line: string) => void = () => undefined,
  entries = 1_000_000,
): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-bench-logs-'));
  // Imported here, not at the top: the measured sides load this module and must not load TypeScript.
  const { compileForBench } = await import('./compiled.js');
  const compiled = await compileForBench();
  const script = compiled.script('bench/logs.ts');
  try {
    const file = join(dir, 'day.json');
    await pipeline(originDayStream({ entries, dayStartMs: DAY_START }), createWriteStream(file));
    // With three cores or more a summary's texts are counted on a thread of their own (counter.ts).
    const cores = availableParallelism();
    log(
      `logs: route: ${ROUTE}; report threads per summary: ${cores > 2 ? '2, the reader and the counter' : '1, which reads and counts'} (${cores} cores)`,
    );
    log(`logs: load average ${loads()} at the start`);
    // Alternating, in pairs: on a shared 2-core machine a single run is often disturbed.
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    const floors: ChildMeasurement[] = [];
    const ourRuns: ChildMeasurement[] = [];
    for (let run = 0; run < RUNS; run++) {
      const floor = await measureInChild(script, ['--side', 'floor', file]);
      const csvPath = join(dir, `round-${run + 1}.csv`);
      const ours = await measureInChild(script, ['--side', 'ours', file, csvPath]);
      await rm(csvPath, { force: true });
      await rm(`${csvPath}.warm-up`, { force: true });
      floors.push(floor);
      ourRuns.push(ours);
      ratios.push(ours.ms / floor.ms);
      cpuRatios.push(cpuOf(ours) / cpuOf(floor));
      const per1000 = (side: ChildMeasurement) => ((cpuOf(side) * 1000) / entries).toFixed(2);
      log(
        `logs round ${run + 1}: floor ${Math.round(floor.ms)} ms, summary + CSV ${Math.round(ours.ms)} ms (${ratios.at(-1)!.toFixed(2)}×); ` +
          `CPU time ${Math.round(cpuOf(floor))} and ${Math.round(cpuOf(ours))} ms, ${per1000(floor)} and ${per1000(ours)} ms per 1,000 entries (${cpuRatios.at(-1)!.toFixed(2)}×); ` +
          `peak RSS ${Math.round(ours.peakRssBytes / MB)} MB (floor ${Math.round(floor.peakRssBytes / MB)} MB); load ${loads()}`,
      );
    }
    const label = entries.toLocaleString('en-US');
    const timeRatio = median(ratios);
    const cpuRatio = median(cpuRatios);
    const cpuPer1000 = (runs: ChildMeasurement[]) => (median(runs.map(cpuOf)) * 1000) / entries;
    const oursMb = Math.max(...ourRuns.map((run) => run.peakRssBytes)) / MB;
    const floorMb = Math.max(...floors.map((run) => run.peakRssBytes)) / MB;
    return [
      {
        figure: `origin-log summary + CSV of ${label} entries, wall time, median of ${RUNS} rounds (ms)`,
        value: Math.round(median(ourRuns.map((run) => run.ms))),
        baseline: Math.round(median(floors.map((run) => run.ms))),
        ratio: timeRatio,
        target: `≤ ${WALL_TARGET}× the JSON.parse floor`,
        pass: timeRatio <= WALL_TARGET,
        cpu: { value: cpuPer1000(ourRuns), baseline: cpuPer1000(floors), per: '1,000 entries' },
      },
      {
        figure: `origin-log summary + CSV, CPU time of every thread per 1,000 entries, median of ${RUNS} (ms)`,
        value: cpuPer1000(ourRuns),
        baseline: cpuPer1000(floors),
        ratio: cpuRatio,
        target: `≤ ${CPU_TARGET}× the floor's CPU time`,
        pass: cpuRatio <= CPU_TARGET,
        cpu: { value: cpuPer1000(ourRuns), baseline: cpuPer1000(floors), per: '1,000 entries' },
      },
      {
        figure: `origin-log summary peak RSS, ${label} entries, largest of ${RUNS} (MB)`,
        value: Math.round(oursMb),
        baseline: Math.round(floorMb),
        ratio: oursMb / floorMb,
        target: '< 300 MB',
        pass: oursMb < 300,
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
    const [, side, file, csvPath] = args;
    if (side === 'floor' && file) await floorSide(file);
    else if (side === 'ours' && file && csvPath) await oursSide(file, csvPath);
    else throw new Error(`unknown side: ${args.join(' ')}`);
  } else {
    const report = (line: string) => process.stderr.write(`${line}\n`);
    console.table(await benchLogs(report, args[0] ? Number(args[0]) : undefined));
  }
}
