/** The zone directory behind the pickers, against the sandbox: matching, ranking and the bound. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineTestbed, startEngineTestbed } from '../support/engine.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
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
    expect(await bed.runtime.services.zones.find('shieldzone', 5102)).toMatchObject({ name: 'media-cdn' });
    expect(await bed.runtime.services.zones.find('pullzone', 999_999)).toBeUndefined();
  });
});
