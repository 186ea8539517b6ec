/**
 * The walkthrough's digest: set one a minute ahead in the console, and it is shown there when its
 * time comes (the console's runtime runs the same digest runner as a Slack one).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEEDED_IDS } from '../../src/sandbox/seed.js';
import { pinnedClock } from '../support/clock.js';
import { startConsole, type WholeConsoleDriver } from './driver.js';

const clock = pinnedClock('2026-11-21T14:00:00.000Z');
let c: WholeConsoleDriver;
beforeAll(async () => {
  c = await startConsole({ clock });
});
afterAll(async () => {
  await c?.end();
  c?.remove();
});

describe('a digest in the console', () => {
  it('is set a minute ahead and shown in the console when its time comes', async () => {
    const zone = SEEDED_IDS.quietPullZone;
    const set = await c.type(`/edge digest logs ${zone} --at 14:01`);
    expect(set).toMatch(/14:01/);
    const from = c.text().length;
    clock.advance(2 * 60_000);
    await c.runtime.digestRunner.tick();
    expect(await c.waitFor(new RegExp(`No origin errors on pull zone ${zone}`), from)).toBeTruthy();
  });
});
