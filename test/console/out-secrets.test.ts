import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_API_KEY } from '../../src/sandbox/server.js';
import { startConsole, type WholeConsoleDriver } from './driver.js';

let c: WholeConsoleDriver;

beforeAll(async () => {
  c = await startConsole();
});
afterAll(async () => {
  await c?.end();
  c?.remove();
});

describe('the files the console writes', () => {
  it('hold no secret of the bot: a query row with the platform key is saved masked, and the answer says so', async () => {
    // The statement builds the key from two halves: only the rows hold it whole, in a value longer
    // than a table cell, so the file is attached.
    const half = SANDBOX_API_KEY.length / 2;
    const pasted = ' pasted by mistake into a note long enough to be cut short in the table of the answer';
    const out = await c.type(
      `db query SELECT id, '${SANDBOX_API_KEY.slice(0, half)}' || '${SANDBOX_API_KEY.slice(half)}' || '${pasted}' AS api_key FROM orders ORDER BY id LIMIT 3`,
    );
    const saved = readdirSync(c.outDir).find((name) => /^query-\d{8}-\d{6}\.csv$/.test(name));
    expect(saved).toBeDefined();
    const records = readFileSync(join(c.outDir, saved!), 'utf8').split('\r\n');
    expect(records.slice(0, 4)).toEqual([
      'id,api_key',
      `1,[redacted …${SANDBOX_API_KEY.slice(-4)}]${pasted}`,
      `2,[redacted …${SANDBOX_API_KEY.slice(-4)}]${pasted}`,
      `3,[redacted …${SANDBOX_API_KEY.slice(-4)}]${pasted}`,
    ]);
    expect(out).toContain('3 values that are secrets of this bot were masked.');
    for (const name of readdirSync(c.outDir)) {
      const content = readFileSync(join(c.outDir, name), 'utf8');
      for (const secret of c.secrets.values()) expect(content).not.toContain(secret);
    }
  });
});
