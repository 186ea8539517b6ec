/**
 * `/edge audit --export` streams: the peak RSS and the main thread's longest event-loop delay
 * (perf_hooks.monitorEventLoopDelay) while 100,000 audit rows are read a page at a time from a
 * `file:` state database (whose driver answers without yielding), their chain checked, and
 * written to the CSV the requester gets. The measured side runs the operation's own writer
 * from compiled JavaScript in a process of its own.
 * Run alone: `npx tsx bench/audit-export.ts [rows]`.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeAuditExport } from '../src/operations/audit-export.js';
import { migrations } from '../src/runtime/migrations.js';
import { SecretRegistry } from '../src/secrets/registry.js';
import { createAuditLog } from '../src/state/audit.js';
import { openStateStore } from '../src/state/store.js';
import { createLogger } from '../src/telemetry/log.js';
import { writeChain } from './audit-verify.js';
import { isMain, measureInChild, reportMeasurement } from './child.js';
import type { BenchRow } from './types.js';

const ROWS = 100_000;
const DELAY_TARGET_MS = 100;
const RSS_TARGET_MB = 250;

const quietLogger = () =>
  createLogger({ level: 'error', secrets: new SecretRegistry(), clock: () => 0, write: () => undefined });

/** The measured side: export every row at BENCH_STATE_URL while the loop's delay is sampled every ms. */
async function measureSide(): Promise<void> {
  const url = process.env.BENCH_STATE_URL;
  if (!url) throw new Error('BENCH_STATE_URL is required');
  const store = await openStateStore({ url, logger: quietLogger(), now: () => new Date(), migrations });
  const audit = createAuditLog({ store, secrets: new SecretRegistry() });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  // The sampling timer's first tick sets its reference; a loop blocked before it would show nothing.
  await new Promise((resolve) => setTimeout(resolve, 20));
  delay.reset();
  const started = performance.now();
  const { path, result } = await writeAuditExport(
    audit,
    { since: '2000-01-01T00:00:00.000Z', sinceText: 'all', userIds: [] },
    new AbortController().signal,
    () => undefined,
  );
  const ms = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 20));
  delay.disable();
  const bytes = (await stat(path)).size;
  await rm(path, { force: true });
  await store.close();
  if (!result.verification.ok) throw new Error(`the chain did not verify: ${result.verification.reason}`);
  reportMeasurement({
    ms,
    detail: {
      rows: result.exported,
      bytes,
      maxDelayMs: delay.max / 1e6,
      p99DelayMs: delay.percentile(99) / 1e6,
    },
  });
}

export async function benchAuditExport(log: (line: string) => void = () => undefined, rows = ROWS) {
  const { compileForBench } = await import('./compiled.js');
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-bench-audit-export-'));
  const compiled = await compileForBench();
  try {
    const url = `file:${join(dir, 'state.db')}`;
    await writeChain(url, rows);
    const measured = await measureInChild(compiled.script('bench/audit-export.ts'), ['--side'], {
      BENCH_STATE_URL: url,
    });
    const at = (key: string) => measured.detail?.[key] ?? Number.NaN;
    if (at('rows') !== rows) throw new Error(`the export held ${at('rows')} rows of ${rows}`);
    const rssMb = measured.peakRssBytes / 1024 / 1024;
    log(
      `audit export: ${at('rows').toLocaleString('en-US')} rows, ${(at('bytes') / 1024 / 1024).toFixed(1)} MB in ${(measured.ms / 1000).toFixed(1)} s; peak RSS ${rssMb.toFixed(0)} MB; event-loop delay max ${at('maxDelayMs').toFixed(1)} ms, p99 ${at('p99DelayMs').toFixed(1)} ms`,
    );
    const count = rows.toLocaleString('en-US');
    const rowsOf: BenchRow[] = [
      {
        figure: `peak RSS while ${count} audit rows are exported (MB)`,
        value: rssMb,
        baseline: RSS_TARGET_MB,
        ratio: rssMb / RSS_TARGET_MB,
        target: `< ${RSS_TARGET_MB} MB`,
        pass: rssMb < RSS_TARGET_MB,
      },
      {
        figure: `longest event-loop delay while ${count} audit rows are exported (ms)`,
        value: at('maxDelayMs'),
        baseline: DELAY_TARGET_MS,
        ratio: at('maxDelayMs') / DELAY_TARGET_MS,
        target: `< ${DELAY_TARGET_MS} ms`,
        pass: at('maxDelayMs') < DELAY_TARGET_MS,
      },
    ];
    return rowsOf;
  } finally {
    await compiled.remove();
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  if (process.argv[2] === '--side') await measureSide();
  else console.table(await benchAuditExport((line) => console.log(line), Number(process.argv[2] ?? ROWS)));
}
