/**
 * A click that will be refused is refused before any form: the Reset key next step on a
 * pull zone whose key reset already waits for approval says so at once, instead of opening the
 * form, asking for a reason, and refusing it on submit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EngineTestbed,
  menuOptionsOf,
  onlyAnswer,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';
import { ZONE_LISTS_POLICY } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: ZONE_LISTS_POLICY });
});
afterAll(async () => {
  await bed?.close();
});

describe('Reset key on a zone whose reset already waits', () => {
  it('is refused with a pointer to the open request, before any form opens', async () => {
    const asked = await bed.run('pullzone reset-key 308006 leaked in a log', {
      userId: 'U0FIRST',
      channelId: 'C0OPS',
    });
    const id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(asked))?.[0];
    expect(id).toBeDefined();

    const listing = onlyAnswer(await bed.run('pullzones www', { userId: 'U0YOU', channelId: 'C0OPS' }));
    const reset = menuOptionsOf(listing).find(
      (button) => button.text === 'Reset key…' && button.value.includes('308006'),
    );
    expect(reset).toBeDefined();
    const clicked = await bed.click(reset!, { userId: 'U0YOU', channelId: 'C0OPS' });

    expect(clicked.filter((record) => record.kind === 'form')).toEqual([]);
    expect(wordsOf(onlyAnswer(clicked))).toContain(id!);
  });
});
