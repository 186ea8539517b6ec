/**
 * PRODUCT §8: `/edge db query` stays under 250 MB peak memory for a 100,000-row result. The
 * sandbox (in this process) holds a table of 100,000 rows, about 96 MB of values; each side
 * runs the operation's own path (`answerQuery`: describe, the wrapped query, the streamed read,
 * the CSV written row by row) in its own process, from compiled JavaScript as in production:
 * once for the whole table, once for `SELECT 1`, side by side.
 *
 * `benchDbQueryValues` does the same for one value alone: a 300 MB blob, past the default
 * 100 MB cap, must stop at the cap without being held (under 250 MB), and a 91 MB blob or text,
 * under it, must arrive whole with the value held about twice at most (under 300 MB).
 * Run alone: `npx tsx bench/db-query.ts [rows]`, `npx tsx bench/db-query.ts --values`.
 */
import { rm, stat } from 'node:fs/promises';
import { createClient } from '@libsql/client';
import { createCustomerDatabase } from '../src/database/customer-database.js';
import { answerQuery } from '../src/operations/db/query.js';
import { SecretRegistry } from '../src/secrets/registry.js';
import { isMain, measureInChild, reportMeasurement } from './child.js';
import type { BenchRow, ChildMeasurement } from './types.js';

const MB = 1024 * 1024;
const RUNS = 2;
/** Hex text of 480 random bytes: 960 bytes of value a row, about 96 MB for 100,000 rows. */
const PAYLOAD_BYTES = 480;
/** The bench measures memory, not the deadline: a loaded machine must not fail it on time. */
const BENCH_TIMEOUT_MS = 300_000;

/** One side: run `sql` through the operation and report its peak RSS. */
async function side(sql: string): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  const authToken = process.env.BENCH_DATABASE_TOKEN;
  if (!url || !authToken) throw new Error('BENCH_DATABASE_URL and BENCH_DATABASE_TOKEN are required');
  const database = createCustomerDatabase({
    url,
    authToken,
    secrets: new SecretRegistry(),
    timeoutMs: BENCH_TIMEOUT_MS,
  });
  const started = performance.now();
  const reply = await answerQuery({
    database,
    sql,
    userId: 'U0BENCH',
    now: 0,
    secrets: new SecretRegistry(),
  });
  const ms = performance.now() - started;
  const file = reply.files?.[0]?.path;
  const csvBytes = file ? (await stat(file)).size : 0;
  if (file) await rm(file, { force: true });
  const rows = Number(/(\d[\d,]*) rows?/.exec(reply.text)?.[1]?.replaceAll(',', '') ?? 0);
  const stopped = reply.text.startsWith('The query stopped') ? 1 : 0;
  reportMeasurement({ ms, detail: { rows, csvBytes, stopped } });
}

const largest = (runs: ChildMeasurement[]): ChildMeasurement =>
  runs.reduce((worst, run) => (run.peakRssBytes > worst.peakRssBytes ? run : worst));

export async function benchDbQuery(rows = 100_000): Promise<BenchRow[]> {
  // Imported here, not at the top: the measured sides load this module and must not start a sandbox.
  const { startSandbox } = await import('../src/sandbox/server.js');
  const { compileForBench } = await import('./compiled.js');
  const { systemClock } = await import('../src/time/clock.js');
  const sandbox = await startSandbox({ now: systemClock });
  const compiled = await compileForBench();
  const script = compiled.script('bench/db-query.ts');
  try {
    const setup = createClient({ url: sandbox.databaseUrl, authToken: sandbox.databaseTokens.fullAccess });
    await setup.execute('CREATE TABLE big (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)');
    await setup.execute({
      sql: `INSERT INTO big (id, payload)
            WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < ?)
            SELECT n, hex(randomblob(${PAYLOAD_BYTES})) FROM r`,
      args: [rows],
    });
    setup.close();
    const env = {
      BENCH_DATABASE_URL: sandbox.databaseUrl,
      BENCH_DATABASE_TOKEN: sandbox.databaseTokens.readOnly,
    };
    const whole: ChildMeasurement[] = [];
    const one: ChildMeasurement[] = [];
    for (let run = 0; run < RUNS; run++) {
      one.push(await measureInChild(script, ['--side', 'SELECT 1'], env));
      whole.push(await measureInChild(script, ['--side', 'SELECT * FROM big'], env));
    }
    const ours = largest(whole);
    const baseline = largest(one);
    const oursMb = ours.peakRssBytes / MB;
    const baselineMb = baseline.peakRssBytes / MB;
    const read = ours.detail?.rows ?? 0;
    const valuesMb = Math.round((rows * (PAYLOAD_BYTES * 2 + String(rows).length)) / 1_000_000);
    const label = rows.toLocaleString('en-US');
    return [
      {
        figure: `db query peak RSS, ${label} rows / ${valuesMb} MB result vs SELECT 1 (MB)`,
        value: Math.round(oursMb),
        baseline: Math.round(baselineMb),
        ratio: oursMb / baselineMb,
        target: `< 250 MB, all ${label} rows in the CSV`,
        pass: oursMb < 250 && read === rows,
      },
      {
        figure: `db query time, ${label} rows to CSV vs SELECT 1 (ms)`,
        value: Math.round(Math.min(...whole.map((run) => run.ms))),
        baseline: Math.round(Math.min(...one.map((run) => run.ms))),
        ratio: Math.min(...whole.map((run) => run.ms)) / Math.min(...one.map((run) => run.ms)),
        target: 'reported',
        pass: true,
      },
    ];
  } finally {
    await sandbox.close();
    await compiled.remove();
  }
}

/** One value alone, in the sandbox's `one_value` table. */
interface OneValue {
  id: number;
  what: string;
  /** The SQL that makes the value. */
  value: string;
  bytes: number;
  targetMb: number;
}

const ONE_VALUES: OneValue[] = [
  { id: 1, what: 'one 300 MB blob', value: `randomblob(${300 * MB})`, bytes: 300 * MB, targetMb: 250 },
  { id: 2, what: 'one 91 MB blob', value: `randomblob(${91 * MB})`, bytes: 91 * MB, targetMb: 300 },
  // Hex of random bytes: 91 MB of text, which JSON carries as it is.
  {
    id: 3,
    what: 'one 91 MB text',
    value: `hex(randomblob(${(91 * MB) / 2}))`,
    bytes: 91 * MB,
    targetMb: 300,
  },
];

export async function benchDbQueryValues(): Promise<BenchRow[]> {
  const { startSandbox } = await import('../src/sandbox/server.js');
  const { compileForBench } = await import('./compiled.js');
  const { systemClock } = await import('../src/time/clock.js');
  const { DEFAULT_QUERY_LIMITS } = await import('../src/database/customer-database.js');
  const sandbox = await startSandbox({ now: systemClock });
  const compiled = await compileForBench();
  const script = compiled.script('bench/db-query.ts');
  try {
    const setup = createClient({ url: sandbox.databaseUrl, authToken: sandbox.databaseTokens.fullAccess });
    await setup.execute('CREATE TABLE one_value (id INTEGER PRIMARY KEY, payload)');
    for (const one of ONE_VALUES)
      await setup.execute(`INSERT INTO one_value (id, payload) VALUES (${one.id}, ${one.value})`);
    setup.close();
    const env = {
      BENCH_DATABASE_URL: sandbox.databaseUrl,
      BENCH_DATABASE_TOKEN: sandbox.databaseTokens.readOnly,
    };
    const baseline: ChildMeasurement[] = [];
    const measured = new Map<number, ChildMeasurement[]>(ONE_VALUES.map((one) => [one.id, []]));
    for (let run = 0; run < RUNS; run++) {
      baseline.push(await measureInChild(script, ['--side', 'SELECT 1'], env));
      for (const one of ONE_VALUES)
        measured
          .get(one.id)!
          .push(
            await measureInChild(
              script,
              ['--side', `SELECT payload FROM one_value WHERE id = ${one.id}`],
              env,
            ),
          );
    }
    const baselineMb = largest(baseline).peakRssBytes / MB;
    return ONE_VALUES.map((one) => {
      const runs = measured.get(one.id)!;
      const ours = largest(runs);
      const oursMb = ours.peakRssBytes / MB;
      const overCap = one.bytes > DEFAULT_QUERY_LIMITS.maxBytes;
      // Past the cap: stopped with nothing read. Under it: the one row, its blob as hex in the CSV.
      const delivered = runs.every((run) =>
        overCap
          ? run.detail?.stopped === 1 && run.detail.rows === 0
          : run.detail?.stopped === 0 && run.detail.rows === 1 && (run.detail.csvBytes ?? 0) >= one.bytes,
      );
      return {
        figure: `db query peak RSS, ${one.what} vs SELECT 1 (MB)`,
        value: Math.round(oursMb),
        baseline: Math.round(baselineMb),
        ratio: oursMb / baselineMb,
        target: `< ${one.targetMb} MB, ${overCap ? 'stopped at the 100 MB cap' : 'the value whole in the CSV'}`,
        pass: oursMb < one.targetMb && delivered,
      };
    });
  } finally {
    await sandbox.close();
    await compiled.remove();
  }
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--side' && args[1]) await side(args[1]);
  else if (args[0] === '--values') console.table(await benchDbQueryValues());
  else console.table(await benchDbQuery(args[0] ? Number(args[0]) : undefined));
}
