/**
 * `/edge audit` shows one line per request: the steps of two requests are never folded into one
 * line, even where one sweep closed both under one correlation id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply } from '../../src/reply/model.js';
import { answered, type EngineTestbed, onlyAnswer, startEngineTestbed } from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed({
    policyYaml: everyoneMayRun({ gated: ['db.exec'] }),
    serviceDatabase: true,
  });
});
afterAll(async () => {
  await bed?.close();
});

const linesOf = (reply: Reply) =>
  reply.blocks
    .flatMap((block) => (block.type === 'text' ? block.text.split('\n') : []))
    .filter((line) => line.startsWith('`'));

describe('/edge audit, one line per request', () => {
  it('keeps apart requests one expiry sweep closed together', async () => {
    for (const userId of ['U0ANN', 'U0BEA'])
      expect(
        answered(await bed.run("db exec UPDATE orders SET status = 'held' WHERE id = 9", { userId })),
      ).toContain('Approval requested');
    bed.clock.set(bed.clock() + 31 * 60_000);
    await bed.runtime.approvals.sweep(bed.messenger);
    const lines = linesOf(onlyAnswer(await bed.run('audit --op db.exec --limit 50')));
    const closed = lines.filter((line) => line.includes('*expired*'));
    // Each request's expiry is a line of its own, naming its requester.
    expect(closed.filter((line) => line.includes('<@U0ANN>'))).toHaveLength(1);
    expect(closed.filter((line) => line.includes('<@U0BEA>'))).toHaveLength(1);
    expect(closed.every((line) => !line.includes('expired → expired'))).toBe(true);
  });

  it('shows a request closed by the next one for its target apart from the one that closed it', async () => {
    const ask = () => bed.run("db exec UPDATE orders SET status = 'held' WHERE id = 8", { userId: 'U0CAT' });
    expect(answered(await ask())).toContain('Approval requested');
    bed.clock.set(bed.clock() + 31 * 60_000);
    // No sweep in between: asking again closes the expired request, in the same step.
    expect(answered(await ask())).toContain('Approval requested');
    const lines = linesOf(onlyAnswer(await bed.run('audit --op db.exec --user U0CAT --limit 50')));
    expect(lines.map((line) => /\*([^*]+)\*/.exec(line)?.[1])).toEqual([
      'approval-requested',
      'expired',
      'approval-requested',
    ]);
  });
});
