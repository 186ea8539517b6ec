import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/approvals/machine.js';
import { type ApprovalService, createApprovalService } from '../../src/approvals/service.js';
import { createAuditLog } from '../../src/state/audit.js';
import { memoryLogger } from '../state/temp-db.js';
import { type ApprovalFixture, approvalFixture, LEADS, openStore, resetKeyRequest } from './support.js';

let fixture: ApprovalFixture;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(): Promise<ApprovalFixture> {
  fixture = await approvalFixture();
  cleanups.push(fixture.close);
  return fixture;
}

async function requested(service: ApprovalService, overrides = {}): Promise<ApprovalRequest> {
  const result = await service.request(resetKeyRequest(overrides));
  if (!result.ok) throw new Error(`request refused: ${result.reason} (${result.existing.id})`);
  return result.request;
}

const click = (
  requestId: string,
  userId: string,
  action: 'approve' | 'reject' | 'cancel' = 'approve',
  extra = {},
) => ({
  requestId,
  userId,
  action,
  isApprover: userId !== 'U0MALLORY',
  correlationId: `corr-${userId}-${action}`,
  ...extra,
});

async function outcomes(id: string): Promise<string[]> {
  const rows = await fixture.audit.list({ limit: 1000 });
  return rows
    .filter((row) => row.approvalId === id)
    .reverse()
    .map((row) => row.outcome);
}

describe('asking for approval', () => {
  it('stores the parameters canonically with their SHA-256 digest, pending until the rule’s expiry', async () => {
    const { service, store } = await setUp();
    const request = await requested(service, {
      params: { zone: 'pz', limit: 2, nested: { b: 1, a: [1, 'x'] } },
    });
    expect(request.id).toMatch(/^ap_[0-9a-f]{16}$/);
    expect(request).toMatchObject({
      state: 'pending',
      requester: 'U0ALICE',
      channelId: 'C0OPS',
      reason: 'key leaked in a screenshot',
      required: 1,
      approverRoles: ['leads'],
      approverIds: ['U0BOB', 'U0CAROL', 'U0DAVE'],
      confirm: false,
      approvals: [],
      version: 0,
    });
    expect(request.expiresAt.toISOString()).toBe('2025-03-01T14:30:00.000Z');
    const stored = await store.client.execute({
      sql: 'SELECT params_json, params_digest FROM approvals WHERE id = ?',
      args: [request.id],
    });
    const canonical = '{"limit":2,"nested":{"a":[1,"x"],"b":1},"zone":"pz"}';
    expect(stored.rows[0]?.params_json).toBe(canonical);
    expect(stored.rows[0]?.params_digest).toBe(createHash('sha256').update(canonical).digest('hex'));
    expect(request.paramsDigest).toBe(stored.rows[0]?.params_digest);
  });

  it('gives every request its own unguessable id', async () => {
    const { service } = await setUp();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await requested(service, { target: `pz-${i}` })).id);
    expect(ids.size).toBe(20);
  });

  it('a second request for the same operation and target is refused naming the first', async () => {
    const { service } = await setUp();
    const first = await requested(service);
    const second = await service.request(resetKeyRequest({ requester: 'U0ERIN', correlationId: 'corr-2' }));
    expect(second).toMatchObject({
      ok: false,
      reason: 'open-request-exists',
      existing: { id: first.id, requester: 'U0ALICE', state: 'pending' },
    });
    expect(second).not.toHaveProperty('message');
    // Another target, or another operation on the same target, is a different lock.
    expect((await service.request(resetKeyRequest({ target: '4343' }))).ok).toBe(true);
    expect((await service.request(resetKeyRequest({ operation: 'shield.bot-detection' }))).ok).toBe(true);
  });

  it('a write to a database locks it for its requester only: each person may have one open write per database', async () => {
    const { service } = await setUp();
    const write = (requester: string, correlationId: string) =>
      resetKeyRequest({
        operation: 'db.exec',
        target: 'db_shop',
        lockPerRequester: true,
        params: { sql: 'DELETE FROM carts WHERE id = 7', database: 'db_shop' },
        requester,
        correlationId,
      });
    const alices = await service.request(write('U0ALICE', 'corr-alice'));
    const erins = await service.request(write('U0ERIN', 'corr-erin'));
    expect(alices.ok && erins.ok).toBe(true);
    const again = await service.request(write('U0ALICE', 'corr-alice-2'));
    expect(again).toMatchObject({
      ok: false,
      reason: 'open-request-exists',
      existing: { id: alices.ok ? alices.request.id : '', requester: 'U0ALICE' },
    });
    // The same person's write to another database is another lock.
    expect((await service.request({ ...write('U0ALICE', 'corr-alice-3'), target: 'db_other' })).ok).toBe(
      true,
    );
    // An operation that locks for everyone still does, whoever asks.
    expect((await service.request(resetKeyRequest())).ok).toBe(true);
    expect((await service.request(resetKeyRequest({ requester: 'U0ERIN' }))).ok).toBe(false);
  });

  it('of replicas asking for the same person’s write at once, exactly one stores it', async () => {
    const { service, newService } = await setUp();
    const replicas = [service, newService(), newService(), newService()];
    const results = await Promise.all(
      replicas.map((replica, i) =>
        replica.request(
          resetKeyRequest({
            operation: 'db.exec',
            target: 'db_shop',
            lockPerRequester: true,
            params: { sql: `UPDATE carts SET n = ${i} WHERE id = 7`, database: 'db_shop' },
            correlationId: `corr-${i}`,
          }),
        ),
      ),
    );
    const stored = results.filter((result) => result.ok);
    expect(stored).toHaveLength(1);
    for (const result of results)
      if (!result.ok) expect(result.existing.id).toBe(stored[0]?.ok ? stored[0].request.id : '');
  });

  it('the lock holds while the request is approved and running, and frees once it has finished', async () => {
    const { service } = await setUp();
    const first = await requested(service);
    await service.click(click(first.id, 'U0BOB'));
    expect((await service.request(resetKeyRequest())).ok).toBe(false);
    await service.beginExecution(first.id);
    expect((await service.request(resetKeyRequest())).ok).toBe(false);
    await service.finishExecution(first.id, { ok: true, detail: 'key reset' });
    expect((await service.request(resetKeyRequest())).ok).toBe(true);
  });

  it('a request whose expiry passed before the sweep ran does not block a new one, and is closed', async () => {
    const { service, clock } = await setUp();
    const stale = await requested(service);
    clock.advance(LEADS.ttlMs);
    const fresh = await service.request(resetKeyRequest());
    expect(fresh.ok).toBe(true);
    expect(fresh.expired.map((request) => [request.id, request.state])).toEqual([[stale.id, 'expired']]);
    expect(await outcomes(stale.id)).toEqual(['approval-requested', 'expired']);
  });

  it('refuses parameters that hold a known secret', async () => {
    const { service, secrets } = await setUp();
    secrets.add('sk_live_0123456789abcdef');
    await expect(
      service.request(resetKeyRequest({ params: { note: 'sk_live_0123456789abcdef' } })),
    ).rejects.toThrow('must not contain a secret');
    expect(await service.list({ all: true })).toEqual([]);
  });

  it('refuses a request without a target or with a zero approval count', async () => {
    const { service } = await setUp();
    await expect(service.request(resetKeyRequest({ target: '' }))).rejects.toThrow(/invalid at target/);
    await expect(
      service.request(resetKeyRequest({ requirement: { ...LEADS, required: 0 } })),
    ).rejects.toThrow(/invalid at requirement.required/);
  });
});

describe('clicking Approve, Reject and Cancel', () => {
  it('a requester cannot approve their own request', async () => {
    const { service } = await setUp();
    const request = await requested(service);
    const result = await service.click({ ...click(request.id, 'U0ALICE'), isApprover: true });
    expect(result).toMatchObject({
      ok: false,
      reason: 'own-request',
      request: { state: 'pending', approvals: [] },
    });
    expect(await outcomes(request.id)).toEqual(['approval-requested', 'approval-refused']);
  });

  it('a non-approver is refused and changes nothing', async () => {
    const { service } = await setUp();
    const request = await requested(service);
    const result = await service.click(click(request.id, 'U0MALLORY'));
    expect(result).toMatchObject({ ok: false, reason: 'not-approver' });
    expect(await service.get(request.id)).toMatchObject({ state: 'pending', approvals: [], version: 0 });
  });

  it('one approval from an approver approves a one-approval request', async () => {
    const { service, clock } = await setUp();
    const request = await requested(service);
    clock.advance(2 * 60_000);
    const result = await service.click(click(request.id, 'U0BOB'));
    expect(result).toMatchObject({ ok: true, outcome: 'approved', state: 'approved' });
    const stored = await service.get(request.id);
    expect(stored).toMatchObject({ state: 'approved', decidedBy: 'U0BOB', version: 1 });
    expect(stored?.approvals).toEqual([{ userId: 'U0BOB', at: new Date('2025-03-01T14:02:00Z') }]);
    const late = await service.click(click(request.id, 'U0CAROL'));
    expect(late).toMatchObject({
      ok: false,
      reason: 'not-pending',
      decided: {
        state: 'approved',
        approvals: [{ userId: 'U0BOB', at: new Date('2025-03-01T14:02:00Z') }],
        decidedAt: new Date('2025-03-01T14:02:00Z'),
      },
    });
    expect(late).not.toHaveProperty('message');
  });

  it('N-of-M needs distinct approvers: the same approver twice counts once', async () => {
    const { service } = await setUp();
    const request = await requested(service, { requirement: { ...LEADS, required: 2 } });
    expect(await service.click(click(request.id, 'U0BOB'))).toMatchObject({
      ok: true,
      outcome: 'approval-recorded',
      state: 'pending',
    });
    expect(await service.click(click(request.id, 'U0BOB'))).toMatchObject({
      ok: false,
      reason: 'duplicate-approval',
    });
    expect(await service.get(request.id)).toMatchObject({
      state: 'pending',
      approvals: [{ userId: 'U0BOB' }],
    });
    expect(await service.click(click(request.id, 'U0CAROL'))).toMatchObject({
      ok: true,
      outcome: 'approved',
      state: 'approved',
    });
    expect((await service.get(request.id))?.approvals.map((vote) => vote.userId)).toEqual([
      'U0BOB',
      'U0CAROL',
    ]);
    expect(await outcomes(request.id)).toEqual([
      'approval-requested',
      'approval-recorded',
      'approval-refused',
      'approved',
    ]);
  });

  it('confirm needs the typed target id', async () => {
    const { service } = await setUp();
    const request = await requested(service, {
      operation: 'db.tokens.invalidate',
      target: 'edge-db',
      params: { database: 'edge-db', regenerate: false },
      requirement: { ...LEADS, confirm: true },
    });
    expect(await service.click(click(request.id, 'U0BOB'))).toMatchObject({
      ok: false,
      reason: 'confirmation-mismatch',
    });
    expect(
      await service.click(click(request.id, 'U0BOB', 'approve', { confirmation: 'edge-db2' })),
    ).toMatchObject({
      ok: false,
      reason: 'confirmation-mismatch',
    });
    expect(
      await service.click(click(request.id, 'U0BOB', 'approve', { confirmation: 'edge-db' })),
    ).toMatchObject({
      ok: true,
      state: 'approved',
    });
  });

  it('a Reject closes the request, and a later Approve is told who rejected it', async () => {
    const { service, clock } = await setUp();
    const request = await requested(service);
    clock.advance(5 * 60_000);
    expect(await service.click(click(request.id, 'U0CAROL', 'reject'))).toMatchObject({
      ok: true,
      outcome: 'rejected',
      state: 'rejected',
      request: { decidedBy: 'U0CAROL' },
    });
    const late = await service.click(click(request.id, 'U0BOB'));
    expect(late).toMatchObject({
      ok: false,
      reason: 'not-pending',
      decided: { state: 'rejected', decidedBy: 'U0CAROL', decidedAt: new Date('2025-03-01T14:05:00Z') },
    });
    expect(
      await service.executeApproved(request.id, async () => ({ ok: true, detail: 'ran' })),
    ).toMatchObject({
      ran: false,
      reason: 'not-approved',
    });
  });

  it('a Reject keeps its reason on the request and in the audit row, with a known secret redacted', async () => {
    const { service, secrets } = await setUp();
    secrets.add('s3cr3t-token-value');
    const request = await requested(service);
    const rejected = await service.click(
      click(request.id, 'U0CAROL', 'reject', { reason: ' not during the freeze, s3cr3t-token-value ' }),
    );
    expect(rejected).toMatchObject({ ok: true, request: { decisionReason: expect.any(String) } });
    const stored = await service.get(request.id);
    expect(stored?.decisionReason).toContain('not during the freeze');
    expect(stored?.decisionReason).not.toContain('s3cr3t-token-value');
    const row = (await fixture.audit.list({ limit: 10 })).find(
      (r) => r.approvalId === request.id && r.outcome === 'rejected',
    );
    expect(row?.detail).toMatch(/^rejected by U0CAROL; reason: not during the freeze/);
    const other = await requested(service, { target: '4343', params: { pullZoneId: 4343 } });
    await service.click(click(other.id, 'U0CAROL', 'reject'));
    expect((await service.get(other.id))?.decisionReason).toBeNull();
    await expect(
      service.click(click(other.id, 'U0CAROL', 'reject', { reason: 'x'.repeat(501) })),
    ).rejects.toThrow(/invalid at reason/);
  });

  it('only the requester can cancel, and a cancelled request cannot be approved', async () => {
    const { service } = await setUp();
    const request = await requested(service);
    expect(await service.click(click(request.id, 'U0BOB', 'cancel'))).toMatchObject({
      ok: false,
      reason: 'not-requester',
    });
    expect(await service.click(click(request.id, 'U0ALICE', 'cancel'))).toMatchObject({
      ok: true,
      state: 'cancelled',
    });
    const late = await service.click(click(request.id, 'U0BOB'));
    expect(late).toMatchObject({
      ok: false,
      reason: 'not-pending',
      decided: { state: 'cancelled', decidedBy: 'U0ALICE' },
    });
  });

  it('a click after expiry is refused and closes the request', async () => {
    const { service, clock } = await setUp();
    const request = await requested(service);
    clock.advance(LEADS.ttlMs);
    const result = await service.click(click(request.id, 'U0BOB'));
    expect(result).toMatchObject({
      ok: false,
      reason: 'expired',
      expiresAt: new Date('2025-03-01T14:30:00Z'),
      request: { state: 'expired' },
    });
    expect(await service.expireStale()).toEqual([]);
  });

  it('the sweep expires pending requests whose expiry passed, and only those', async () => {
    const { service, clock } = await setUp();
    const early = await requested(service, { target: 'pz-early' });
    clock.advance(10 * 60_000);
    const late = await requested(service, { target: 'pz-late' });
    const approved = await requested(service, { target: 'pz-approved' });
    await service.click(click(approved.id, 'U0BOB'));
    clock.advance(20 * 60_000);
    const swept = await service.expireStale();
    expect(swept.map((request) => [request.id, request.state])).toEqual([[early.id, 'expired']]);
    expect(swept[0]?.decidedAt?.toISOString()).toBe('2025-03-01T14:30:00.000Z');
    expect((await service.get(late.id))?.state).toBe('pending');
    expect((await service.get(approved.id))?.state).toBe('approved');
    expect(await service.expireStale()).toEqual([]);
    const after = await service.click(click(early.id, 'U0BOB'));
    expect(after).toMatchObject({
      ok: false,
      reason: 'not-pending',
      decided: { state: 'expired', expiresAt: new Date('2025-03-01T14:30:00Z') },
    });
  });

  it('an unknown or malformed request id is simply not found', async () => {
    const { service } = await setUp();
    expect(await service.click(click('ap_0000000000000000', 'U0BOB'))).toMatchObject({
      ok: false,
      reason: 'not-found',
    });
    expect(await service.click(click("x' OR 1=1 --", 'U0BOB'))).toMatchObject({
      ok: false,
      reason: 'not-found',
    });
    expect(await service.get('nope')).toBeNull();
  });
});

describe('executing an approved request', () => {
  it('runs once with the stored parameters and records the result', async () => {
    const { service } = await setUp();
    const request = await requested(service);
    await service.click(click(request.id, 'U0BOB'));
    const seen: unknown[] = [];
    const report = await service.executeApproved(request.id, async (params) => {
      seen.push(params);
      return { ok: true, detail: 'new key …a1b2 sent to the requester' };
    });
    expect(report).toMatchObject({ ran: true, outcome: { ok: true }, request: { state: 'succeeded' } });
    expect(seen).toEqual([{ pullZoneId: 4242 }]);
    expect((await service.get(request.id))?.result).toEqual({
      ok: true,
      detail: 'new key …a1b2 sent to the requester',
    });
    const again = await service.executeApproved(request.id, async (params) => {
      seen.push(params);
      return { ok: true, detail: 'twice' };
    });
    expect(again).toMatchObject({ ran: false, reason: 'not-approved' });
    expect(seen).toHaveLength(1);
    expect(await outcomes(request.id)).toEqual(['approval-requested', 'approved', 'executing', 'succeeded']);
  });

  it('a pending request is not executed', async () => {
    const { service } = await setUp();
    const request = await requested(service);
    expect(await service.beginExecution(request.id)).toMatchObject({ ok: false, reason: 'not-approved' });
    expect((await service.get(request.id))?.state).toBe('pending');
  });

  it('an executor that throws fails the request and is not retried; the error text stays out of it', async () => {
    const { service } = await setUp();
    const request = await requested(service);
    await service.click(click(request.id, 'U0BOB'));
    let calls = 0;
    const report = await service.executeApproved(request.id, async () => {
      calls++;
      throw new Error('socket hang up with key sk_live_secret_value');
    });
    expect(calls).toBe(1);
    expect(report).toMatchObject({ ran: true, outcome: { ok: false }, request: { state: 'failed' } });
    expect(JSON.stringify(await service.get(request.id))).not.toContain('sk_live');
    expect(await service.executeApproved(request.id, async () => ({ ok: true, detail: '' }))).toMatchObject({
      ran: false,
    });
    expect(calls).toBe(1);
  });

  it('a registered secret in a result detail is redacted before it is stored', async () => {
    const { service, secrets } = await setUp();
    secrets.add('NEWKEY-0123456789abcdef');
    const request = await requested(service);
    await service.click(click(request.id, 'U0BOB'));
    await service.executeApproved(request.id, async () => ({
      ok: true,
      detail: 'set NEWKEY-0123456789abcdef',
    }));
    const stored = await fixture.store.client.execute({
      sql: 'SELECT result_json FROM approvals WHERE id = ?',
      args: [request.id],
    });
    expect(String(stored.rows[0]?.result_json)).not.toContain('NEWKEY-0123456789abcdef');
    expect(String(stored.rows[0]?.result_json)).toContain('…cdef');
  });

  it('refuses to execute parameters that no longer match their digest', async () => {
    const { service, store } = await setUp();
    const request = await requested(service);
    await service.click(click(request.id, 'U0BOB'));
    // Tampering as someone with database access would: lift the guard, then edit what was approved.
    await store.client.batch(
      [
        'DROP TRIGGER approvals_request_fixed',
        { sql: `UPDATE approvals SET params_json = '{"pullZoneId":1}' WHERE id = ?`, args: [request.id] },
      ],
      'write',
    );
    let calls = 0;
    const report = await service.executeApproved(request.id, async () => {
      calls++;
      return { ok: true, detail: 'ran' };
    });
    expect(calls).toBe(0);
    expect(report).toMatchObject({ ran: false, reason: 'digest-mismatch', request: { state: 'failed' } });
  });

  it('a request left executing becomes unknown after recovery and is never executed again', async () => {
    const { service, newService } = await setUp();
    const request = await requested(service);
    await service.click(click(request.id, 'U0BOB'));
    expect(await service.beginExecution(request.id)).toMatchObject({
      ok: true,
      params: { pullZoneId: 4242 },
    });
    // The process that claimed it dies here; the bot starts again with a new service.
    const restarted = newService();
    const recovered = await restarted.recoverAfterCrash();
    expect(recovered.map((r) => [r.id, r.state])).toEqual([[request.id, 'unknown']]);
    let calls = 0;
    const report = await restarted.executeApproved(request.id, async () => {
      calls++;
      return { ok: true, detail: 'ran' };
    });
    expect(calls).toBe(0);
    expect(report).toMatchObject({ ran: false, reason: 'not-approved', request: { state: 'unknown' } });
    expect(await restarted.recoverAfterCrash()).toEqual([]);
    // A late result from the cut-off execution is audited but does not rewrite the state.
    expect(await service.finishExecution(request.id, { ok: true, detail: 'done late' })).toMatchObject({
      ok: false,
      reason: 'not-executing',
    });
    expect((await restarted.get(request.id))?.state).toBe('unknown');
    expect(await outcomes(request.id)).toEqual([
      'approval-requested',
      'approved',
      'executing',
      'unknown',
      'succeeded',
    ]);
  });

  it('a request approved but never started becomes unknown once approved before the cut-off, and never runs', async () => {
    const { service, newService, clock } = await setUp();
    const request = await requested(service);
    await service.click(click(request.id, 'U0BOB'));
    // The replica that approved it stops here, before beginExecution.
    const restarted = newService();
    expect(
      await restarted.recoverAfterCrash({ approvedBefore: new Date(clock().getTime() - 60_000) }),
    ).toEqual([]);
    expect(await restarted.recoverAfterCrash()).toEqual([]);
    clock.advance(2 * 60_000);
    const recovered = await restarted.recoverAfterCrash({
      approvedBefore: new Date(clock().getTime() - 60_000),
    });
    expect(recovered.map((r) => [r.id, r.state, r.startedAt])).toEqual([[request.id, 'unknown', null]]);
    expect(recovered[0]?.result?.detail).toContain('it did not run');
    let calls = 0;
    const report = await service.executeApproved(request.id, async () => {
      calls++;
      return { ok: true, detail: 'ran' };
    });
    expect(calls).toBe(0);
    expect(report).toMatchObject({ ran: false, reason: 'not-approved' });
    expect(await outcomes(request.id)).toEqual(['approval-requested', 'approved', 'unknown']);
    // The lock is free: the same operation and target may be asked for again.
    expect((await service.request(resetKeyRequest())).ok).toBe(true);
  });

  it('recovery leaves alone what this service is running itself, and executions started after a cut-off', async () => {
    const { service, newService, clock } = await setUp();
    const request = await requested(service);
    await service.click(click(request.id, 'U0BOB'));
    await service.beginExecution(request.id);
    expect(await service.recoverAfterCrash()).toEqual([]);
    const other = newService();
    expect(await other.recoverAfterCrash({ startedBefore: new Date(clock().getTime() - 60_000) })).toEqual(
      [],
    );
    expect(await service.finishExecution(request.id, { ok: true, detail: 'done' })).toMatchObject({
      ok: true,
    });
  });
});

describe('the stored state', () => {
  it('a pending request survives closing and reopening the store and can still be approved', async () => {
    const { db, clock, store } = await setUp();
    const first = createApprovalService({ store, audit: fixture.audit, logger: memoryLogger() });
    const request = await requested(first);
    await store.close();

    const reopened = await openStore(db.url, clock);
    cleanups.push(() => reopened.close());
    const audit = createAuditLog({ store: reopened, secrets: fixture.secrets });
    const service = createApprovalService({ store: reopened, audit, logger: memoryLogger() });
    expect(await service.list()).toMatchObject([{ id: request.id, state: 'pending' }]);
    expect(await service.click(click(request.id, 'U0BOB'))).toMatchObject({ ok: true, state: 'approved' });
    expect(await audit.verify()).toMatchObject({ ok: true, count: 2 });
  });

  it('lists pending requests by default and the last ones of any state with all', async () => {
    const { service, clock } = await setUp();
    const a = await requested(service, { target: 'a' });
    clock.advance(1000);
    const b = await requested(service, { target: 'b' });
    clock.advance(1000);
    const c = await requested(service, { target: 'c' });
    await service.click(click(b.id, 'U0BOB', 'reject'));
    expect((await service.list()).map((r) => r.id)).toEqual([c.id, a.id]);
    expect((await service.list({ all: true })).map((r) => r.id)).toEqual([c.id, b.id, a.id]);
    expect((await service.list({ all: true, limit: 1 })).map((r) => r.id)).toEqual([c.id]);
    expect((await service.list({ states: ['rejected'] })).map((r) => r.id)).toEqual([b.id]);
  });

  it('remembers where the card was posted without disturbing a click', async () => {
    const { service } = await setUp();
    const request = await requested(service);
    await service.setCard(request.id, 'C0APPROVALS', '1740837600.000100');
    expect(await service.click(click(request.id, 'U0BOB'))).toMatchObject({ ok: true });
    expect((await service.get(request.id))?.card).toEqual({
      channel: 'C0APPROVALS',
      ts: '1740837600.000100',
    });
  });

  it('audits every step in one chain that still verifies', async () => {
    const { service, clock, audit } = await setUp();
    const done = await requested(service, { target: 'done' });
    const rejected = await requested(service, { target: 'rejected' });
    const cancelled = await requested(service, { target: 'cancelled' });
    const expired = await requested(service, { target: 'expired', requirement: { ...LEADS, ttlMs: 1000 } });
    await service.click(click(done.id, 'U0BOB'));
    await service.executeApproved(done.id, async () => ({ ok: false, detail: 'platform said 400: bad id' }));
    await service.click(click(rejected.id, 'U0CAROL', 'reject'));
    await service.click(click(cancelled.id, 'U0ALICE', 'cancel'));
    clock.advance(1000);
    await service.expireStale();
    expect(await outcomes(done.id)).toEqual(['approval-requested', 'approved', 'executing', 'failed']);
    expect(await outcomes(rejected.id)).toEqual(['approval-requested', 'rejected']);
    expect(await outcomes(cancelled.id)).toEqual(['approval-requested', 'cancelled']);
    expect(await outcomes(expired.id)).toEqual(['approval-requested', 'expired']);
    const rows = await audit.list({ limit: 100 });
    expect(rows.find((row) => row.outcome === 'approved')).toMatchObject({
      userId: 'U0BOB',
      operation: 'pullzone.reset-key',
      target: 'done',
      approvalId: done.id,
      correlationId: 'corr-U0BOB-approve',
    });
    expect(await audit.verify()).toEqual({ ok: true, count: rows.length });
  });

  it('another replica on the same database sees and decides the same request', async () => {
    const { service, newService } = await setUp();
    const request = await requested(service);
    const replica = newService();
    expect(await replica.click(click(request.id, 'U0BOB'))).toMatchObject({ ok: true, state: 'approved' });
    const late = await service.click(click(request.id, 'U0CAROL'));
    expect(late).toMatchObject({
      ok: false,
      reason: 'not-pending',
      decided: { state: 'approved', approvals: [{ userId: 'U0BOB' }] },
    });
  });
});

describe('the halfway reminder', () => {
  it('goes to exactly one of two replicas on separate connections, once, at half the time to live', async () => {
    const { service, clock, db, audit, secrets } = await setUp();
    const other = await openStore(db.url, clock);
    cleanups.push(() => other.close());
    const replica = createApprovalService({ store: other, audit, secrets, logger: memoryLogger() });
    const request = await requested(service);
    await service.setCard(request.id, 'C0APPROVALS', '1700000000.000100');
    clock.advance(15 * 60_000 - 1);
    expect([...(await service.claimReminders()), ...(await replica.claimReminders())]).toEqual([]);
    clock.advance(1);
    const claims = await Promise.all([
      service.claimReminders(),
      replica.claimReminders(),
      service.claimReminders(),
      replica.claimReminders(),
    ]);
    expect(claims.flat().map((claimed) => claimed.id)).toEqual([request.id]);
    clock.advance(60_000);
    expect([...(await service.claimReminders()), ...(await replica.claimReminders())]).toEqual([]);
    // Not a state change: an approval after the reminder still applies.
    expect(await service.click(click(request.id, 'U0BOB'))).toMatchObject({ ok: true, state: 'approved' });
  });
});

describe('counting requests by state', () => {
  it('lists every state, with the requests in each', async () => {
    const { service } = await setUp();
    const first = await requested(service, { target: '1' });
    await requested(service, { target: '2' });
    const third = await requested(service, { target: '3' });
    await service.click(click(first.id, 'U0CAROL', 'reject'));
    await service.click(click(third.id, third.requester, 'cancel'));
    expect(await service.countByState()).toEqual({
      pending: 1,
      approved: 0,
      executing: 0,
      succeeded: 0,
      failed: 0,
      unknown: 0,
      rejected: 1,
      expired: 0,
      cancelled: 1,
    });
  });
});

/**
 * The service over a state database that fails the cancel's write: before it commits, or after
 * (the connection drops before the answer arrives).
 */
function serviceWhoseCancelFails(fixture: ApprovalFixture, when: 'before' | 'after'): ApprovalService {
  const { store } = fixture;
  const client = new Proxy(store.client, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (property !== 'batch') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: Parameters<typeof target.batch>) => {
        const cancels = JSON.stringify(args[0]).includes("SET state = 'cancelled'");
        if (cancels && when === 'before') throw new Error('disk I/O error');
        const result = await target.batch(...args);
        if (cancels) throw new Error('connection reset after commit');
        return result;
      };
    },
  });
  return createApprovalService({
    store: { ...store, client },
    audit: fixture.audit,
    secrets: fixture.secrets,
    logger: memoryLogger(),
  });
}

describe('cancelling a request whose card could not be posted', () => {
  it('counts a cancel whose answer was lost after it committed as done, and audits it once', async () => {
    const fixture = await setUp();
    const request = await requested(fixture.service);
    const flaky = serviceWhoseCancelFails(fixture, 'after');
    expect(await flaky.cancelUnposted(request.id, 'the card could not be recorded')).toBe(true);
    expect((await fixture.service.get(request.id))?.state).toBe('cancelled');
    const rows = (await fixture.audit.list({ limit: 50, filter: { approvalId: request.id } })).filter(
      (row) => row.outcome === 'cancelled',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.detail).toContain('the card could not be recorded');
  });

  it('does not take the requester’s own cancel for its own when its write fails', async () => {
    const fixture = await setUp();
    const request = await requested(fixture.service);
    // The card went up: the requester cancels before this step's cancel runs, which then fails.
    await fixture.service.click(click(request.id, request.requester, 'cancel'));
    const flaky = serviceWhoseCancelFails(fixture, 'before');
    await expect(flaky.cancelUnposted(request.id, 'the card could not be recorded')).rejects.toThrow(
      'could not write to the approvals table',
    );
    const rows = (await fixture.audit.list({ limit: 50, filter: { approvalId: request.id } })).filter(
      (row) => row.outcome === 'cancelled',
    );
    expect(rows.map((row) => row.detail)).toEqual(['cancelled by the requester']);
  });

  it('still fails when the cancel did not commit', async () => {
    const fixture = await setUp();
    const request = await requested(fixture.service);
    const flaky = serviceWhoseCancelFails(fixture, 'before');
    await expect(flaky.cancelUnposted(request.id, 'the card could not be recorded')).rejects.toThrow(
      'could not write to the approvals table',
    );
    expect((await fixture.service.get(request.id))?.state).toBe('pending');
  });
});
