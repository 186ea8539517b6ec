/**
 * `npm run bench` runs every benchmark of PRODUCT §8 in turn and prints one table; `npm run bench
 * -- NAME…` runs the ones named. The rows also go to bench/results.json. Exit status 1 when a
 * figure misses its target or a benchmark could not run.
 */
import { benchAck, benchAckUnderLoad } from './ack.js';
import { benchAckOpenLoop } from './ack-open.js';
import { benchApprovals } from './approvals.js';
import { benchAuditExport } from './audit-export.js';
import { benchAuditVerify } from './audit-verify.js';
import { benchChart } from './chart.js';
import { benchDbQuery, benchDbQueryValues } from './db-query.js';
import { benchDigests } from './digests.js';
import { benchExport } from './export.js';
import { benchLogs } from './logs.js';
import { benchLogsRepeat } from './logs-repeat.js';
import { createReport, formatReport, RESULTS_PATH, writeResults } from './report.js';
import { benchStartup } from './startup.js';
import { benchStats } from './stats.js';
import type { BenchRow } from './types.js';
import { benchWatch } from './watch.js';

type Log = (line: string) => void;

interface Benchmark {
  name: string;
  what: string;
  /** Undefined when the benchmark's module is not there; the reason is noted instead. */
  load(): Promise<((log: Log) => Promise<BenchRow[]>) | string>;
}

const BENCHMARKS: Benchmark[] = [
  { name: 'ack', what: 'ack p99 vs bare Bolt at 100 concurrent', load: async () => benchAck },
  {
    name: 'ack-open',
    what: 'ack p50/p99 vs bare Bolt at Poisson arrivals of 20–200/s, and capacity',
    load: async () => benchAckOpenLoop,
  },
  {
    name: 'ack-under-load',
    what: 'ack p99 during a 1,000,000-entry day and a 200 MB export',
    load: async () => benchAckUnderLoad,
  },
  { name: 'logs', what: 'origin-log summary vs the JSON.parse floor', load: async () => benchLogs },
  { name: 'export', what: 'Shield export memory and throughput', load: async () => benchExport },
  {
    name: 'db-query',
    what: 'db query peak RSS for a 100,000-row result vs SELECT 1',
    load: async () => () => benchDbQuery(),
  },
  {
    name: 'db-query-value',
    what: 'db query peak RSS for one 300 MB blob (past the cap) and one 91 MB blob and text (under it)',
    load: async () => () => benchDbQueryValues(),
  },
  { name: 'approvals', what: '2 replicas, 200 clicks on 50 requests', load: async () => benchApprovals },
  {
    name: 'audit-verify',
    what: 'longest event-loop delay while 500,000 audit rows are verified',
    load: async () => benchAuditVerify,
  },
  {
    name: 'chart',
    what: 'drawing a chart PNG vs the 300 ms target, and its size',
    load: async () => benchChart,
  },
  { name: 'startup', what: "spawn to /readyz vs node -e ''", load: async () => benchStartup },
  {
    name: 'watch',
    what: 'one watch poll of a 1,000,000-entry day with nothing new vs a full summary, and takeover',
    load: async () => benchWatch,
  },
  {
    name: 'stats',
    what: '/edge stats end to end on a 7-day hourly window vs one GET /statistics',
    load: async () => benchStats,
  },
  {
    name: 'logs-repeat',
    what: '/edge logs --last 1h on a 1,000,000-entry day asked again 30 s later vs the first time',
    load: async () => benchLogsRepeat,
  },
  {
    name: 'audit-export',
    what: 'peak RSS and longest event-loop delay while 100,000 audit rows are exported',
    load: async () => benchAuditExport,
  },
  {
    name: 'digests',
    what: 'ten digests of ten 1,000,000-entry zones due at one minute vs those summaries back to back',
    load: async () => benchDigests,
  },
];

async function main(): Promise<number> {
  const asked = process.argv.slice(2).filter((arg) => arg !== '--');
  const unknown = asked.filter((name) => !BENCHMARKS.some((bench) => bench.name === name));
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown benchmark ${unknown.join(', ')}; there are:\n${BENCHMARKS.map((b) => `  ${b.name.padEnd(16)}${b.what}`).join('\n')}\n`,
    );
    return 2;
  }
  const chosen = asked.length > 0 ? BENCHMARKS.filter((bench) => asked.includes(bench.name)) : BENCHMARKS;
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  let failed = 0;
  for (const bench of chosen) {
    const started = performance.now();
    process.stderr.write(`▸ ${bench.name}: ${bench.what}…\n`);
    const log: Log = (line) => {
      notes.push(line);
      process.stderr.write(`  ${line}\n`);
    };
    try {
      const run = await bench.load();
      if (typeof run === 'string') {
        log(`${bench.name} skipped: ${run}`);
        continue;
      }
      rows.push(...(await run(log)));
    } catch (error) {
      failed++;
      log(`${bench.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    process.stderr.write(`  (${Math.round((performance.now() - started) / 1000)} s)\n`);
  }
  const report = createReport(
    chosen.map((bench) => bench.name),
    rows,
    notes,
  );
  await writeResults(report);
  process.stdout.write(`\n${formatReport(report)}\n\nwritten to ${RESULTS_PATH}\n`);
  return failed > 0 || rows.some((row) => !row.pass) ? 1 : 0;
}

process.exitCode = await main();
