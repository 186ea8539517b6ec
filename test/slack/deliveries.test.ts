import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../src/runtime/migrations.js';
import { createDeliveries, DeliveryUnrecordedError } from '../../src/slack/deliveries.js';
import { openStateStore, type StateStore } from '../../src/state/store.js';
import { memoryLogger, tempDatabase } from '../state/temp-db.js';
import { asDates, pinnedClock } from '../support/clock.js';

const clock = pinnedClock();

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function replica(url: string): Promise<StateStore> {
  const store = await openStateStore({ url, logger: memoryLogger(), now: asDates(clock), migrations });
  cleanups.push(() => store.close());
  return store;
}

describe('de-duplicating Slack redeliveries across replicas', () => {
  it('handles a first delivery once, and a redelivery to another replica not at all', async () => {
    const db = await tempDatabase();
    cleanups.push(db.remove);
    const [a, b] = [await replica(db.url), await replica(db.url)];
    const first = createDeliveries({
      state: a,
      logger: memoryLogger(),
      ttlMs: 60_000,
      now: clock,
      batchMs: 10,
    });
    const second = createDeliveries({
      state: b,
      logger: memoryLogger(),
      ttlMs: 60_000,
      now: clock,
      batchMs: 10,
    });
    expect(await first.firstTime('command:T1', undefined)).toBe(true);
    expect(await first.firstTime('command:T1', 1)).toBe(false);
    await first.flush();
    // Slack redelivers after its 3-second deadline, by then the record is in the database.
    expect(await second.firstTime('command:T1', 1)).toBe(false);
    expect(await second.firstTime('command:T2', 1)).toBe(true);
  });

  it('claims a change in the database before it runs, so a redelivery that reached another replica first wins', async () => {
    const db = await tempDatabase();
    cleanups.push(db.remove);
    const [a, b] = [await replica(db.url), await replica(db.url)];
    const options = { logger: memoryLogger(), ttlMs: 60_000, now: clock, batchMs: 10_000 };
    const first = createDeliveries({ state: a, ...options });
    const second = createDeliveries({ state: b, ...options });
    // The redelivery overtook the first delivery and ran on the other replica.
    expect(await second.firstTime('command:T3', 1, { changes: true })).toBe(true);
    expect(await first.firstTime('command:T3', undefined, { changes: true })).toBe(false);
    // And the other way round: the first delivery's claim is in the database at once, not batched.
    expect(await first.firstTime('command:T4', undefined, { changes: true })).toBe(true);
    expect(await second.firstTime('command:T4', 1, { changes: true })).toBe(false);
  });

  it('fails closed for a change when the state database cannot say, and lets a read through', async () => {
    const db = await tempDatabase();
    cleanups.push(db.remove);
    const store = await replica(db.url);
    const deliveries = createDeliveries({
      state: store,
      logger: memoryLogger(),
      ttlMs: 60_000,
      now: clock,
      batchMs: 10,
    });
    await store.client.execute('DROP TABLE claims');
    await expect(deliveries.firstTime('command:T5', undefined, { changes: true })).rejects.toBeInstanceOf(
      DeliveryUnrecordedError,
    );
    await expect(deliveries.firstTime('command:T6', 1, { changes: true })).rejects.toBeInstanceOf(
      DeliveryUnrecordedError,
    );
    expect(await deliveries.firstTime('command:T7', undefined)).toBe(true);
  });

  it('writes first deliveries in batches shortly after they arrive', async () => {
    const db = await tempDatabase();
    cleanups.push(db.remove);
    const store = await replica(db.url);
    const deliveries = createDeliveries({
      state: store,
      logger: memoryLogger(),
      ttlMs: 60_000,
      now: clock,
      batchMs: 20,
    });
    for (let i = 0; i < 30; i++) expect(await deliveries.firstTime(`command:${i}`, undefined)).toBe(true);
    await expect
      .poll(async () => Number((await store.client.execute('SELECT count(*) AS n FROM claims')).rows[0]?.n), {
        timeout: 2_000,
      })
      .toBe(30);
  });
});

describe('running a delivery once', () => {
  async function deliveriesOf(url: string) {
    const logger = memoryLogger();
    const store = await replica(url);
    return {
      store,
      logger,
      deliveries: createDeliveries({ state: store, logger, ttlMs: 60_000, now: clock }),
    };
  }

  it('runs a first delivery, and logs a redelivery as a duplicate without running it', async () => {
    const db = await tempDatabase();
    cleanups.push(db.remove);
    const { logger, deliveries } = await deliveriesOf(db.url);
    const runs: string[] = [];
    const notRun = {
      what: 'command delivery',
      userId: 'U1',
      unrecorded: async () => void runs.push('refused'),
    };
    for (const changes of [true, false]) {
      const key = `command:once-${changes}`;
      await deliveries.once({ key, retryNum: undefined, changes }, async () => runs.push(key), notRun);
      await deliveries.once({ key, retryNum: 1, changes }, async () => runs.push(`${key} again`), notRun);
    }
    expect(runs).toEqual(['command:once-true', 'command:once-false']);
    const duplicates = logger.lines.filter((line) => line.includes('duplicate command delivery ignored'));
    expect(duplicates).toHaveLength(2);
    expect(duplicates[0]).toContain('"user":"U1"');
  });

  it('runs nothing of a change whose delivery cannot be recorded, and tells the user instead', async () => {
    const db = await tempDatabase();
    cleanups.push(db.remove);
    const { store, deliveries } = await deliveriesOf(db.url);
    await store.client.execute('DROP TABLE claims');
    const runs: string[] = [];
    const notRun = {
      what: 'form submission',
      userId: 'U1',
      unrecorded: async () => void runs.push('refused'),
    };
    await deliveries.once(
      { key: 'view:V1:h', retryNum: undefined, changes: true },
      async () => runs.push('change'),
      notRun,
    );
    // A read is let through: running it twice costs an extra answer, never a second change.
    await deliveries.once(
      { key: 'view:V2:h', retryNum: 1, changes: false },
      async () => runs.push('read'),
      notRun,
    );
    expect(runs).toEqual(['refused', 'read']);
  });
});
