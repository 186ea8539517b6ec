import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/runtime/migrations.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { createAuditLog } from '../../src/state/audit.js';
import { openStateStore, type StateStore } from '../../src/state/store.js';
import { asDates, DEFAULT_INSTANT, pinnedClock } from '../support/clock.js';
import { memoryLogger, type TempDatabase, tempDatabase } from './temp-db.js';

const WORKER = fileURLToPath(new URL('./fixtures/state-worker.ts', import.meta.url));
const ROWS = 50;
const CLAIMS = 20;

interface Finished {
  name: string;
  claimed: number[];
}

interface Worker {
  child: ChildProcess;
  /** Resolves when the worker has printed `line`. */
  reached(line: string): Promise<void>;
  done: Promise<Finished>;
}

function startWorker(url: string, name: string): Worker {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WORKER, url, name, String(ROWS), String(CLAIMS)],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, PINNED_NOW: DEFAULT_INSTANT },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
  });
  const reached = (line: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (stdout.split('\n').includes(line)) {
          child.stdout?.off('data', check);
          resolve();
        }
      };
      child.stdout?.on('data', check);
      child.once('exit', () => reject(new Error(`worker ${name} exited before "${line}": ${stderr}`)));
      check();
    });
  const done = once(child, 'exit').then(([code]) => {
    if (code !== 0) throw new Error(`worker ${name} exited with ${String(code)}: ${stderr}`);
    const last = stdout.trim().split('\n').at(-1) ?? '';
    const parsed: unknown = JSON.parse(last);
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      !('claimed' in parsed) ||
      !Array.isArray(parsed.claimed)
    )
      throw new Error(`worker ${name} printed ${last}`);
    return { name, claimed: parsed.claimed.map(Number) };
  });
  return { child, reached, done };
}

/** Lets every worker pass a step at the same moment. */
async function together(workers: Worker[], step: string): Promise<void> {
  await Promise.all(workers.map((worker) => worker.reached(step)));
  for (const worker of workers) worker.child.stdin?.write('go\n');
}

describe('two processes sharing one state file', () => {
  let db: TempDatabase;
  let store: StateStore;
  let results: Finished[];

  beforeAll(async () => {
    db = await tempDatabase();
    const workers = [startWorker(db.url, 'alpha'), startWorker(db.url, 'beta')];
    // Both create and migrate the missing file at the same moment, then append and claim at the same moment.
    await together(workers, 'ready');
    await together(workers, 'opened');
    results = await Promise.all(workers.map((worker) => worker.done));
    store = await openStateStore({
      url: db.url,
      logger: memoryLogger(),
      now: asDates(pinnedClock()),
      migrations,
    });
  });

  afterAll(async () => {
    await store?.close();
    await db?.remove();
  });

  it('both migrate the new file, and version 1 is recorded once', async () => {
    const versions = await store.client.execute('SELECT version FROM schema_migrations');
    expect(versions.rows.map((row) => row.version)).toEqual(migrations.map((migration) => migration.version));
  });

  it('their appends form one valid chain holding every row of both', async () => {
    const audit = createAuditLog({ store, secrets: new SecretRegistry() });
    expect(await audit.verify()).toEqual({ ok: true, count: 2 * ROWS });
    const rows = await store.client.execute('SELECT user_id, COUNT(*) AS n FROM audit_log GROUP BY user_id');
    expect(Object.fromEntries(rows.rows.map((row) => [row.user_id, row.n]))).toEqual({
      alpha: ROWS,
      beta: ROWS,
    });
  });

  it('each claimed key has exactly one winner across the two processes', () => {
    const winners = results.flatMap((result) => result.claimed).sort((a, b) => a - b);
    expect(winners).toEqual(Array.from({ length: CLAIMS }, (_, i) => i));
  });
});
