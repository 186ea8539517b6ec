/**
 * Ids you can look up: /edge pullzones and /edge shield zones list what every incident command
 * needs, and their buttons run the next step as if the clicker had typed it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buttonsOf, type EngineTestbed, onlyAnswer, startEngineTestbed, wordsOf } from '../support/engine.js';
import { ZONE_LISTS_POLICY } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: ZONE_LISTS_POLICY });
});
afterAll(async () => {
  await bed?.close();
});
afterEach(async () => {
  await expect.poll(() => bed.runtime.services.jobs.running().length, { timeout: 20_000 }).toBe(0);
});

const privateAnswer = async (text: string, userId = 'U0YOU') =>
  onlyAnswer(await bed.run(text, { userId, channelId: 'C0OPS' }));

describe('/edge pullzones', () => {
  it('lists every pull zone with its id, hostnames and the Shield zone guarding it', async () => {
    const text = wordsOf(await privateAnswer('pullzones'));
    for (const id of bed.sandbox.pullZoneIds) expect(text).toContain(`(id ${id})`);
    expect(text).toContain('www-example.b-cdn.net');
    expect(text).toContain('Shield zone 5101');
    expect(bed.sandbox.requests.all().at(-1)?.routeId).toMatch(/pullzone.list|shieldzone.list/);
  });

  it('finds pull zones by a search on names and hostnames', async () => {
    const text = wordsOf(await privateAnswer('pullzones media'));
    expect(text).toContain('media-cdn');
    expect(text).not.toContain('www-example');
    expect(
      bed.sandbox.requests.all().find((r) => r.routeId === 'pullzone.list' && r.query.search === 'media'),
    ).toBeDefined();
  });

  it('gives each zone buttons that run its next steps', async () => {
    const buttons = buttonsOf(await privateAnswer('pullzones www'));
    expect(buttons.map((b) => [b.text, b.value])).toEqual(
      expect.arrayContaining([
        ['Logs today', 'logs 308006 today'],
        ['Export events', 'shield export 5101'],
        ['Bot detection', 'shield bot-detection 5101'],
        ['Reset key', 'pullzone reset-key 308006'],
      ]),
    );
    // Unique action ids within a block, as Slack requires, are the adapter's (test/slack/zone-lists.test.ts).
  });

  it('a button runs its command under the policy, as typing it would', async () => {
    const bot = buttonsOf(await privateAnswer('pullzones www')).find((b) => b.text === 'Bot detection')!;
    const records = await bed.click(bot, { channelId: 'C0OPS' });
    expect(wordsOf(onlyAnswer(records))).toContain('shield.bot-detection');
    expect(records.filter((record) => record.kind === 'form')).toEqual([]);
    const audit = await bed.runtime.services.audit.list({ limit: 5 });
    expect(audit.some((row) => row.operation === 'shield.bot-detection' && row.outcome === 'denied')).toBe(
      true,
    );
  });
});

describe('/edge shield zones', () => {
  it('lists every Shield zone with its pull zone by name and its plan', async () => {
    const text = wordsOf(await privateAnswer('shield zones'));
    for (const id of bed.sandbox.shieldZoneIds) expect(text).toContain(`Shield zone ${id}`);
    expect(text).toContain('pull zone 308006 (www-example)');
    expect(text).toContain('Basic plan');
    expect(text).toContain('Advanced plan');
  });

  it('an Export button opens the export form for that zone', async () => {
    const exportButton = buttonsOf(await privateAnswer('shield zones')).find(
      (b) => b.value === 'shield export 5101',
    )!;
    const records = await bed.click(exportButton, { channelId: 'C0OPS' });
    const form = records.find((record) => record.kind === 'form');
    expect(JSON.stringify(form)).toContain('shield.export:window');
  });

  it('a user without the grant is refused, naming the rule', async () => {
    const answer = onlyAnswer(await bed.run('shield zones', { channelId: 'C0ELSEWHERE' }));
    expect(wordsOf(answer)).toContain('C0OPS');
  });
});
