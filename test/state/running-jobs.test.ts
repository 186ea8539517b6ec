/**
 * Long jobs' records (state/running-jobs.ts, operations/engine/job-records.ts): a replica that
 * stops mid-job leaves its progress message and audit trail to be closed, once, by a sweep of
 * another one; a live replica's jobs are never taken.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createJobRecords,
  type JobRecords,
  STOPPED_DETAIL,
} from '../../src/operations/engine/job-records.js';
import type { Messenger } from '../../src/operations/engine/ports.js';
import type { MessageRef, Reply } from '../../src/reply/model.js';
import { migrations } from '../../src/runtime/migrations.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { type AuditLog, createAuditLog } from '../../src/state/audit.js';
import { createRunningJobStore, type RunningJobStore } from '../../src/state/running-jobs.js';
import { openStateStore } from '../../src/state/store.js';
import { asDates, pinnedClock } from '../support/clock.js';
import { memoryLogger, tempDatabase } from './temp-db.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const LEASE_MS = 90_000;

/** What a sweep said, and to whom: Slack's side of it. */
function recordingMessenger(options: { updateFails?: boolean } = {}) {
  const updates: { ref: MessageRef; reply: Reply }[] = [];
  const direct: { userId: string; reply: Reply }[] = [];
  const messenger: Messenger = {
    postToChannel: async () => undefined,
    update: async (ref, reply) => {
      if (options.updateFails)
        throw Object.assign(new Error('message_not_found'), { data: { error: 'message_not_found' } });
      updates.push({ ref, reply });
    },
    sendDirect: async (userId, reply) => {
      direct.push({ userId, reply });
      return undefined;
    },
    deleteMessage: async () => undefined,
    permalink: async () => undefined,
  };
  return { messenger, updates, direct };
}

async function fixture() {
  const db = await tempDatabase();
  cleanups.push(db.remove);
  const clock = pinnedClock();
  const store = await openStateStore({
    url: db.url,
    logger: memoryLogger(),
    now: asDates(clock),
    migrations,
  });
  cleanups.push(() => store.close());
  const audit = createAuditLog({ store, secrets: new SecretRegistry() });
  /** Writes of `failing` methods fail, as when the state database is away from this replica. */
  const failing = new Set<keyof RunningJobStore>();
  const replica = (runner: string, options: { faulty?: boolean } = {}): JobRecords =>
    createJobRecords({
      store: options.faulty
        ? faultyStore(createRunningJobStore(store.client), failing)
        : createRunningJobStore(store.client),
      audit,
      logger: memoryLogger(),
      now: clock,
      runner,
      leaseMs: LEASE_MS,
    });
  return { clock, audit, replica, failing };
}

function faultyStore(store: RunningJobStore, failing: ReadonlySet<keyof RunningJobStore>): RunningJobStore {
  const guard =
    <A extends unknown[], R>(name: keyof RunningJobStore, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (failing.has(name)) throw new Error(`${name}: the state database is away`);
      return call(...args);
    };
  return {
    begin: guard('begin', store.begin),
    progress: guard('progress', store.progress),
    end: guard('end', store.end),
    // The store sends nothing to renew no job: an outage does not reach it then.
    renew: (runner, ids, until) =>
      ids.length === 0 ? store.renew(runner, ids, until) : guard('renew', store.renew)(runner, ids, until),
    takeStopped: guard('takeStopped', store.takeStopped),
  };
}

/** The audit rows of a request, oldest first: outcome and detail. */
async function trail(audit: AuditLog, correlationId: string) {
  const rows = await audit.list({ limit: 10, filter: { correlationId } });
  return rows.reverse().map((row) => [row.outcome, row.detail]);
}

const started = (audit: AuditLog, correlationId: string) =>
  audit.append({
    userId: 'U0ASKER',
    channelId: 'C0INCIDENT',
    operation: 'shield.export',
    target: '5101',
    params: { last: '1h' },
    outcome: 'started',
    approvalId: null,
    correlationId,
  });

const job = (id: string, correlationId: string, startedAt: number) => ({
  id,
  title: 'Shield export of zone 5101',
  userId: 'U0ASKER',
  channelId: 'C0INCIDENT',
  correlationId,
  startedAt,
});

describe('long jobs whose replica stopped', () => {
  it('are never taken while their replica renews them, and are closed once when it stops', async () => {
    const { clock, audit, replica } = await fixture();
    const [a, b, c] = [replica('A'), replica('B'), replica('C')];
    await started(audit, 'c-live');
    await a.begin(job('j1', 'c-live', clock()));
    a.progress('j1', { channelId: 'C0INCIDENT', ts: '1700000000.000100' });
    const slack = recordingMessenger();
    for (let sweep = 0; sweep < 5; sweep++) {
      // A sweeps every 60 s, within its 90 s lease; B sweeps just after the lease's first end.
      clock.advance(60_000);
      await a.sweep(slack.messenger);
      expect(await b.sweep(slack.messenger)).toBe(0);
    }
    expect(slack.updates).toEqual([]);
    // A stops: nothing renews its job. Two replicas sweep at once past the lease.
    clock.advance(LEASE_MS + 1);
    const closed = await Promise.all([b.sweep(slack.messenger), c.sweep(slack.messenger)]);
    expect(closed[0]! + closed[1]!).toBe(1);
    expect(slack.updates).toHaveLength(1);
    expect(slack.updates[0]!.ref).toEqual({ channelId: 'C0INCIDENT', ts: '1700000000.000100' });
    const said = JSON.stringify(slack.updates[0]!.reply);
    expect(said).toContain('stopped before it finished');
    expect(said).not.toContain('Cancel');
    expect(await trail(audit, 'c-live')).toEqual([
      ['started', null],
      ['failed', STOPPED_DETAIL],
    ]);
    expect(await b.sweep(slack.messenger)).toBe(0);
  });

  it('tell the requester by DM when there was no progress message yet, or it is gone', async () => {
    const { clock, audit, replica } = await fixture();
    const [a, b] = [replica('A'), replica('B')];
    await started(audit, 'c-early');
    await a.begin(job('j2', 'c-early', clock()));
    await started(audit, 'c-gone');
    await a.begin(job('j3', 'c-gone', clock()));
    a.progress('j3', { channelId: 'C0INCIDENT', ts: '1700000000.000200' });
    clock.advance(LEASE_MS + 1);
    const slack = recordingMessenger({ updateFails: true });
    expect(await b.sweep(slack.messenger)).toBe(2);
    expect(slack.direct.map((told) => told.userId)).toEqual(['U0ASKER', 'U0ASKER']);
    for (const told of slack.direct) expect(JSON.stringify(told.reply)).toContain('asked in <#C0INCIDENT>');
  });

  it('leave a trail that closed already as it was, and are forgotten when they end', async () => {
    const { clock, audit, replica } = await fixture();
    const [a, b] = [replica('A'), replica('B')];
    await started(audit, 'c-done');
    await a.begin(job('j4', 'c-done', clock()));
    // The job finished and its row said so; the process stopped before the record was removed.
    await audit.append({
      userId: 'U0ASKER',
      channelId: 'C0INCIDENT',
      operation: 'shield.export',
      target: '5101',
      params: { last: '1h' },
      outcome: 'succeeded',
      approvalId: null,
      correlationId: 'c-done',
    });
    await a.begin(job('j5', 'c-ended', clock()));
    await a.end('j5');
    clock.advance(LEASE_MS + 1);
    const slack = recordingMessenger();
    expect(await b.sweep(slack.messenger)).toBe(1);
    expect(await trail(audit, 'c-done')).toEqual([
      ['started', null],
      ['succeeded', null],
    ]);
    // Its answer took the progress message's place: nothing is said over it.
    expect(slack.updates).toEqual([]);
    expect(slack.direct).toEqual([]);
  });

  it('are not taken after an outage before their replica could renew, nor left behind by a removal that failed', async () => {
    const { clock, audit, replica, failing } = await fixture();
    const a = replica('A', { faulty: true });
    const b = replica('B', { faulty: true });
    const slack = recordingMessenger();
    await started(audit, 'c-outage');
    await a.begin(job('j6', 'c-outage', clock()));
    // The state database is away for everyone for longer than a lease: nobody renews.
    // B has no job of its own, so only its look for stopped ones reaches the database, and fails.
    failing.add('renew');
    failing.add('takeStopped');
    await expect(b.sweep(slack.messenger)).rejects.toThrow(/takeStopped: the state database is away/);
    clock.advance(LEASE_MS + 1);
    failing.clear();
    // Back: B sweeps first, and takes nothing until A has had a lease to renew.
    expect(await b.sweep(slack.messenger)).toBe(0);
    await a.sweep(slack.messenger);
    clock.advance(LEASE_MS / 2);
    expect(await b.sweep(slack.messenger)).toBe(0);
    expect(slack.updates).toEqual([]);
    // A job ends while its record cannot be removed: A's next sweep removes it, and renews nothing of it.
    failing.add('end');
    await a.end('j6');
    failing.clear();
    await a.sweep(slack.messenger);
    clock.advance(LEASE_MS + 1);
    await a.sweep(slack.messenger);
    expect(await b.sweep(slack.messenger)).toBe(0);
    expect(slack.updates).toEqual([]);
    expect(slack.direct).toEqual([]);
  });
});
