/**
 * The bot's own state on a remote libSQL server, as the running app reports it: /readyz answers
 * 503 while the state database is unreachable, and 200 once it answers again. What the bot does
 * meanwhile is tested through the engine in test/operations/state.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pinnedClock } from '../support/clock.js';
import { type Harness, startHarness } from '../support/harness.js';

const clock = pinnedClock();

let sandbox: Sandbox;
let h: Harness;

beforeAll(async () => {
  sandbox = await startSandbox({ now: clock });
  // The bot's own state on a remote libSQL server: the sandbox's Hrana endpoint.
  h = await startHarness({
    clock,
    sandbox,
    env: {
      STATE_DATABASE_URL: sandbox.databaseUrl,
      STATE_DATABASE_AUTH_TOKEN: sandbox.databaseTokens.fullAccess,
    },
  });
});
afterAll(async () => {
  sandbox.faults.clear();
  await h?.close();
  await sandbox?.close();
});

describe('the state store on a remote libSQL server', () => {
  it('answers /readyz 503 while the state database is unreachable, and 200 once it answers', async () => {
    expect((await fetch(`${h.metricsUrl}/readyz`)).status).toBe(200);
    sandbox.faults.set('database.pipeline', { status: 503 });
    try {
      expect((await fetch(`${h.metricsUrl}/readyz`)).status).toBe(503);
    } finally {
      sandbox.faults.clear();
    }
    expect((await fetch(`${h.metricsUrl}/readyz`)).status).toBe(200);
  });
});
