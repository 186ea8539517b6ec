import { createClient } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import {
  createDigestStore,
  digestsMigration,
  ENDED_KEPT_MS,
  type NewDigest,
} from '../../src/state/digests.js';

/** A daily logs digest of pull zone 1 at 09:00 UTC, created at `createdAt`, next due at `nextRunAt`. */
const digest = (id: string, createdAt: number, nextRunAt: number): NewDigest => ({
  id,
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
  createdAt,
  nextRunAt,
});

/** A claim taken over: the replica that lost it must not move the digest past the occurrence. */
describe('a digest occurrence whose claim was taken over', () => {
  it('stays due when the replica that lost it finishes, so it is retried if the one that took it dies', async () => {
    const client = createClient({ url: ':memory:' });
    for (const sql of digestsMigration.statements) await client.execute(sql);
    const store = createDigestStore(client);
    const O = 1_000_000_000_000;
    const NEXT = O + 86_400_000;
    await store.insert(digest('dg_000000000001', O - 1000, O), { perUser: 5, perWorkspace: 50 });
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

describe('ended digests', () => {
  it('are forgotten 35 days after they ended, when another one ends, the younger ones kept', async () => {
    const client = createClient({ url: ':memory:' });
    for (const sql of digestsMigration.statements) await client.execute(sql);
    const store = createDigestStore(client);
    const O = 1_000_000_000_000;
    const ids = ['dg_000000000010', 'dg_000000000011', 'dg_000000000012'];
    for (const id of ids) await store.insert(digest(id, O, O + 86_400_000), { perUser: 5, perWorkspace: 50 });
    await store.end(ids[0]!, 'stopped', 'U1', O);
    await store.end(ids[1]!, 'stopped', 'U1', O + 10 * 86_400_000);
    await store.end(ids[2]!, 'stopped', 'U1', O + ENDED_KEPT_MS + 60_000);
    expect(await store.get(ids[0]!)).toBeNull();
    expect((await store.get(ids[1]!))?.state).toBe('ended');
    expect((await store.get(ids[2]!))?.state).toBe('ended');
  });
});
