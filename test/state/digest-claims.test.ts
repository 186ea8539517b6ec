import { createClient } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import { createDigestStore, digestsMigration } from '../../src/state/digests.js';

/** A claim taken over: the replica that lost it must not move the digest past the occurrence. */
describe('a digest occurrence whose claim was taken over', () => {
  it('stays due when the replica that lost it finishes, so it is retried if the one that took it dies', async () => {
    const client = createClient({ url: ':memory:' });
    for (const sql of digestsMigration.statements) await client.execute(sql);
    const store = createDigestStore(client);
    const O = 1_000_000_000_000;
    const NEXT = O + 86_400_000;
    await store.insert(
      {
        id: 'dg_000000000001',
        owner: 'U1',
        channelId: 'C1',
        kind: 'logs',
        zoneId: 1,
        atMinute: 540,
        timeZone: 'UTC',
        every: 'day',
        weekday: null,
        query: null,
        filters: [],
        createdAt: O - 1000,
        nextRunAt: O,
      },
      { perUser: 5, perWorkspace: 50 },
    );
    const A = { digestId: 'dg_000000000001', occurrenceAt: O, runner: 'A' };
    const B = { ...A, runner: 'B' };
    expect(await store.claim(A, O, O + 600_000)).toBe(true);
    // A's lease lapses (GC pause, renew failures); B takes over.
    expect(await store.claim(B, O + 600_001, O + 1_200_001)).toBe(true);
    // A finishes summarising: beginPosting refuses it ('dropped'), and run.ts then calls finish(failed).
    expect(await store.beginPosting(A)).toBe(false);
    await store.finish(A, 'failed', O + 700_000, NEXT);
    // B dies while summarising. Its lease runs out; is the digest still due so that someone retries?
    const due = await store.due(O + 1_300_000);
    expect(await store.runState(A.digestId, O)).toBe('running');
    expect(due.map((d) => d.id)).toEqual(['dg_000000000001']);
  });
});
