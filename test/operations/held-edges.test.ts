/**
 * The edges of an approval rule on a listing: what the bot says will wait must be what waits,
 * and what a rule holds is not read by another way round it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, type EngineTestbed, startEngineTestbed, wordsOf } from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({
    policyYaml: everyoneMayRun({ gated: ['approvals.list', 'pullzone.list'] }),
  });
});
afterAll(async () => {
  await bed?.close();
});

const YOU = { userId: 'U0YOU', channelId: 'C0OPS' };

describe('help under a rule on approvals.list', () => {
  it('does not say that /edge approvals cancel runs once approved: it runs at once', async () => {
    const help = answers(await bed.run('help', YOU))[0]!;
    const held = help.blocks.find(
      (block) => block.type === 'context' && JSON.stringify(block).includes('Run once approved'),
    );
    expect(held).toBeDefined();
    expect(JSON.stringify(held)).toContain('approvals');
    expect(JSON.stringify(held)).not.toContain('approvals cancel');
    const one = wordsOf(answers(await bed.run('help approvals cancel', YOU))[0]!);
    expect(one).not.toContain('runs once approved');
  });
});

describe('a rule on pullzone.list', () => {
  it('is not read round by /edge context set: no pull zone listing before an approval', async () => {
    const listed = bed.sandbox.requests.count('pullzone.list');
    await bed.run('context set pullzone=308006', YOU);
    expect(bed.sandbox.requests.count('pullzone.list')).toBe(listed);
  });
});
