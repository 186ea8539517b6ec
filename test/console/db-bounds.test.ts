import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type WholeConsoleDriver } from './driver.js';

/** Counts for minutes in SQLite: far past any deadline here, and still ends should a regression block the loop. */
const RUNAWAY =
  'db query WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000000) SELECT count(*) FROM r';

let c: WholeConsoleDriver;

beforeAll(async () => {
  c = await startConsole({
    env: {
      EDGEOPS_DB_QUERY_TIMEOUT: '5s',
      EDGEOPS_DB_QUERY_MAX_ROWS: '25',
      EDGEOPS_DB_QUERY_MAX_BYTES: '64KB',
    },
  });
});
afterAll(async () => {
  await c?.end();
  c?.remove();
});

describe('the console against the built-in sandbox', () => {
  it('abandons a runaway query at its deadline and goes on answering, database queries included', async () => {
    const abandoned = await c.type(RUNAWAY);
    expect(abandoned).toContain('The query was abandoned after 5 seconds.');
    expect(abandoned).toMatch(/correlation id c-[0-9a-f]+/);
    expect(await c.type('whoami')).toContain('U0YOU');
    const next = await c.type('db query SELECT count(*) AS n FROM orders');
    expect(next).toMatch(/n\s*\n\s*-+\s*\n\s*30\b/);
  });

  it('stops a query at the row cap of EDGEOPS_DB_QUERY_MAX_ROWS and saves the rows read', async () => {
    const out = await c.type('db query SELECT id, status FROM orders ORDER BY id');
    expect(out).toContain('The query stopped at the cap of 25 rows (EDGEOPS_DB_QUERY_MAX_ROWS)');
    const saved = readdirSync(c.outDir).find((name) => /^query-\d{8}-\d{6}\.csv$/.test(name));
    expect(saved).toBeDefined();
    expect(out).toContain(saved!);
    const records = readFileSync(join(c.outDir, saved!), 'utf8').split('\r\n');
    expect(records[0]).toBe('id,status');
    expect(records.filter((record) => record !== '')).toHaveLength(26);
    expect(records[25]).toMatch(/^25,/);
  });

  it('stops a query at the size cap of EDGEOPS_DB_QUERY_MAX_BYTES', async () => {
    const out = await c.type(
      "db query WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 20) SELECT printf('%.10000c', 'z') AS wide FROM r",
    );
    expect(out).toContain(
      'The query stopped at the cap of 64 KB of values (EDGEOPS_DB_QUERY_MAX_BYTES) after 6 rows: the result has more.',
    );
  });
});
