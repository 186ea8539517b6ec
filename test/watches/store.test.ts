/**
 * The watches table on its own: the caps hold in the INSERT itself, a lease is taken only when
 * free, expired or already ours, and a poll is saved only by the replica that still holds it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../src/runtime/migrations.js';
import { openStateStore, type StateStore } from '../../src/state/store.js';
import { initialProgress } from '../../src/watches/progress.js';
import { createWatchStore, ENDED_KEPT_MS, type NewWatch, type WatchStore } from '../../src/watches/store.js';
import { memoryLogger, type TempDatabase, tempDatabase } from '../state/temp-db.js';

const T0 = Date.parse('2026-11-21T14:00:00Z');
const MINUTE = 60_000;
const DAY = 86_400_000;

let db: TempDatabase | undefined;
let state: StateStore | undefined;
afterEach(async () => {
  await state?.close();
  await db?.remove();
  state = undefined;
  db = undefined;
});

async function setUp(): Promise<WatchStore> {
  db = await tempDatabase();
  state = await openStateStore({ url: db.url, logger: memoryLogger(), now: () => new Date(T0), migrations });
  return createWatchStore(state.client);
}

let next = 0;
function newWatch(overrides: Partial<NewWatch> = {}): NewWatch {
  return {
    id: `wa_${(next++).toString(16).padStart(12, '0')}`,
    owner: 'U0ALICE',
    channelId: 'C0INCIDENT',
    threadTs: null,
    pullZoneId: 308006,
    status: '5xx',
    code: null,
    everyMs: MINUTE,
    startedAt: T0,
    endsAt: T0 + 120 * MINUTE,
    alert: { count: 50, windowMs: 5 * MINUTE },
    nextPollAt: T0,
    progress: initialProgress(T0),
    ...overrides,
  };
}

const caps = { perUser: 2, perWorkspace: 3 };

describe('the watches table', () => {
  it('stores a watch and reads it back as it was stored', async () => {
    const store = await setUp();
    const watch = newWatch();
    expect(await store.insert(watch, caps)).toEqual({ inserted: true });
    expect(await store.get(watch.id)).toMatchObject({ ...watch, state: 'running', messageTs: null });
  });

  it('refuses a watch beyond the owner’s cap, then beyond the workspace’s', async () => {
    const store = await setUp();
    await store.insert(newWatch(), caps);
    await store.insert(newWatch(), caps);
    expect(await store.insert(newWatch(), caps)).toEqual({ inserted: false, cap: 'user', running: 2 });
    await store.insert(newWatch({ owner: 'U0BOB' }), caps);
    expect(await store.insert(newWatch({ owner: 'U0CAROL' }), caps)).toEqual({
      inserted: false,
      cap: 'workspace',
      running: 3,
    });
  });

  it('an ended watch no longer counts against the caps, and cannot be ended twice', async () => {
    const store = await setUp();
    const [a, b] = [newWatch(), newWatch()];
    await store.insert(a, caps);
    await store.insert(b, caps);
    expect(await store.end(a.id, 'stopped', 'U0BOB', T0 + MINUTE)).toMatchObject({
      state: 'ended',
      endedReason: 'stopped',
      endedBy: 'U0BOB',
    });
    expect(await store.end(a.id, 'finished', null, T0 + 2 * MINUTE)).toBeNull();
    expect(await store.insert(newWatch(), caps)).toEqual({ inserted: true });
  });

  it('forgets an ended watch 35 days after it ended, when another one ends, and keeps the younger ones', async () => {
    const store = await setUp();
    const [old, young, last] = [newWatch(), newWatch(), newWatch()];
    for (const watch of [old, young, last]) await store.insert(watch, { perUser: 5, perWorkspace: 5 });
    await store.end(old.id, 'stopped', 'U0BOB', T0);
    await store.end(young.id, 'stopped', 'U0BOB', T0 + 10 * DAY);
    await store.end(last.id, 'finished', null, T0 + ENDED_KEPT_MS + MINUTE);
    expect(await store.get(old.id)).toBeNull();
    expect(await store.get(young.id)).toMatchObject({ state: 'ended' });
    expect(await store.get(last.id)).toMatchObject({ state: 'ended' });
  });

  it('gives the lease to one replica until it expires, then to another, saying whose it was', async () => {
    const store = await setUp();
    const watch = newWatch();
    await store.insert(watch, caps);
    expect((await store.takeLease(watch.id, 'replica-a', T0, T0 + 90_000))?.previousOwner).toBeNull();
    expect(await store.takeLease(watch.id, 'replica-b', T0 + 60_000, T0 + 150_000)).toBeNull();
    expect(await store.due(T0 + 60_000, 'replica-b')).toEqual([]);
    expect((await store.takeLease(watch.id, 'replica-a', T0 + 60_000, T0 + 150_000))?.previousOwner).toBe(
      'replica-a',
    );
    const takeover = await store.takeLease(watch.id, 'replica-b', T0 + 150_001, T0 + 240_000);
    expect(takeover?.previousOwner).toBe('replica-a');
  });

  it('saves a poll only for the replica that still holds the lease', async () => {
    const store = await setUp();
    const watch = newWatch();
    await store.insert(watch, caps);
    const first = await store.takeLease(watch.id, 'replica-a', T0, T0 + 90_000);
    const second = await store.takeLease(watch.id, 'replica-b', T0 + 100_000, T0 + 190_000);
    const progress = { ...initialProgress(T0), total: 7 };
    const change = {
      progress,
      nextPollAt: T0 + 160_000,
      polledAt: T0 + 100_000,
      leaseExpiresAt: T0 + 190_000,
    };
    expect(await store.savePoll(watch.id, 'replica-a', first!.watch.version, change)).toBe(false);
    expect((await store.get(watch.id))?.progress.total).toBe(0);
    expect(await store.savePoll(watch.id, 'replica-b', second!.watch.version, change)).toBe(true);
    expect((await store.get(watch.id))?.progress.total).toBe(7);
  });

  it('refuses the save of a poll whose lease was taken by another and came back meanwhile', async () => {
    const store = await setUp();
    const watch = newWatch();
    await store.insert(watch, caps);
    const stale = await store.takeLease(watch.id, 'replica-a', T0, T0 + 90_000);
    await store.takeLease(watch.id, 'replica-b', T0 + 100_000, T0 + 190_000);
    const fresh = await store.takeLease(watch.id, 'replica-a', T0 + 200_000, T0 + 290_000);
    const change = (total: number) => ({
      progress: { ...initialProgress(T0), total },
      nextPollAt: T0 + 260_000,
      polledAt: T0 + 200_000,
      leaseExpiresAt: T0 + 290_000,
    });
    expect(await store.savePoll(watch.id, 'replica-a', stale!.watch.version, change(3))).toBe(false);
    expect(await store.savePoll(watch.id, 'replica-a', fresh!.watch.version, change(5))).toBe(true);
    expect((await store.get(watch.id))?.progress.total).toBe(5);
  });

  it('counts the running watches without reading them, and offers due ones without their progress', async () => {
    const store = await setUp();
    await store.insert(newWatch(), caps);
    await store.insert(newWatch({ owner: 'U0BOB' }), caps);
    expect(await store.countRunning()).toBe(2);
    const [due] = await store.due(T0 + 6 * MINUTE, 'replica-a');
    expect(due).not.toHaveProperty('progress');
  });

  it('a watch whose message was never posted waits, then is offered for ending', async () => {
    const store = await setUp();
    const watch = newWatch();
    await store.insert(watch, caps);
    expect(await store.due(T0 + MINUTE, 'replica-a')).toEqual([]);
    expect((await store.due(T0 + 6 * MINUTE, 'replica-a')).map((due) => due.id)).toEqual([watch.id]);
    await store.setMessage(watch.id, '1700000000.000100');
    expect((await store.due(T0 + MINUTE, 'replica-a')).map((due) => due.id)).toEqual([watch.id]);
  });

  it('a clean shutdown frees its leases at once', async () => {
    const store = await setUp();
    const watch = newWatch();
    await store.insert(watch, caps);
    await store.takeLease(watch.id, 'replica-a', T0, T0 + 90_000);
    await store.releaseLeases('replica-a');
    expect(await store.takeLease(watch.id, 'replica-b', T0 + 1, T0 + 90_000)).not.toBeNull();
  });
});
