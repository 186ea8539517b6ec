/**
 * The approvals table on its own: rows decode to what was stored, every state change is one
 * conditional UPDATE whose affected-row count says whether it applied, and the metrics count
 * requests by state. The service decides which change to make (test/approvals/service.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalError } from '../../src/approvals/errors.js';
import { paramsDigest } from '../../src/approvals/row.js';
import { type ApprovalStore, createApprovalStore } from '../../src/approvals/store.js';
import type { NewStoredRequest } from '../../src/approvals/transitions.js';
import { EdgeopsError } from '../../src/errors.js';
import { canonicalJson } from '../../src/state/canonical-json.js';
import { type ApprovalFixture, approvalFixture } from './support.js';

let fixture: ApprovalFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const T0 = new Date('2025-03-01T14:00:00Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

async function setUp(): Promise<ApprovalStore> {
  fixture = await approvalFixture();
  return createApprovalStore(fixture.store.client);
}

let nextId = 0;
function newRequest(overrides: Partial<NewStoredRequest> = {}): NewStoredRequest {
  const paramsJson = canonicalJson({ pullZoneId: 4242 });
  return {
    id: `ap_${(nextId++).toString(16).padStart(16, '0')}`,
    operation: 'pullzone.reset-key',
    target: '4242',
    lockOwner: '',
    paramsJson,
    paramsDigest: paramsDigest(paramsJson),
    requester: 'U0ALICE',
    channelId: 'C0OPS',
    reason: 'rotated',
    createdAt: T0,
    expiresAt: minutes(30),
    required: 1,
    approverRoles: ['leads'],
    approverIds: ['U0BOB'],
    confirm: false,
    ...overrides,
  };
}

describe('the approvals store', () => {
  it('stores a new request and reads it back as it was asked', async () => {
    const store = await setUp();
    const asked = newRequest({ confirm: true, approverRoles: ['leads', 'dba'] });
    const { rowsInserted, open, closed } = await store.insertPending(asked);
    expect({ rowsInserted, closed }).toEqual({ rowsInserted: 1, closed: [] });
    expect(open).toEqual({
      id: asked.id,
      operation: 'pullzone.reset-key',
      target: '4242',
      params: { pullZoneId: 4242 },
      paramsDigest: asked.paramsDigest,
      requester: 'U0ALICE',
      channelId: 'C0OPS',
      reason: 'rotated',
      state: 'pending',
      createdAt: T0,
      expiresAt: minutes(30),
      required: 1,
      approverRoles: ['leads', 'dba'],
      approverIds: ['U0BOB'],
      confirm: true,
      approvals: [],
      decidedBy: null,
      decidedAt: null,
      decisionReason: null,
      startedAt: null,
      finishedAt: null,
      result: null,
      card: null,
      remindedAt: null,
      escalation: null,
      version: 0,
    });
    expect(await store.get(asked.id)).toEqual(open);
  });

  it('stores the escalation role and its members with the request, fixed once asked', async () => {
    const store = await setUp();
    const { open } = await store.insertPending(
      newRequest({ escalation: { role: 'oncall', ids: ['U0CAROL'] } }),
    );
    expect(open?.escalation).toEqual({ role: 'oncall', ids: ['U0CAROL'] });
    await expect(
      fixture!.store.client.execute({
        sql: 'UPDATE approvals SET escalate_ids_json = \'["U0MALLORY"]\' WHERE id = ?',
        args: [open!.id],
      }),
    ).rejects.toThrow(/cannot be changed once made/);
  });

  it('inserts nothing while an open request holds the operation and target, and returns that one', async () => {
    const store = await setUp();
    const first = newRequest();
    await store.insertPending(first);
    const second = await store.insertPending(newRequest({ requester: 'U0ERIN' }));
    expect(second.rowsInserted).toBe(0);
    expect(second.open?.id).toBe(first.id);
  });

  it('a click applies only at the version it was decided on, and only before expiry', async () => {
    const store = await setUp();
    const { open } = await store.insertPending(newRequest());
    const id = open!.id;
    const approved = {
      state: 'approved' as const,
      approvals: [{ userId: 'U0BOB', at: minutes(2) }],
      decidedBy: 'U0BOB',
      decidedAt: minutes(2),
    };
    expect(await store.decide(id, 0, approved, minutes(30))).toMatchObject({
      rowsAffected: 0,
      request: { state: 'pending', version: 0 },
    });
    expect(await store.decide(id, 1, approved, minutes(2))).toMatchObject({ rowsAffected: 0 });
    expect(await store.decide(id, 0, approved, minutes(2))).toMatchObject({
      rowsAffected: 1,
      request: { state: 'approved', approvals: approved.approvals, decidedBy: 'U0BOB', version: 1 },
    });
    expect(await store.decide(id, 0, approved, minutes(2))).toMatchObject({ rowsAffected: 0 });
  });

  it('one claim of an approved request wins, and its parameters are checked against the digest', async () => {
    const store = await setUp();
    const { open } = await store.insertPending(newRequest());
    const id = open!.id;
    await store.decide(id, 0, { state: 'approved', approvals: [], decidedBy: 'U0BOB', decidedAt: T0 }, T0);
    const first = await store.claimExecution(id, 'replica-a', minutes(1));
    const second = await store.claimExecution(id, 'replica-b', minutes(1));
    expect(first.rowsAffected).toBe(1);
    expect(first.stored?.intactParams()).toEqual({ pullZoneId: 4242 });
    expect(second.rowsAffected).toBe(0);
    expect(second.stored?.request().state).toBe('executing');
    expect((await store.claimExecution('ap_ffffffffffffffff', 'replica-a', T0)).stored).toBeNull();
    expect(
      await store.finishExecution(id, 'succeeded', { ok: true, detail: 'done' }, minutes(2)),
    ).toMatchObject({
      rowsAffected: 1,
      request: { state: 'succeeded', result: { ok: true, detail: 'done' }, finishedAt: minutes(2) },
    });
    expect(
      await store.finishExecution(id, 'failed', { ok: false, detail: 'again' }, minutes(3)),
    ).toMatchObject({ rowsAffected: 0, request: { state: 'succeeded' } });
  });

  it('claims a reminder once, at half the time to live, only for pending requests with a card', async () => {
    const store = await setUp();
    const carded = (await store.insertPending(newRequest({ target: 'a' }))).open!;
    const noCard = (await store.insertPending(newRequest({ target: 'b' }))).open!;
    const rejected = (await store.insertPending(newRequest({ target: 'c' }))).open!;
    await store.setCard(carded.id, 'C0APPROVALS', '1.1');
    await store.setCard(rejected.id, 'C0APPROVALS', '1.2');
    await store.decide(
      rejected.id,
      0,
      { state: 'rejected', approvals: [], decidedBy: 'U0BOB', decidedAt: minutes(1), decisionReason: 'no' },
      minutes(1),
    );
    expect(await store.claimReminders(new Date(minutes(15).getTime() - 1))).toEqual([]);
    const [claimed, ...others] = await store.claimReminders(minutes(15));
    expect(others).toEqual([]);
    expect(claimed).toMatchObject({ id: carded.id, remindedAt: minutes(15), version: 0 });
    expect(await store.claimReminders(minutes(16))).toEqual([]);
    expect((await store.get(noCard.id))?.remindedAt).toBeNull();
    expect((await store.get(rejected.id))?.decisionReason).toBe('no');
  });

  it('counts the requests in each state, listing every state', async () => {
    const store = await setUp();
    const a = (await store.insertPending(newRequest({ target: 'a' }))).open!;
    await store.insertPending(newRequest({ target: 'b' }));
    await store.cancelPending(a.id, minutes(1));
    expect(await store.countByState()).toEqual({
      pending: 1,
      approved: 0,
      executing: 0,
      succeeded: 0,
      failed: 0,
      rejected: 0,
      expired: 0,
      cancelled: 1,
      unknown: 0,
    });
  });

  it('counts as waiting only the pending requests that have not expired yet', async () => {
    const store = await setUp();
    const a = (await store.insertPending(newRequest({ target: 'a' }))).open!;
    await store.insertPending(newRequest({ target: 'b', expiresAt: minutes(10) }));
    await store.insertPending(newRequest({ target: 'c' }));
    await store.cancelPending(a.id, minutes(1));
    expect(await store.countWaiting(minutes(5))).toBe(2);
    // Expired but not yet swept: still pending in its row, no longer waiting.
    expect(await store.countWaiting(minutes(10))).toBe(1);
    expect((await store.countByState()).pending).toBe(2);
  });

  it('refuses to decode a row whose stored JSON is not what it wrote', async () => {
    const store = await setUp();
    const { open } = await store.insertPending(newRequest());
    await fixture!.store.client.execute({
      sql: `UPDATE approvals SET approvals_json = 'not json' WHERE id = ?`,
      args: [open!.id],
    });
    await expect(store.get(open!.id)).rejects.toThrow(ApprovalError);
    await expect(store.get(open!.id)).rejects.toThrow('approvals_json is not valid JSON');
  });

  it('says an unreadable row in words for people, the column only in the message for the log', async () => {
    const store = await setUp();
    const { open } = await store.insertPending(newRequest());
    await fixture!.store.client.execute({
      sql: `UPDATE approvals SET approvals_json = 'not json' WHERE id = ?`,
      args: [open!.id],
    });
    const error = await store.get(open!.id).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EdgeopsError);
    expect(error).toMatchObject({ kind: 'approval-unreadable', outcome: 'error', unexpected: true });
    expect((error as EdgeopsError).userMessage).toBe(
      "An approval request in the bot's state store could not be read.",
    );
  });

  it('says a table it cannot reach is the state store unavailable', async () => {
    const store = await setUp();
    await fixture!.store.client.execute('ALTER TABLE approvals RENAME TO approvals_away');
    const error = await store.countWaiting(minutes(1)).catch((caught: unknown) => caught);
    await fixture!.store.client.execute('ALTER TABLE approvals_away RENAME TO approvals');
    expect(error).toMatchObject({ kind: 'approvals-unavailable', outcome: 'error', unexpected: true });
    expect((error as EdgeopsError).userMessage).toMatch(/^The bot's state store is unavailable/);
    expect((error as Error).message).toBe('could not read the approvals table');
  });
});
