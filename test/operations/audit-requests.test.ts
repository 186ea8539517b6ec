/**
 * `/edge audit` shows one line per request: the steps of two requests are never folded into one
 * line, even where one sweep closed both under one correlation id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply } from '../../src/reply/model.js';
import { cellField } from '../../src/reply/table.js';
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

/** The requests of an audit answer's table, by column: each cell as its text (a member as their id). */
const requestsOf = (reply: Reply) =>
  reply.blocks.flatMap((block) =>
    block.type === 'table'
      ? block.table.rows.map((row) =>
          Object.fromEntries(
            block.table.columns.map((column, i) => [column.header, cellField(row[i] ?? '')]),
          ),
        )
      : [],
  );

describe('/edge audit, one line per request', () => {
  it('keeps apart requests one expiry sweep closed together', async () => {
    for (const userId of ['U0ANN', 'U0BEA'])
      expect(
        answered(await bed.run("db exec UPDATE orders SET status = 'held' WHERE id = 9", { userId })),
      ).toContain('Approval requested');
    bed.clock.set(bed.clock() + 31 * 60_000);
    await bed.runtime.approvals.sweep(bed.messenger);
    const requests = requestsOf(onlyAnswer(await bed.run('audit --op db.exec --limit 50')));
    const closed = requests.filter((r) => r.Steps!.includes('expired'));
    // Each request's expiry is a line of its own, naming its requester.
    expect(closed.filter((r) => r.User === 'U0ANN')).toHaveLength(1);
    expect(closed.filter((r) => r.User === 'U0BEA')).toHaveLength(1);
    expect(closed.map((r) => r.Steps)).toEqual(['expired', 'expired']);
  });

  it('shows a request closed by the next one for its target apart from the one that closed it', async () => {
    const ask = () => bed.run("db exec UPDATE orders SET status = 'held' WHERE id = 8", { userId: 'U0CAT' });
    expect(answered(await ask())).toContain('Approval requested');
    bed.clock.set(bed.clock() + 31 * 60_000);
    // No sweep in between: asking again closes the expired request, in the same step.
    expect(answered(await ask())).toContain('Approval requested');
    const requests = requestsOf(onlyAnswer(await bed.run('audit --op db.exec --user U0CAT --limit 50')));
    expect(requests.map((r) => r.Steps)).toEqual(['approval-requested', 'expired', 'approval-requested']);
  });
});
