/**
 * Input that forgives, through the engine: common other words work, and flags typed on a phone
 * (—last, –page) mean what they say. Group help, suggestions and the DNS and API-key cases are in
 * help, dns, apikeys and shield-enums beside this file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answered, type EngineTestbed, startEngineTestbed } from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
// Everything is allowed here, so that a denial never hides how the input was read.
const POLICY = everyoneMayRun({
  gated: ['pullzone.reset-key', 'db.exec', 'db.tokens.create', 'db.tokens.invalidate'],
});

beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: POLICY });
});
afterAll(async () => {
  await bed?.close();
});

const privateAnswer = async (text: string) => answered(await bed.run(text));

let users = 0;
/** Long jobs are capped per person: each export or log command here is someone else's. */
const someone = () => `U0IN${++users}`;

const lastRequest = (route: Parameters<EngineTestbed['sandbox']['requests']['count']>[0]) =>
  bed.sandbox.requests
    .all()
    .filter((request) => request.routeId === route)
    .at(-1);

describe('other words for a command', () => {
  it('/edge log works like /edge logs', async () => {
    const before = bed.sandbox.requests.count('logs.origin');
    await bed.run('log 308006 yesterday', { userId: someone() });
    // Today, and yesterday for the same two hours a day earlier.
    expect(bed.sandbox.requests.count('logs.origin')).toBe(before + 2);
  });
});

describe('input typed on a phone', () => {
  it.each(['—last 2h', '–last 2h', '-last 2h', '--since 2h', '—since 2h'])(
    '/edge shield export 5101 %s asks for the last two hours',
    async (flags) => {
      await bed.run(`shield export 5101 ${flags}`, { userId: someone() });
      expect(lastRequest('shield.export')?.body).toMatchObject({
        from: bed.clock() - 7_200_000,
        to: bed.clock(),
      });
    },
  );

  it('/edge logs 308006 —last 2h is not refused for its "2h"', async () => {
    // Not from the days an earlier test kept: that it ran shows as its downloads.
    await bed.runtime.services.keptDays.clear();
    const before = bed.sandbox.requests.count('logs.origin');
    await bed.run('logs 308006 —last 2h', { userId: someone() });
    // Today, and yesterday for the same two hours a day earlier.
    expect(bed.sandbox.requests.count('logs.origin')).toBe(before + 2);
  });

  it('a time of day means today in UTC', async () => {
    await bed.run('shield export 5101 --from 10:00 --to 11:30', { userId: someone() });
    const day = Math.floor(bed.clock() / 86_400_000) * 86_400_000;
    expect(lastRequest('shield.export')?.body).toMatchObject({
      from: day + 10 * 3_600_000,
      to: day + 11.5 * 3_600_000,
    });
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
