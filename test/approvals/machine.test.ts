import { describe, expect, it } from 'vitest';
import {
  APPROVAL_STATES,
  type ApprovalClick,
  type ApprovalState,
  type ClickableRequest,
  type ClickRefusalReason,
  canTransition,
  decideClick,
  formatUtc,
  isFinalState,
  isOpenState,
} from '../../src/approvals/machine.js';

const NOW = new Date('2025-03-01T14:10:00Z');

function request(overrides: Partial<ClickableRequest> = {}): ClickableRequest {
  return {
    target: '4242',
    requester: 'U0ALICE',
    state: 'pending',
    expiresAt: new Date('2025-03-01T14:30:00Z'),
    required: 1,
    approverRoles: ['leads'],
    confirm: false,
    approvals: [],
    decidedBy: null,
    decidedAt: null,
    finishedAt: null,
    ...overrides,
  };
}

const approve = (userId: string, extra: Partial<ApprovalClick> = {}): ApprovalClick => ({
  userId,
  action: 'approve',
  isApprover: true,
  ...extra,
});

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

interface RefusalCase {
  name: string;
  request: Partial<ClickableRequest>;
  click: ApprovalClick;
  reason: ClickRefusalReason;
  says: string;
}

const decidedAt = new Date('2025-03-01T14:02:00Z');
const votes = [{ userId: 'U0BOB', at: decidedAt }];

const refusals: RefusalCase[] = [
  {
    name: 'a requester cannot approve their own request',
    request: {},
    click: approve('U0ALICE'),
    reason: 'own-request',
    says: 'You requested this',
  },
  {
    name: 'a requester who is also an approver still cannot approve their own request',
    request: { approverRoles: ['leads'] },
    click: approve('U0ALICE', { isApprover: true }),
    reason: 'own-request',
    says: 'cannot approve it',
  },
  {
    name: 'a requester cannot reject their own request and is pointed at Cancel',
    request: {},
    click: { userId: 'U0ALICE', action: 'reject', isApprover: true },
    reason: 'own-request',
    says: 'use Cancel',
  },
  {
    name: 'a non-approver cannot approve',
    request: {},
    click: approve('U0MALLORY', { isApprover: false }),
    reason: 'not-approver',
    says: 'Only members of leads can approve',
  },
  {
    name: 'a non-approver cannot reject',
    request: {},
    click: { userId: 'U0MALLORY', action: 'reject', isApprover: false },
    reason: 'not-approver',
    says: 'Only members of leads can reject',
  },
  {
    name: 'an approver who already approved counts once',
    request: { required: 2, approvals: votes },
    click: approve('U0BOB'),
    reason: 'duplicate-approval',
    says: 'You already approved this at 14:02 UTC',
  },
  {
    name: 'a late approval is told who approved and when',
    request: { state: 'approved', approvals: votes, decidedBy: 'U0BOB', decidedAt },
    click: approve('U0CAROL'),
    reason: 'not-pending',
    says: 'already approved by <@U0BOB> at 14:02 UTC',
  },
  {
    name: 'a late click on an N-of-M request names every approver',
    request: {
      state: 'approved',
      required: 2,
      approvals: [...votes, { userId: 'U0DAVE', at: decidedAt }],
      decidedBy: 'U0DAVE',
      decidedAt,
    },
    click: approve('U0CAROL'),
    reason: 'not-pending',
    says: 'already approved by <@U0BOB> and <@U0DAVE> at 14:02 UTC',
  },
  {
    name: 'a late click on a running request says it is running',
    request: { state: 'executing', approvals: votes, decidedBy: 'U0BOB', decidedAt },
    click: approve('U0CAROL'),
    reason: 'not-pending',
    says: 'it is running now',
  },
  {
    name: 'a late click on a finished request says how it ended',
    request: {
      state: 'failed',
      approvals: votes,
      decidedBy: 'U0BOB',
      decidedAt,
      finishedAt: new Date('2025-03-01T14:03:00Z'),
    },
    click: approve('U0CAROL'),
    reason: 'not-pending',
    says: 'it ran and failed at 14:03 UTC',
  },
  {
    name: 'a late click on an interrupted request says to check the platform',
    request: { state: 'unknown', approvals: votes, decidedBy: 'U0BOB', decidedAt },
    click: approve('U0CAROL'),
    reason: 'not-pending',
    says: 'check the platform',
  },
  {
    name: 'a late click on a rejected request names who rejected it',
    request: { state: 'rejected', decidedBy: 'U0CAROL', decidedAt },
    click: approve('U0BOB'),
    reason: 'not-pending',
    says: 'rejected by <@U0CAROL> at 14:02 UTC',
  },
  {
    name: 'a late click on an expired request says when it expired',
    request: { state: 'expired', expiresAt: new Date('2025-03-01T13:45:00Z') },
    click: approve('U0BOB'),
    reason: 'not-pending',
    says: 'expired at 13:45 UTC',
  },
  {
    name: 'a late click on a cancelled request says the requester cancelled it',
    request: { state: 'cancelled', decidedBy: 'U0ALICE', decidedAt },
    click: approve('U0BOB'),
    reason: 'not-pending',
    says: 'cancelled by the requester at 14:02 UTC',
  },
  {
    name: 'an approval at the moment of expiry is refused',
    request: { expiresAt: NOW },
    click: approve('U0BOB'),
    reason: 'expired',
    says: 'expired at 14:10 UTC',
  },
  {
    name: 'a cancel after expiry is refused',
    request: { expiresAt: new Date('2025-03-01T14:00:00Z') },
    click: { userId: 'U0ALICE', action: 'cancel', isApprover: false },
    reason: 'expired',
    says: 'expired at 14:00 UTC',
  },
  {
    name: 'a confirm rule refuses an approval without the typed target id',
    request: { confirm: true },
    click: approve('U0BOB'),
    reason: 'confirmation-mismatch',
    says: 'Type the target id `4242`',
  },
  {
    name: 'a confirm rule refuses a typed id that is not the target',
    request: { confirm: true },
    click: approve('U0BOB', { confirmation: '4243' }),
    reason: 'confirmation-mismatch',
    says: 'type `4242` exactly',
  },
  {
    name: 'a confirm rule compares the whole id, not a prefix',
    request: { confirm: true, target: 'db-main' },
    click: approve('U0BOB', { confirmation: 'db' }),
    reason: 'confirmation-mismatch',
    says: 'type `db-main` exactly',
  },
  {
    name: 'an approver the policy in force no longer names cannot approve',
    request: {},
    click: { userId: 'U0BOB', action: 'approve', isApprover: true, isApproverNow: false },
    reason: 'not-approver',
    says: 'the policy in force now does not name you',
  },
  {
    name: 'an approver the policy in force no longer names cannot reject',
    request: {},
    click: { userId: 'U0BOB', action: 'reject', isApprover: true, isApproverNow: false },
    reason: 'not-approver',
    says: 'your click does not count',
  },
  {
    name: 'only the requester can cancel',
    request: {},
    click: { userId: 'U0BOB', action: 'cancel', isApprover: true },
    reason: 'not-requester',
    says: 'Only the requester (<@U0ALICE>) can cancel',
  },
];

describe('decideClick refusals', () => {
  it.each(refusals)('$name', ({ request: overrides, click, reason, says }) => {
    const decision = decideClick(request(overrides), click, NOW);
    expect(decision).toMatchObject({ accepted: false, reason });
    expect(decision.accepted ? '' : decision.message).toContain(says);
  });

  it('names the date as well when the decision was on another day', () => {
    const decision = decideClick(
      request({ state: 'rejected', decidedBy: 'U0CAROL', decidedAt: new Date('2025-02-28T23:59:00Z') }),
      approve('U0BOB'),
      NOW,
    );
    expect(decision.accepted ? '' : decision.message).toContain(
      'rejected by <@U0CAROL> at 2025-02-28 23:59 UTC',
    );
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

describe('formatUtc', () => {
  it('shows hours and minutes in UTC, with the date when it is another day', () => {
    expect(formatUtc(new Date('2025-03-01T09:05:59Z'), NOW)).toBe('09:05 UTC');
    expect(formatUtc(new Date('2025-03-02T00:00:00Z'), NOW)).toBe('2025-03-02 00:00 UTC');
  });
});
