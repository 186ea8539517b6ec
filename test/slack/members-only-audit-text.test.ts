/**
 * Raw text cannot hide what it does, in the audit log either: the row a refused outsider leaves
 * keeps what they typed, but never a control or invisible formatting character that would make
 * `/edge audit` (and its file) show something other than what was sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findHiddenCharacter } from '../../src/reply/hidden-characters.js';
import { type Harness, startHarness } from '../support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    policyYaml: 'roles:\n  everyone: ["*"]\ngrants:\n  - ops: "*"\n    roles: [everyone]\n',
  });
});
afterAll(async () => {
  await h?.close();
});

describe('an outsider’s refused command in the audit log', () => {
  it('is stored without the right-to-left override it carried', async () => {
    const typed = 'db exec DELETE FROM customers \u202E-- harmless';
    await h.command(typed, { userId: 'U0OUTSIDER', teamId: 'T0ELSEWHERE' });
    let text: unknown;
    await expect
      .poll(async () => {
        const rows = await h.runtime.services.audit.list({ limit: 10, filter: { userId: 'U0OUTSIDER' } });
        text = rows.find((row) => row.outcome === 'denied')?.params.text;
        return text !== undefined;
      })
      .toBe(true);
    expect(typeof text).toBe('string');
    expect(findHiddenCharacter(text as string)).toBeUndefined();
  });
});
