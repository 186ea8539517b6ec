/**
 * Input that forgives: common other words work, and flags typed on a phone (—last, –page) mean
 * what they say. Group help, suggestions and the DNS and API-key cases are checked through the
 * engine in test/operations/ (help, dns, apikeys, shield-enums).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';
import { everyoneMayRun } from '../support/policies.js';

let h: Harness;
// Everything is allowed here, so that a denial never hides how the input was read.
const POLICY = everyoneMayRun({
  gated: ['pullzone.reset-key', 'db.exec', 'db.tokens.create', 'db.tokens.invalidate'],
});

beforeAll(async () => {
  h = await startHarness({ policyYaml: POLICY });
});
afterAll(async () => {
  await h?.close();
});
// Long jobs count against a cap per person and per process: each test's jobs end before the next.
afterEach(async () => {
  await expect.poll(() => h.runtime.services.jobs.running().length, { timeout: 20_000 }).toBe(0);
});

async function privateAnswer(text: string) {
  const { responseUrl } = await h.command(text);
  return JSON.stringify((await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000)).body);
}

let users = 0;
/** Long jobs are capped per person: each export or log command here is someone else's. */
const someone = () => `U0IN${++users}`;

const lastRequest = (route: Parameters<Harness['sandbox']['requests']['count']>[0]) =>
  h.sandbox.requests
    .all()
    .filter((request) => request.routeId === route)
    .at(-1);

describe('other words for a command', () => {
  it('/edge log works like /edge logs', async () => {
    const before = h.sandbox.requests.count('logs.origin');
    await h.command('log 308006 yesterday', { userId: someone() });
    // Today, and yesterday for the same two hours a day earlier.
    await expect.poll(() => h.sandbox.requests.count('logs.origin'), { timeout: 10_000 }).toBe(before + 2);
  });
});

describe('input typed on a phone', () => {
  it.each(['—last 2h', '–last 2h', '-last 2h', '--since 2h', '—since 2h'])(
    '/edge shield export 5101 %s asks for the last two hours',
    async (flags) => {
      await h.command(`shield export 5101 ${flags}`, { userId: someone() });
      await expect
        .poll(() => lastRequest('shield.export')?.body, { timeout: 10_000 })
        .toMatchObject({ from: h.clock() - 7_200_000, to: h.clock() });
    },
  );

  it('/edge logs 308006 —last 2h is not refused for its "2h"', async () => {
    const before = h.sandbox.requests.count('logs.origin');
    await h.command('logs 308006 —last 2h', { userId: someone() });
    // Today, and yesterday for the same two hours a day earlier.
    await expect.poll(() => h.sandbox.requests.count('logs.origin'), { timeout: 10_000 }).toBe(before + 2);
  });

  it('a time of day means today in UTC', async () => {
    await h.command('shield export 5101 --from 10:00 --to 11:30', { userId: someone() });
    const day = Math.floor(h.clock() / 86_400_000) * 86_400_000;
    await expect
      .poll(() => lastRequest('shield.export')?.body, { timeout: 10_000 })
      .toMatchObject({ from: day + 10 * 3_600_000, to: day + 11.5 * 3_600_000 });
  });

  it('a slash date is refused as ambiguous, with the two forms that work', async () => {
    const answer = await privateAnswer('logs 308006 03/04/2026');
    expect(answer).toContain('is ambiguous');
    expect(answer).toContain('yyyy-MM-dd or MM-dd-yyyy');
  });

  it('a reason that starts with a dash is kept as typed', async () => {
    const answer = await privateAnswer('pullzone reset-key 308006 —leaked in CI');
    expect(answer).not.toContain('unknown flag');
  });
});
