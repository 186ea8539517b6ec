/**
 * `/edge audit --verify` never blocks the event loop: the main thread's longest event-loop delay
 * (perf_hooks.monitorEventLoopDelay) while the hash chain of 500,000 audit rows is read and
 * checked on a `file:` state database, whose driver answers without yielding. The chain is
 * written here, row hashes and all; the measured side opens it as the bot does and runs the
 * audit log's own verify, from compiled JavaScript in a process of its own.
 * Run alone: `npx tsx bench/audit-verify.ts [rows]`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { InStatement } from '@libsql/client';
import { migrations } from '../src/runtime/migrations.js';
import { SecretRegistry } from '../src/secrets/registry.js';
import { type AuditFields, createAuditLog, GENESIS_HASH, hashAuditRow } from '../src/state/audit.js';
import { canonicalJson } from '../src/state/canonical-json.js';
import { openStateStore } from '../src/state/store.js';
import { createLogger } from '../src/telemetry/log.js';
import { isMain, measureInChild, reportMeasurement } from './child.js';
import type { BenchRow } from './types.js';

const ROWS = 500_000;
const TARGET_MS = 100;
/** Rows written per transaction while the chain is built. */
const FILL_BATCH = 5_000;
const OPERATIONS = ['dns.list', 'logs.origin', 'db.query', 'apikey.list', 'pullzone.reset-key'] as const;
const OUTCOMES = ['started', 'succeeded', 'denied', 'failed'] as const;

const quietLogger = () =>
  createLogger({ level: 'error', secrets: new SecretRegistry(), clock: () => 0, write: () => undefined });

/** A row as commands leave them: a few parameters, now and then a detail. */
function fieldsOf(index: number): AuditFields {
  return {
    time: new Date(Date.UTC(2026, 0, 1) + index * 1_000).toISOString(),
    userId: `U0USER${index % 40}`,
    channelId: 'C0OPS',
    operation: OPERATIONS[index % OPERATIONS.length]!,
    target: index % 3 === 0 ? null : String(300_000 + (index % 500)),
    params: { search: `zone-${index}`, page: 1 + (index % 7), perPage: 100 },
    outcome: OUTCOMES[index % OUTCOMES.length]!,
    approvalId: null,
    correlationId: `c-${index.toString(36)}`,
    detail: index % 10 === 0 ? 'platform answered 503; retried' : null,
  };
}

/** Writes an intact chain of `rows` rows into a new state database at `url`. */
export async function writeChain(url: string, rows: number): Promise<void> {
  const store = await openStateStore({ url, logger: quietLogger(), now: () => new Date(0), migrations });
  try {
    let prevHash = GENESIS_HASH;
    for (let first = 1; first <= rows; first += FILL_BATCH) {
      const statements: InStatement[] = [];
      for (let index = first; index < Math.min(first + FILL_BATCH, rows + 1); index++) {
        const fields = fieldsOf(index);
        const hash = hashAuditRow(fields, prevHash);
        statements.push({
          sql: `INSERT INTO audit_log (time, user_id, channel_id, operation, target, params, outcome,
                  approval_id, correlation_id, detail, prev_hash, hash)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          args: [
            fields.time,
            fields.userId,
            fields.channelId,
            fields.operation,
            fields.target,
            canonicalJson(fields.params),
            fields.outcome,
            fields.approvalId,
            fields.correlationId,
            fields.detail,
            prevHash,
            hash,
          ],
        });
        prevHash = hash;
      }
      await store.client.batch(statements, 'write');
    }
  } finally {
    await store.close();
  }
}

/** The measured side: verify the chain at BENCH_STATE_URL while the loop's delay is sampled every ms. */
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
  const result = await audit.verify();
  const ms = performance.now() - started;
  // The tick that was held up by the last stretch of work is recorded when the loop gets to it.
  await new Promise((resolve) => setTimeout(resolve, 20));
  delay.disable();
  await store.close();
  if (!result.ok) throw new Error(`the chain did not verify: ${result.reason}`);
  reportMeasurement({
    ms,
    detail: {
      rows: result.count,
      maxDelayMs: delay.max / 1e6,
      p99DelayMs: delay.percentile(99) / 1e6,
      samples: delay.count,
    },
  });
}

export async function benchAuditVerify(log: (line: string) => void = () => undefined, rows = ROWS) {
  const { compileForBench } = await import('./compiled.js');
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-bench-audit-'));
  const compiled = await compileForBench();
  try {
    const url = `file:${join(dir, 'state.db')}`;
    const filling = performance.now();
    await writeChain(url, rows);
    log(
      `audit verify: wrote a chain of ${rows.toLocaleString('en-US')} rows in ${Math.round((performance.now() - filling) / 1000)} s`,
    );
    const measured = await measureInChild(compiled.script('bench/audit-verify.ts'), ['--side'], {
      BENCH_STATE_URL: url,
    });
    const at = (key: string) => measured.detail?.[key] ?? Number.NaN;
    if (at('rows') !== rows) throw new Error(`verify counted ${at('rows')} rows of ${rows}`);
    log(
      `audit verify: ${at('rows').toLocaleString('en-US')} rows in ${(measured.ms / 1000).toFixed(1)} s; event-loop delay max ${at('maxDelayMs').toFixed(1)} ms, p99 ${at('p99DelayMs').toFixed(1)} ms over ${at('samples')} samples`,
    );
    const row: BenchRow = {
      figure: `longest event-loop delay while ${rows.toLocaleString('en-US')} audit rows are verified (ms)`,
      value: at('maxDelayMs'),
      baseline: TARGET_MS,
      ratio: at('maxDelayMs') / TARGET_MS,
      target: `< ${TARGET_MS} ms`,
      pass: at('maxDelayMs') < TARGET_MS,
    };
    return [row];
  } finally {
    await compiled.remove();
    await rm(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  if (process.argv[2] === '--side') await measureSide();
  else console.table(await benchAuditVerify((line) => console.log(line), Number(process.argv[2] ?? ROWS)));
}
