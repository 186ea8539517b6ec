/** The zone directory behind the pickers, against the sandbox: matching, ranking and the bound. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandFormSpec } from '../../src/operations/menu/command-forms.js';
import { answers, type EngineTestbed, startEngineTestbed, wordsOf } from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: everyoneMayRun() });
});
afterAll(async () => {
  await bed?.close();
});

const suggest = async (pick: 'pullzone' | 'shieldzone' | 'any', typed: string, limit = 100) =>
  (await bed.runtime.services.zones.suggest(pick, typed, { waitMs: 2_000, limit })).map(
    (zone) => `${zone.kind}:${zone.id}`,
  );

describe('the zone directory', () => {
  it('puts an id typed in full before the zones whose id only starts with it', async () => {
    expect(await suggest('pullzone', '410113')).toEqual(['pullzone:410113']);
    expect((await suggest('any', '5101'))[0]).toBe('shieldzone:5101');
  });

  it('shares its bound between the two kinds, so that neither crowds the other out', async () => {
    expect(await suggest('any', '', 4)).toEqual([
      'pullzone:308006',
      'pullzone:410112',
      'shieldzone:5101',
      'shieldzone:5102',
    ]);
    // With one kind short of its half, the other takes the room left.
    const seven = await suggest('any', '', 7);
    expect(seven.filter((zone) => zone.startsWith('shieldzone'))).toHaveLength(3);
    expect(seven).toHaveLength(7);
  });

  it('finds a zone by id, and nothing for an id the platform does not know', async () => {
    expect(await bed.runtime.services.zones.find('shieldzone', 5102)).toMatchObject({
      zone: { name: 'media-cdn' },
    });
    expect(await bed.runtime.services.zones.find('pullzone', 999_999)).toEqual({ absent: true });
  });

  it('offers, and runs, a zone past the pages it reads, when its id is typed', async () => {
    // Five pages of 1,000 are read: the seeded zones and 4,995 more fill them, the next is past.
    const added = bed.sandbox.addPullZones(5_001);
    const past = added.at(-1)!;
    // Not in the pages read, and the account has more: not proof that it does not exist.
    expect(await bed.runtime.services.zones.find('pullzone', past)).toEqual({ unchecked: true });
    // So a change to it is asked for, not refused as unknown.
    const asked = JSON.stringify(await bed.run(`pullzone reset-key ${past} rotated`));
    expect(asked).not.toContain('was found on the platform');
    const offered = await bed.runtime.engine.suggestZones({
      userId: 'U0YOU',
      channelId: 'C0OPS',
      zones: 'pullzone',
      typed: String(past),
      waitMs: 10_000,
      limit: 100,
    });
    expect(offered).toEqual([{ kind: 'pullzone', id: past, typed: true }]);
    // Chosen in the logs form, it runs as if typed: the platform knows it.
    const logs = bed.runtime.engine.operations.find((op) => op.words[0] === 'logs')!;
    const submitted = await bed.submit(commandFormSpec(logs), { PULLZONE_ID: String(past), '--last': '1h' });
    if ('errors' in submitted) throw new Error(JSON.stringify(submitted.errors));
    expect(wordsOf(answers(submitted.records).at(-1)!)).toContain(`pull zone ${past}`);
  }, 30_000);
});
