/**
 * Clicks the state machine refuses, each with the facts it returns and the words the clicker
 * reads: test/approvals/machine.test.ts checks the facts, and
 * test/operations/approvals/refusal-text.test.ts the words written from them.
 */
import type {
  ApprovalClick,
  ApprovalRequest,
  ClickableRequest,
  ClickRefusalReason,
} from '../../src/approvals/machine.js';

/** The moment every case is clicked at. */
export const NOW = new Date('2025-03-01T14:10:00Z');

/** A pending request for pull zone 4242 asked by U0ALICE, approved by members of leads. */
export function clickableRequest(overrides: Partial<ClickableRequest> = {}): ClickableRequest {
  return {
    target: '4242',
    requester: 'U0ALICE',
    state: 'pending',
    createdAt: new Date('2025-03-01T14:00:00Z'),
    expiresAt: new Date('2025-03-01T14:30:00Z'),
    required: 1,
    approverRoles: ['leads'],
    confirm: false,
    approvals: [],
    escalation: null,
    decidedBy: null,
    decidedAt: null,
    finishedAt: null,
    ...overrides,
  };
}

export const approve = (userId: string, extra: Partial<ApprovalClick> = {}): ApprovalClick => ({
  userId,
  action: 'approve',
  isApprover: true,
  ...extra,
});

export interface RefusalCase {
  name: string;
  request: Partial<ClickableRequest>;
  click: ApprovalClick;
  reason: ClickRefusalReason;
  /** What the refusal tells, as data. */
  facts: Record<string, unknown>;
  /** Words the clicker reads, written from those facts. */
  says: string;
}

export const decidedAt = new Date('2025-03-01T14:02:00Z');
export const votes = [{ userId: 'U0BOB', at: decidedAt }];

export const CLICK_REFUSAL_CASES: RefusalCase[] = [
  {
    name: 'a requester cannot approve their own request',
    request: {},
    click: approve('U0ALICE'),
    reason: 'own-request',
    facts: { action: 'approve' },
    says: 'You requested this',
  },
  {
    name: 'a requester who is also an approver still cannot approve their own request',
    request: { approverRoles: ['leads'] },
    click: approve('U0ALICE', { isApprover: true }),
    reason: 'own-request',
    facts: { action: 'approve' },
    says: 'cannot approve it',
  },
  {
    name: 'a requester cannot reject their own request and is pointed at Cancel',
    request: {},
    click: { userId: 'U0ALICE', action: 'reject', isApprover: true },
    reason: 'own-request',
    facts: { action: 'reject' },
    says: 'use Cancel',
  },
  {
    name: 'a non-approver cannot approve',
    request: {},
    click: approve('U0MALLORY', { isApprover: false }),
    reason: 'not-approver',
    facts: { action: 'approve', approverRoles: ['leads'], noLongerNamed: false },
    says: 'Only members of leads can approve',
  },
  {
    name: 'a non-approver cannot reject',
    request: {},
    click: { userId: 'U0MALLORY', action: 'reject', isApprover: false },
    reason: 'not-approver',
    facts: { action: 'reject', approverRoles: ['leads'], noLongerNamed: false },
    says: 'Only members of leads can reject',
  },
  {
    name: 'an approver who already approved counts once',
    request: { required: 2, approvals: votes },
    click: approve('U0BOB'),
    reason: 'duplicate-approval',
    facts: { approvedAt: decidedAt, missing: 1 },
    says: 'You already approved this at 14:02 UTC',
  },
  {
    name: 'a late approval is told who approved and when',
    request: { state: 'approved', approvals: votes, decidedBy: 'U0BOB', decidedAt },
    click: approve('U0CAROL'),
    reason: 'not-pending',
    facts: { decided: { state: 'approved', approvals: votes, decidedBy: 'U0BOB', decidedAt } },
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
    facts: {
      decided: { state: 'approved', approvals: [...votes, { userId: 'U0DAVE', at: decidedAt }], decidedAt },
    },
    says: 'already approved by <@U0BOB> and <@U0DAVE> at 14:02 UTC',
  },
  {
    name: 'a late click on a running request says it is running',
    request: { state: 'executing', approvals: votes, decidedBy: 'U0BOB', decidedAt },
    click: approve('U0CAROL'),
    reason: 'not-pending',
    facts: { decided: { state: 'executing', approvals: votes, decidedAt } },
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
    facts: { decided: { state: 'failed', finishedAt: new Date('2025-03-01T14:03:00Z') } },
    says: 'it ran and failed at 14:03 UTC',
  },
  {
    name: 'a late click on an interrupted request says to check the platform',
    request: { state: 'unknown', approvals: votes, decidedBy: 'U0BOB', decidedAt },
    click: approve('U0CAROL'),
    reason: 'not-pending',
    facts: { decided: { state: 'unknown' } },
    says: 'check the platform',
  },
  {
    name: 'a late click on a rejected request names who rejected it',
    request: { state: 'rejected', decidedBy: 'U0CAROL', decidedAt },
    click: approve('U0BOB'),
    reason: 'not-pending',
    facts: { decided: { state: 'rejected', decidedBy: 'U0CAROL', decidedAt } },
    says: 'rejected by <@U0CAROL> at 14:02 UTC',
  },
  {
    name: 'a late click on an expired request says when it expired',
    request: { state: 'expired', expiresAt: new Date('2025-03-01T13:45:00Z') },
    click: approve('U0BOB'),
    reason: 'not-pending',
    facts: { decided: { state: 'expired', expiresAt: new Date('2025-03-01T13:45:00Z') } },
    says: 'expired at 13:45 UTC',
  },
  {
    name: 'a late click on a cancelled request says the requester cancelled it',
    request: { state: 'cancelled', decidedBy: 'U0ALICE', decidedAt },
    click: approve('U0BOB'),
    reason: 'not-pending',
    facts: { decided: { state: 'cancelled', decidedBy: 'U0ALICE', decidedAt } },
    says: 'cancelled by the requester at 14:02 UTC',
  },
  {
    name: 'an approval at the moment of expiry is refused',
    request: { expiresAt: NOW },
    click: approve('U0BOB'),
    reason: 'expired',
    facts: { expiresAt: NOW },
    says: 'expired at 14:10 UTC',
  },
  {
    name: 'a cancel after expiry is refused',
    request: { expiresAt: new Date('2025-03-01T14:00:00Z') },
    click: { userId: 'U0ALICE', action: 'cancel', isApprover: false },
    reason: 'expired',
    facts: { expiresAt: new Date('2025-03-01T14:00:00Z') },
    says: 'expired at 14:00 UTC',
  },
  {
    name: 'a confirm rule refuses an approval without the typed target id',
    request: { confirm: true },
    click: approve('U0BOB'),
    reason: 'confirmation-mismatch',
    facts: { target: '4242', typed: false },
    says: 'Type the target id `4242`',
  },
  {
    name: 'a confirm rule refuses a typed id that is not the target',
    request: { confirm: true },
    click: approve('U0BOB', { confirmation: '4243' }),
    reason: 'confirmation-mismatch',
    facts: { target: '4242', typed: true },
    says: 'type `4242` exactly',
  },
  {
    name: 'a confirm rule compares the whole id, not a prefix',
    request: { confirm: true, target: 'db-main' },
    click: approve('U0BOB', { confirmation: 'db' }),
    reason: 'confirmation-mismatch',
    facts: { target: 'db-main', typed: true },
    says: 'type `db-main` exactly',
  },
  {
    name: 'an approver the policy in force no longer names cannot approve',
    request: {},
    click: { userId: 'U0BOB', action: 'approve', isApprover: true, isApproverNow: false },
    reason: 'not-approver',
    facts: { action: 'approve', approverRoles: ['leads'], noLongerNamed: true },
    says: 'the policy in force now does not name you',
  },
  {
    name: 'an approver the policy in force no longer names cannot reject',
    request: {},
    click: { userId: 'U0BOB', action: 'reject', isApprover: true, isApproverNow: false },
    reason: 'not-approver',
    facts: { action: 'reject', approverRoles: ['leads'], noLongerNamed: true },
    says: 'your click does not count',
  },
  {
    name: 'a member of the escalation role cannot approve before half the time to live',
    request: { escalation: { role: 'oncall', ids: ['U0CAROL'] } },
    click: approve('U0CAROL', { isApprover: false, isEscalationApprover: true }),
    reason: 'not-yet-escalated',
    facts: { action: 'approve', role: 'oncall', from: new Date('2025-03-01T14:15:00Z') },
    says: 'members of oncall may approve it only from 14:15 UTC',
  },
  {
    name: 'only the requester can cancel',
    request: {},
    click: { userId: 'U0BOB', action: 'cancel', isApprover: true },
    reason: 'not-requester',
    facts: { requester: 'U0ALICE' },
    says: 'Only the requester (<@U0ALICE>) can cancel',
  },
];

/**
 * A whole stored request, pending, for pull zone 4242 asked by U0ALICE in C0OPS at `createdAt`,
 * open for 30 minutes, approved by one of leads (U0BOB): what cards and refusal texts are written from.
 */
export function storedRequest(createdAt: Date, overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    id: 'ap_0123456789abcdef',
    operation: 'pullzone.reset-key',
    target: '4242',
    params: { pullZoneId: 4242 },
    paramsDigest: '0'.repeat(64),
    requester: 'U0ALICE',
    channelId: 'C0OPS',
    reason: '',
    state: 'pending',
    createdAt,
    expiresAt: new Date(createdAt.getTime() + 30 * 60_000),
    required: 1,
    approverRoles: ['leads'],
    approverIds: ['U0BOB'],
    confirm: false,
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
    ...overrides,
  };
}
