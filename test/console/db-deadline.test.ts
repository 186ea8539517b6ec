import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type WholeConsoleDriver } from './driver.js';

/** Counts for minutes in SQLite: far past any deadline here, and still ends should a regression block the loop. */
const RUNAWAY =
  'db query WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000000) SELECT count(*) FROM r';

let c: WholeConsoleDriver;

beforeAll(async () => {
  c = await startConsole({ env: { EDGEOPS_DB_QUERY_TIMEOUT: '5s' } });
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
});
