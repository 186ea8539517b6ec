/**
 * The poller against a real watches table and a platform whose downloads take clock time: two
 * replicas never both download one poll, a slow download is finished under its lease (and stopped
 * at its deadline), close() stops a download that hangs, an entry stamped after a poll is counted
 * once its time has come, whichever replica polls then, and a poll late past midnight still reads
 * the day before.
 */
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { Messenger } from '../../src/operations/engine/ports.js';
import { createWatchPoller, type WatchPoller } from '../../src/operations/watches/poller.js';
import type { Authorizer } from '../../src/policy/authorizer.js';
import { migrations } from '../../src/runtime/migrations.js';
import type { AuditLog } from '../../src/state/audit.js';
import { openStateStore, type StateStore } from '../../src/state/store.js';
import { initialProgress } from '../../src/watches/progress.js';
import { createWatchStore, type WatchStore } from '../../src/watches/store.js';
import { memoryLogger, type TempDatabase, tempDatabase } from '../state/temp-db.js';
import { pinnedClock, type TestClock } from '../support/clock.js';

const SECOND = 1_000;
const MINUTE = 60_000;
const ZONE = 308_006;

let db: TempDatabase | undefined;
let state: StateStore | undefined;
const pollers: WatchPoller[] = [];
afterEach(async () => {
  for (const poller of pollers.splice(0)) await poller.close();
  await state?.close();
  await db?.remove();
  state = undefined;
  db = undefined;
});

const allowAll = {
  decide: async () => ({ allowed: true }),
} as unknown as Authorizer;

const messenger: Messenger = {
  postToChannel: async () => ({ channelId: 'C0INCIDENT', ts: '1.2' }),
  update: async () => undefined,
  sendDirect: async () => undefined,
  permalink: async () => undefined,
  deleteMessage: async () => undefined,
};

const sleep = (ms: number) => new Promise((settle) => setTimeout(settle, ms));

interface Download {
  day: string;
  done: boolean;
}

/**
 * A platform that serves the whole day so far on every download, as the real one does, and whose
 * new entries arrive while a download runs: `perChunk` per chunk, `chunks` chunks, each chunk
 * arriving `chunkMs` of clock time (and 2 ms of real time) after the one before, stamped a second
 * before it arrives, so after the poll that reads it began.
 */
function slowPlatform(clock: TestClock, shape: { chunks: number; chunkMs: number; perChunk: number }) {
  const downloads: Download[] = [];
  const logged: string[] = [];
  let next = 0;
  let arriving = true;
  return {
    downloads,
    served: () => logged.length,
    /** No entry arrives from now on; downloads still take their clock time. */
    quiet: () => {
      arriving = false;
    },
    platform: {
      async getOriginErrorLogs(_zone: number, day: Date, options: { signal?: AbortSignal } = {}) {
        const download: Download = { day: day.toISOString().slice(0, 10), done: false };
        downloads.push(download);
        const earlier = logged.join(',');
        async function* body() {
          yield `{"logs":[${earlier}`;
          let first = earlier === '';
          for (let chunk = 0; chunk < shape.chunks; chunk++) {
            await sleep(2);
            options.signal?.throwIfAborted();
            clock.advance(shape.chunkMs);
            if (!arriving) continue;
            const entries = Array.from({ length: shape.perChunk }, () =>
              JSON.stringify({
                logId: `e-${next++}`,
                timestamp: clock() - SECOND,
                log: '{}',
                labels: { ErrorCode: 'http_timeout', StatusCode: '504', ServerZone: 'DE' },
              }),
            );
            logged.push(...entries);
            yield `${first ? '' : ','}${entries.join(',')}`;
            first = false;
          }
          // The end arrives a moment later: time for the other replica to look at the lease.
          await sleep(20);
          yield ']}';
          download.done = true;
        }
        return { body: Readable.from(body()) };
      },
    },
  };
}

async function setUp(at: string) {
  const clock = pinnedClock(at);
  db = await tempDatabase();
  state = await openStateStore({
    url: db.url,
    logger: memoryLogger(),
    now: () => new Date(clock()),
    migrations,
  });
  const store = createWatchStore(state.client);
  // No watch ends in these tests: nothing is audited.
  const audit = {} as AuditLog;
  return { clock, store, audit };
}

async function startWatch(
  store: WatchStore,
  clock: TestClock,
  everyMs = MINUTE,
  { id = 'wa_00000000abcd', endsAt = clock() + 24 * 60 * MINUTE } = {},
) {
  await store.insert(
    {
      id,
      owner: 'U0ALICE',
      channelId: 'C0INCIDENT',
      threadTs: null,
      pullZoneId: ZONE,
      status: null,
      code: null,
      everyMs,
      startedAt: clock() - 5 * MINUTE,
      endsAt,
      alert: null,
      nextPollAt: clock(),
      progress: initialProgress(clock() - 5 * MINUTE),
    },
    { perUser: 5, perWorkspace: 5 },
  );
  await store.setMessage(id, '1.1');
  return id;
}

function poller(
  setup: Awaited<ReturnType<typeof setUp>>,
  platform: ReturnType<typeof slowPlatform>['platform'],
  instanceId: string,
  { to = messenger, logger = memoryLogger() } = {},
) {
  const created = createWatchPoller({
    store: setup.store,
    platform,
    authorizer: allowAll,
    audit: setup.audit,
    logger,
    metrics: {
      setRunningWatches: () => undefined,
      watchPolled: () => undefined,
      watchTakenOver: () => undefined,
    },
    now: setup.clock,
    instanceId,
    callsPerMinute: 1_000,
  });
  created.start(to);
  pollers.push(created);
  return created;
}

/** Ticks both replicas as their timers would, moving the clock while neither downloads. */
async function runBoth(
  replicas: WatchPoller[],
  clock: TestClock,
  untilMs: number,
  downloading: () => boolean,
) {
  const busy = new Set<WatchPoller>();
  while (clock() < untilMs) {
    for (const replica of replicas)
      if (!busy.has(replica)) {
        busy.add(replica);
        void replica.tick().finally(() => busy.delete(replica));
      }
    await sleep(1);
    if (!downloading()) clock.advance(5 * SECOND);
  }
  while (busy.size > 0) await sleep(5);
}

describe('the watch poller', () => {
  it('finishes a download longer than the interval under its lease: the other replica never downloads it too', async () => {
    const setup = await setUp('2026-11-21T14:00:00.000Z');
    const id = await startWatch(setup.store, setup.clock);
    // 100 s of clock per download, with a poll every minute.
    const slow = slowPlatform(setup.clock, { chunks: 10, chunkMs: 10 * SECOND, perChunk: 3 });
    const a = poller(setup, slow.platform, 'replica-a');
    const b = poller(setup, slow.platform, 'replica-b');
    const end = setup.clock() + 600 * SECOND;
    const downloading = () => slow.downloads.some((download) => !download.done);
    await runBoth([a, b], setup.clock, end, downloading);
    expect(slow.downloads.length).toBeGreaterThanOrEqual(5);
    // What arrived during the last download is stamped after its poll: the next poll counts it.
    slow.quiet();
    await runBoth([a, b], setup.clock, setup.clock() + 3 * MINUTE, downloading);
    const watch = (await setup.store.get(id))!;
    // Every download was saved: nothing read twice, nothing thrown away.
    expect(watch.progress.total).toBe(slow.served());
    expect(watch.progress.failure).toBeNull();
  }, 30_000);

  it('lets another replica take over within two intervals when the one downloading stops mid-download', async () => {
    const setup = await setUp('2026-11-21T14:00:00.000Z');
    const id = await startWatch(setup.store, setup.clock);
    const start = setup.clock();
    // Replica a's download hangs after its first chunk, as a process that died would leave it.
    let first = true;
    const hanging = {
      async getOriginErrorLogs(_zone: number, _day: Date, options: { signal?: AbortSignal } = {}) {
        const hang = first;
        first = false;
        async function* body() {
          yield '{"logs":[';
          if (hang)
            await new Promise((_settle, fail) =>
              options.signal?.addEventListener('abort', () => fail(options.signal?.reason)),
            );
          yield ']}';
        }
        return { body: Readable.from(body()) };
      },
    };
    const a = poller(setup, hanging, 'replica-a');
    void a.tick();
    await expect.poll(async () => (await setup.store.get(id))?.leaseOwner).toBe('replica-a');
    const b = poller(setup, hanging, 'replica-b');
    // Before the lease runs out, b leaves the watch alone.
    setup.clock.set(start + MINUTE + 25 * SECOND);
    await b.tick();
    expect((await setup.store.get(id))?.leaseOwner).toBe('replica-a');
    // Two intervals after a's poll began, b holds it.
    setup.clock.set(start + 2 * MINUTE);
    await b.tick();
    expect((await setup.store.get(id))?.leaseOwner).toBe('replica-b');
  });

  it('stops a download whose leases another replica now holds, and saves nothing over them', async () => {
    const setup = await setUp('2026-11-21T14:00:00.000Z');
    const id = await startWatch(setup.store, setup.clock);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((open) => {
      release = open;
    });
    let finished = false;
    const stalled = {
      async getOriginErrorLogs() {
        async function* body() {
          yield '{"logs":[';
          // The stream stalls; meanwhile another replica takes the watch.
          await gate;
          setup.clock.advance(MINUTE);
          yield '{"logId":"late-1","timestamp":1,"log":"{}","labels":{}}';
          setup.clock.advance(MINUTE);
          yield ',{"logId":"late-2","timestamp":2,"log":"{}","labels":{}}';
          yield ']}';
          finished = true;
        }
        return { body: Readable.from(body()) };
      },
    };
    const a = poller(setup, stalled, 'replica-a');
    const polled = a.tick();
    await expect.poll(async () => (await setup.store.get(id))?.leaseOwner).toBe('replica-a');
    const taken = await setup.store.takeLease(
      id,
      'replica-b',
      setup.clock() + 10 * MINUTE,
      setup.clock() + 20 * MINUTE,
    );
    expect(taken).not.toBeNull();
    release();
    await polled;
    const watch = (await setup.store.get(id))!;
    expect(watch.leaseOwner).toBe('replica-b');
    expect(watch.progress.total).toBe(0);
    // It stopped at its first renewal rather than read the rest.
    expect(finished).toBe(false);
  });

  it('stops a download at twice the interval, says so on the watch, and the lease is still its own', async () => {
    const setup = await setUp('2026-11-21T14:00:00.000Z');
    const id = await startWatch(setup.store, setup.clock);
    // 200 s of clock: past the deadline of 2 minutes.
    const slow = slowPlatform(setup.clock, { chunks: 20, chunkMs: 10 * SECOND, perChunk: 1 });
    const a = poller(setup, slow.platform, 'replica-a');
    await a.tick();
    const watch = (await setup.store.get(id))!;
    expect(watch.progress.failure).toBe('the download took longer than 2m and was stopped');
    expect(watch.progress.total).toBe(0);
    expect(watch.leaseOwner).toBe('replica-a');
  });

  it('close() stops a download that hangs and hands the lease back', async () => {
    const setup = await setUp('2026-11-21T14:00:00.000Z');
    const id = await startWatch(setup.store, setup.clock);
    let started = false;
    const hanging = {
      async getOriginErrorLogs(_zone: number, _day: Date, options: { signal?: AbortSignal } = {}) {
        started = true;
        async function* body() {
          yield '{"logs":[';
          await new Promise((_settle, fail) =>
            options.signal?.addEventListener('abort', () => fail(options.signal?.reason)),
          );
        }
        return { body: Readable.from(body()) };
      },
    };
    const a = poller(setup, hanging, 'replica-a');
    void a.tick();
    await expect.poll(() => started).toBe(true);
    pollers.splice(0);
    await a.close();
    expect((await setup.store.get(id))!.leaseOwner).toBeNull();
  });

  it('counts an entry stamped after a poll once its time has come, once, on the replica that took the watch over', async () => {
    const setup = await setUp('2026-11-21T14:00:00.000Z');
    const id = await startWatch(setup.store, setup.clock);
    const start = setup.clock();
    const stamped = (offsetMs: number, logId: string) =>
      JSON.stringify({
        logId,
        timestamp: start + offsetMs,
        log: '{}',
        labels: { ErrorCode: 'http_timeout', StatusCode: '504', ServerZone: 'DE' },
      });
    // A platform whose clock runs ahead of ours: every answer already holds the next minutes.
    const day = `{"logs":[${[stamped(-MINUTE, 'past'), stamped(30 * SECOND, 'soon'), stamped(90 * SECOND, 'later')].join(',')}]}`;
    const ahead = {
      async getOriginErrorLogs() {
        return { body: Readable.from([day]) };
      },
    };
    const totalOf = async () => (await setup.store.get(id))!.progress.total;
    const a = poller(setup, ahead, 'replica-a');
    await a.tick();
    expect(await totalOf()).toBe(1);
    // Replica a stops; b takes the watch over with what a saved.
    pollers.splice(pollers.indexOf(a), 1);
    await a.close();
    const b = poller(setup, ahead, 'replica-b');
    setup.clock.advance(MINUTE);
    await b.tick();
    expect((await setup.store.get(id))!.leaseOwner).toBe('replica-b');
    expect(await totalOf()).toBe(2);
    setup.clock.advance(MINUTE);
    await b.tick();
    expect(await totalOf()).toBe(3);
    setup.clock.advance(MINUTE);
    await b.tick();
    expect(await totalOf()).toBe(3);
  });

  it('polls the other watches when one watch’s end cannot be written, and ends that one later', async () => {
    const setup = await setUp('2026-11-21T14:00:00.000Z');
    const over = await startWatch(setup.store, setup.clock, MINUTE, {
      id: 'wa_0000000000ee',
      endsAt: setup.clock() - SECOND,
    });
    const going = await startWatch(setup.store, setup.clock);
    let unreachable = true;
    const store: WatchStore = {
      ...setup.store,
      end: async (...args) => {
        if (unreachable) throw new Error('the state database is unreachable');
        return setup.store.end(...args);
      },
    };
    const slow = slowPlatform(setup.clock, { chunks: 1, chunkMs: 0, perChunk: 1 });
    const a = poller({ ...setup, store }, slow.platform, 'replica-a');
    await a.tick();
    expect(slow.downloads).toHaveLength(1);
    expect((await setup.store.get(going))!.progress.total).toBe(1);
    expect((await setup.store.get(over))!.endedAt).toBeNull();
    // The next pass ends it.
    unreachable = false;
    await a.tick();
    expect((await setup.store.get(over))!.endedReason).toBe('finished');
  });

  it('tells the channel a watch ended when its audit row could not be written, and logs that', async () => {
    const setup = await setUp('2026-11-21T14:00:00.000Z');
    const over = await startWatch(setup.store, setup.clock, MINUTE, { endsAt: setup.clock() - SECOND });
    const posted: string[] = [];
    const to: Messenger = {
      ...messenger,
      postToChannel: async (_channel, reply) => {
        posted.push(reply.text);
        return { channelId: 'C0INCIDENT', ts: '1.3' };
      },
    };
    const audit = {
      append: async () => {
        throw new Error('the audit log is unreachable');
      },
    } as unknown as AuditLog;
    const logger = memoryLogger();
    await poller(
      { ...setup, audit },
      slowPlatform(setup.clock, { chunks: 1, chunkMs: 0, perChunk: 1 }).platform,
      'replica-a',
      {
        to,
        logger,
      },
    ).tick();
    expect((await setup.store.get(over))!.endedReason).toBe('finished');
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatch(/ended/);
    expect(
      logger.lines.some((line) => line.includes('the audit log is unreachable') && line.includes(over)),
    ).toBe(true);
  });

  it('tells the owner of a watch whose channel is gone, even when its end could not be audited', async () => {
    const setup = await setUp('2026-11-21T14:00:00.000Z');
    const id = await startWatch(setup.store, setup.clock);
    const archived = Object.assign(new Error('An API error occurred: is_archived'), {
      data: { ok: false, error: 'is_archived' },
    });
    const told: string[] = [];
    const to: Messenger = {
      ...messenger,
      update: async () => {
        throw archived;
      },
      postToChannel: async () => {
        throw archived;
      },
      sendDirect: async (userId, reply) => {
        told.push(`${userId}: ${reply.text}`);
        return undefined;
      },
    };
    const audit = {
      append: async () => {
        throw new Error('the audit log is unreachable');
      },
    } as unknown as AuditLog;
    const logger = memoryLogger();
    const slow = slowPlatform(setup.clock, { chunks: 1, chunkMs: 0, perChunk: 1 });
    await poller({ ...setup, audit }, slow.platform, 'replica-a', { to, logger }).tick();
    expect((await setup.store.get(id))!.endedReason).toBe('channel');
    expect(told).toEqual([`U0ALICE: Your watch of pull zone ${ZONE} ended`]);
    expect(logger.lines.some((line) => line.includes('could not be audited') && line.includes(id))).toBe(
      true,
    );
  });

  it.each([
    ['lease cannot be taken', 'takeLease'],
    ['poll cannot be saved', 'savePoll'],
  ] as const)('polls and saves the other watches of a zone when one watch’s %s', async (_, step) => {
    const setup = await setUp('2026-11-21T14:00:00.000Z');
    // Listed first: without each watch on its own, the other would wait for the next pass.
    const failing = await startWatch(setup.store, setup.clock, MINUTE, { id: 'wa_0000000000ff' });
    const going = await startWatch(setup.store, setup.clock);
    const real = setup.store[step] as (id: string, ...rest: unknown[]) => Promise<unknown>;
    const store = {
      ...setup.store,
      [step]: async (id: string, ...rest: unknown[]) => {
        if (id === failing) throw new Error('the state database could not do it');
        return real(id, ...rest);
      },
    } as WatchStore;
    const slow = slowPlatform(setup.clock, { chunks: 1, chunkMs: 0, perChunk: 1 });
    await poller({ ...setup, store }, slow.platform, 'replica-a').tick();
    expect(slow.downloads).toHaveLength(1);
    expect((await setup.store.get(going))!.progress.total).toBe(1);
    expect((await setup.store.get(failing))!.progress.total).toBe(0);
  });

  it('reads the day before when the last poll was before midnight, however late this one is', async () => {
    const setup = await setUp('2026-11-23T23:50:00.000Z');
    await startWatch(setup.store, setup.clock);
    const slow = slowPlatform(setup.clock, { chunks: 1, chunkMs: 0, perChunk: 1 });
    const a = poller(setup, slow.platform, 'replica-a');
    await a.tick();
    // Slowed down by the platform: the next poll comes 40 minutes after midnight.
    setup.clock.set('2026-11-24T00:40:00.000Z');
    await a.tick();
    expect(slow.downloads.slice(-2).map((download) => download.day)).toEqual(['2026-11-23', '2026-11-24']);
    // Polled today, and with the sparkline's hour after midnight too: today alone.
    setup.clock.set('2026-11-24T01:00:00.000Z');
    await a.tick();
    expect(slow.downloads.at(-1)?.day).toBe('2026-11-24');
    expect(slow.downloads).toHaveLength(4);
  });
});
