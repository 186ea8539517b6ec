import { describe, expect, it } from 'vitest';
import {
  APPROVAL_STATES,
  type ApprovalState,
  canTransition,
  decideClick,
  isFinalState,
  isOpenState,
} from '../../src/approvals/machine.js';
import {
  approve,
  CLICK_REFUSAL_CASES,
  decidedAt,
  NOW,
  clickableRequest as request,
  votes,
} from './click-refusals.js';

const ALLOWED: ReadonlySet<string> = new Set([
  'pending>approved',
  'pending>rejected',
  'pending>expired',
  'pending>cancelled',
  'approved>executing',
  'approved>unknown',
  'executing>succeeded',
  'executing>failed',
  'executing>unknown',
]);

describe('approval state transitions', () => {
  const pairs = APPROVAL_STATES.flatMap((from) => APPROVAL_STATES.map((to) => [from, to] as const));

  it.each(pairs)('%s → %s is allowed only if the product contract lists it', (from, to) => {
    expect(canTransition(from, to)).toBe(ALLOWED.has(`${from}>${to}`));
  });

  it('pending, approved and executing are open; every state without a way out is final', () => {
    expect(APPROVAL_STATES.filter(isOpenState)).toEqual(['pending', 'approved', 'executing']);
    expect(APPROVAL_STATES.filter(isFinalState)).toEqual([
      'succeeded',
      'failed',
      'rejected',
      'expired',
      'cancelled',
      'unknown',
    ]);
  });
});

describe('decideClick refusals', () => {
  it.each(CLICK_REFUSAL_CASES)('$name', ({ request: overrides, click, reason, facts }) => {
    expect(decideClick(request(overrides), click, NOW)).toMatchObject({ accepted: false, reason, ...facts });
  });

  it('a refusal carries facts only, never a sentence', () => {
    for (const { request: overrides, click } of CLICK_REFUSAL_CASES) {
      const decision = decideClick(request(overrides), click, NOW);
      expect(decision).not.toHaveProperty('message');
    }
  });

  it('a late click carries the decision time as it was, also on another day', () => {
    const earlier = new Date('2025-02-28T23:59:00Z');
    expect(
      decideClick(
        request({ state: 'rejected', decidedBy: 'U0CAROL', decidedAt: earlier }),
        approve('U0BOB'),
        NOW,
      ),
    ).toMatchObject({
      accepted: false,
      reason: 'not-pending',
      decided: { state: 'rejected', decidedBy: 'U0CAROL', decidedAt: earlier },
    });
  });
});

describe('decideClick acceptance', () => {
  it('an approval that reaches the required count approves the request', () => {
    expect(decideClick(request(), approve('U0BOB'), NOW)).toEqual({
      accepted: true,
      action: 'approve',
      outcome: 'approved',
      to: 'approved',
      approvals: [{ userId: 'U0BOB', at: NOW }],
      decidedBy: 'U0BOB',
      decidedAt: NOW,
      decisionReason: null,
    });
  });

  it('an approval short of the required count is recorded and keeps the request pending', () => {
    expect(decideClick(request({ required: 2 }), approve('U0BOB'), NOW)).toEqual({
      accepted: true,
      action: 'approve',
      outcome: 'approval-recorded',
      to: 'pending',
      approvals: [{ userId: 'U0BOB', at: NOW }],
      decidedBy: null,
      decidedAt: null,
      decisionReason: null,
    });
  });

  it('a second distinct approver completes a two-approval request', () => {
    const decision = decideClick(request({ required: 2, approvals: votes }), approve('U0CAROL'), NOW);
    expect(decision).toMatchObject({ accepted: true, to: 'approved', decidedBy: 'U0CAROL' });
    expect(decision.accepted && decision.approvals.map((vote) => vote.userId)).toEqual(['U0BOB', 'U0CAROL']);
  });

  it('a confirm rule accepts the exact target id, ignoring surrounding spaces', () => {
    const decision = decideClick(
      request({ confirm: true }),
      approve('U0BOB', { confirmation: ' 4242 ' }),
      NOW,
    );
    expect(decision).toMatchObject({ accepted: true, to: 'approved' });
  });

  it('a Reject carries its reason, trimmed; a blank one is no reason', () => {
    const reject = (reason?: string) =>
      decideClick(request(), { userId: 'U0CAROL', action: 'reject', isApprover: true, reason }, NOW);
    expect(reject('  not during the freeze ')).toMatchObject({ decisionReason: 'not during the freeze' });
    expect(reject('   ')).toMatchObject({ decisionReason: null });
    expect(reject()).toMatchObject({ decisionReason: null });
  });

  it('an approver rejects, closing the request even after an earlier approval', () => {
    const decision = decideClick(
      request({ required: 2, approvals: votes }),
      { userId: 'U0CAROL', action: 'reject', isApprover: true },
      NOW,
    );
    expect(decision).toMatchObject({
      accepted: true,
      outcome: 'rejected',
      to: 'rejected',
      decidedBy: 'U0CAROL',
    });
  });

  it('the requester cancels their own pending request', () => {
    const decision = decideClick(request(), { userId: 'U0ALICE', action: 'cancel', isApprover: false }, NOW);
    expect(decision).toMatchObject({
      accepted: true,
      outcome: 'cancelled',
      to: 'cancelled',
      decidedBy: 'U0ALICE',
    });
  });

  it('a member of the escalation role approves from half the time to live on, not a millisecond before', () => {
    // Asked 14:00, expires 14:30: escalated at 14:15.
    const escalating = request({ escalation: { role: 'oncall', ids: ['U0CAROL'] } });
    const click = approve('U0CAROL', { isApprover: false, isEscalationApprover: true });
    const half = new Date('2025-03-01T14:15:00Z');
    expect(decideClick(escalating, click, new Date(half.getTime() - 1))).toMatchObject({
      accepted: false,
      reason: 'not-yet-escalated',
    });
    expect(decideClick(escalating, click, half)).toMatchObject({ accepted: true, to: 'approved' });
    // Removed from the role since: refused like any approver the policy no longer names.
    expect(decideClick(escalating, { ...click, isEscalationApproverNow: false }, half)).toMatchObject({
      accepted: false,
      reason: 'not-approver',
    });
    // A rule without escalation gives the role nothing.
    expect(decideClick(request(), click, half)).toMatchObject({ accepted: false, reason: 'not-approver' });
  });

  it('one millisecond before expiry an approval still counts', () => {
    const decision = decideClick(request({ expiresAt: new Date(NOW.getTime() + 1) }), approve('U0BOB'), NOW);
    expect(decision.accepted).toBe(true);
  });

  it.each<ApprovalState>([
    'approved',
    'executing',
    'succeeded',
    'failed',
    'rejected',
    'expired',
    'cancelled',
    'unknown',
  ])('no click of any kind is accepted once the request is %s', (state) => {
    for (const click of [
      approve('U0CAROL'),
      { userId: 'U0CAROL', action: 'reject', isApprover: true } as const,
      { userId: 'U0ALICE', action: 'cancel', isApprover: false } as const,
    ])
      expect(decideClick(request({ state, decidedAt }), click, NOW)).toMatchObject({
        accepted: false,
        reason: 'not-pending',
      });
  });
});
