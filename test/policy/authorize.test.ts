import { describe, expect, it } from 'vitest';
import { decisionText } from '../../src/operations/engine/access-text.js';
import {
  type AccessRequest,
  approvalRuleFor,
  authorize,
  type Decision,
  isApprover,
  rolesOf,
} from '../../src/policy/authorize.js';
import { createDefaultPolicy, createDemoPolicy, GATED_BY_DEFAULT } from '../../src/policy/defaults.js';
import { explainAccess } from '../../src/policy/explain.js';
import { parsePolicy } from '../../src/policy/load.js';
import { OPERATION_IDS } from '../../src/policy/operation-ids.js';
import type { Policy } from '../../src/policy/schema.js';
import { EXAMPLE_POLICY_YAML } from './example-policy.js';

function policyFrom(yaml: string): Policy {
  const result = parsePolicy(yaml, 'edgeops.policy.yml');
  if (!result.ok) throw new Error(result.error);
  return result.policy;
}

const example = policyFrom(EXAMPLE_POLICY_YAML);
const none: ReadonlySet<string> = new Set();
const inOncall: ReadonlySet<string> = new Set(['S0ONCALL']);

const ask = (policy: Policy, request: AccessRequest, membership = none) =>
  authorize(policy, request, membership);

/** The approval requirement of an allowed decision; a denial has none. */
const approvalOf = (decision: Decision) => (decision.allowed ? decision.approval : undefined);

describe('authorize with the example policy', () => {
  it.each([
    ['help', 'C0RANDOM'],
    ['whoami', 'C0RANDOM'],
    ['help', 'D0DIRECT'],
    ['whoami', 'C0OPS'],
  ] as const)('always allows %s (in %s), whoever asks', (operation, channelId) => {
    expect(ask(example, { operation, userId: 'U0NOBODY', channelId })).toMatchObject({
      allowed: true,
      rule: 'always',
    });
  });

  it('denies every operation outside the policy channels and names where /edge works', () => {
    const decision = ask(example, { operation: 'dns.list', userId: 'U0ALICE', channelId: 'C0RANDOM' });
    expect(decision).toMatchObject({ allowed: false, rule: 'channel', channels: ['C0OPS', 'C0INCIDENT'] });
    expect(decisionText(decision)).toBe('/edge works only in <#C0OPS>, <#C0INCIDENT>; ask there');
  });

  it.each([
    [
      '"*" lets anyone run dns.list',
      'dns.list',
      'U0STRANGER',
      none,
      'C0INCIDENT',
      'granted to everyone by grants[0]',
    ],
    ['a user id in the role', 'apikey.list', 'U0ALICE', none, 'C0OPS', 'granted to oncall by grants[1]'],
    [
      'membership of a group in the role',
      'apikey.list',
      'U0DAVE',
      inOncall,
      'C0OPS',
      'granted to oncall by grants[1]',
    ],
  ] as const)('allows by %s', (_why, operation, userId, membership, channelId, reason) => {
    const decision = ask(example, { operation, userId, channelId }, membership);
    expect(decision).toMatchObject({ allowed: true, rule: 'grant', operation });
    expect(decisionText(decision)).toBe(reason);
  });

  it('denies a user in no role of the covering grants, naming the role and who can help', () => {
    const decision = ask(example, { operation: 'apikey.list', userId: 'U0DAVE', channelId: 'C0OPS' });
    expect(decision).toMatchObject({ allowed: false, rule: 'role', helpers: ['S0ONCALL', 'U0ALICE'] });
    expect(decisionText(decision)).toBe(
      'apikey.list is granted to oncall, and you are not in it; ask <!subteam^S0ONCALL>, <@U0ALICE> for help',
    );
  });

  it('says so when the group that would have granted access could not be read', () => {
    const decision = authorize(
      example,
      { operation: 'apikey.list', userId: 'U0DAVE', channelId: 'C0OPS' },
      none,
      {
        unresolvedGroups: new Set(['S0ONCALL']),
      },
    );
    expect(decision.rule).toBe('role');
    expect(decisionText(decision)).toContain('Slack did not answer whether you are in S0ONCALL');
  });

  it('denies a granted operation outside the grant channels and names them', () => {
    const decision = ask(example, { operation: 'apikey.list', userId: 'U0ALICE', channelId: 'C0INCIDENT' });
    expect(decision).toMatchObject({ allowed: false, rule: 'channel', channels: ['C0OPS'] });
    expect(decisionText(decision)).toBe('you may run apikey.list only in <#C0OPS> (grants[1])');
  });

  it('denies by default what no grant covers when there is a policy file', () => {
    const policy = policyFrom(
      'roles: { everyone: ["*"] }\ngrants:\n  - ops: [dns.list]\n    roles: [everyone]\n',
    );
    const decision = ask(policy, { operation: 'audit.list', userId: 'U0ALICE', channelId: 'C0OPS' });
    expect(decision).toMatchObject({ allowed: false, rule: 'grant', helpers: [] });
    expect(decisionText(decision)).toContain(
      'no grant in the policy allows audit.list; ask whoever maintains the policy to add one',
    );
  });

  it('attaches the approval rule to a granted operation that needs approval', () => {
    const decision = ask(example, { operation: 'pullzone.reset-key', userId: 'U0ALICE', channelId: 'C0OPS' });
    expect(decisionText(decision)).toBe('granted to oncall by grants[1]; it needs 1 approval from leads');
    expect(decision).toEqual({
      allowed: true,
      operation: 'pullzone.reset-key',
      rule: 'grant',
      grounds: { code: 'granted', roles: ['oncall'], grant: 'grants[1]' },
      approval: {
        required: 1,
        approvers: ['leads'],
        approverIds: ['U0BOB', 'U0CAROL'],
        confirm: false,
        ttlMs: 30 * 60_000,
        channel: 'C0APPROVALS',
      },
    });
  });

  it('carries required and confirm from the rule', () => {
    const decision = ask(example, {
      operation: 'db.tokens.invalidate',
      userId: 'U0ALICE',
      channelId: 'C0OPS',
    });
    expect(approvalOf(decision)).toMatchObject({ required: 2, confirm: true });
  });

  it('attaches no approval to an operation without a rule', () => {
    expect(
      approvalOf(ask(example, { operation: 'dns.list', userId: 'U0ALICE', channelId: 'C0OPS' })),
    ).toBeUndefined();
  });

  it('leaves out the approvals channel when the policy has none', () => {
    const policy = policyFrom(EXAMPLE_POLICY_YAML.replace('  channel: C0APPROVALS\n', ''));
    const decision = ask(policy, { operation: 'db.exec', userId: 'U0ALICE', channelId: 'C0OPS' });
    expect(approvalOf(decision)).not.toHaveProperty('channel');
  });
});

describe('approvals that could never be given', () => {
  const withLeads = (leads: string, required: number) =>
    policyFrom(
      `roles: { everyone: ["*"], leads: ${leads} }\ngrants:\n  - ops: "*"\n    roles: [everyone]\napprovals:\n  rules:\n    - ops: [db.exec]\n      approvers: [leads]\n      required: ${required}\n`,
    );

  it('are refused when the approver role is empty', () => {
    const decision = ask(withLeads('[]', 1), { operation: 'db.exec', userId: 'U0ALICE', channelId: 'C0OPS' });
    expect(decision).toMatchObject({ allowed: false, rule: 'role' });
    expect(decision).toMatchObject({ denial: { code: 'no-approvers', approverRoles: ['leads'] } });
    expect(decisionText(decision)).toContain('no one is in that role');
  });

  it('are refused when fewer listed approvers than required remain besides the requester', () => {
    const decision = ask(withLeads('[U0BOB]', 1), {
      operation: 'db.exec',
      userId: 'U0BOB',
      channelId: 'C0OPS',
    });
    expect(decision.allowed).toBe(false);
    expect(decisionText(decision)).toContain('you cannot approve your own request');
    expect(
      ask(withLeads('[U0BOB, U0CAROL]', 2), { operation: 'db.exec', userId: 'U0DAVE', channelId: 'C0OPS' })
        .allowed,
    ).toBe(true);
    expect(
      ask(withLeads('[U0BOB, U0CAROL]', 3), { operation: 'db.exec', userId: 'U0DAVE', channelId: 'C0OPS' })
        .allowed,
    ).toBe(false);
  });

  const members = (groups: Record<string, string[]>) =>
    new Map(Object.entries(groups).map(([id, users]) => [id, new Set(users)]));
  const askCounting = (policy: Policy, userId: string, groups: Record<string, string[]>) =>
    authorize(policy, { operation: 'db.exec', userId, channelId: 'C0OPS' }, none, {
      groupMembers: members(groups),
    });

  it('are refused when the approver group holds nobody but the requester', () => {
    const decision = askCounting(withLeads('[S0LEADS]', 1), 'U0BOB', { S0LEADS: ['U0BOB'] });
    expect(decision).toMatchObject({ allowed: false, rule: 'role' });
    expect(decisionText(decision)).toContain('only 0 approvers other than you are listed');
    expect(decisionText(decision)).toContain('counting the members of S0LEADS');
    expect(decision).toMatchObject({ denial: { code: 'too-few-approvers', others: 0, groups: ['S0LEADS'] } });
    expect(askCounting(withLeads('[S0LEADS]', 1), 'U0DAVE', { S0LEADS: ['U0BOB'] }).allowed).toBe(true);
  });

  it('count each person once across groups and user ids (N of M)', () => {
    const policy = withLeads('[S0LEADS, U0CAROL, S0ONCALL]', 2);
    const groups = { S0LEADS: ['U0BOB', 'U0CAROL'], S0ONCALL: ['U0CAROL', 'U0BOB'] };
    expect(askCounting(policy, 'U0BOB', groups).allowed).toBe(false);
    expect(decisionText(askCounting(policy, 'U0BOB', groups))).toContain(
      'only 1 approver other than you is listed',
    );
    expect(askCounting(policy, 'U0DAVE', groups).allowed).toBe(true);
    expect(askCounting(withLeads('[S0LEADS, U0CAROL, S0ONCALL]', 3), 'U0DAVE', groups).allowed).toBe(false);
  });

  it('are refused for N of M plain user ids when fewer than N remain besides the requester', () => {
    const policy = withLeads('[U0BOB, U0CAROL, U0DAVE]', 3);
    expect(
      decisionText(ask(policy, { operation: 'db.exec', userId: 'U0BOB', channelId: 'C0OPS' })),
    ).toContain('only 2 approvers other than you are listed');
    expect(ask(policy, { operation: 'db.exec', userId: 'U0ERIN', channelId: 'C0OPS' }).allowed).toBe(true);
  });

  it('are not refused when "*" names the approvers: anyone else may approve', () => {
    for (const required of [1, 5])
      expect(askCounting(withLeads('["*"]', required), 'U0BOB', {})).toMatchObject({
        allowed: true,
        approval: { required, approverIds: ['*'] },
      });
    expect(askCounting(withLeads('["*", S0LEADS]', 2), 'U0BOB', { S0LEADS: ['U0BOB'] }).allowed).toBe(true);
  });

  it('are not refused when a group could not be read: its members cannot be counted', () => {
    expect(askCounting(withLeads('[S0LEADS, S0ONCALL]', 2), 'U0BOB', { S0LEADS: ['U0BOB'] }).allowed).toBe(
      true,
    );
  });

  it('are not refused when a group could supply the approvers', () => {
    const decision = ask(withLeads('[S0LEADS]', 2), {
      operation: 'db.exec',
      userId: 'U0BOB',
      channelId: 'C0OPS',
    });
    expect(decision).toMatchObject({ allowed: true, approval: { required: 2, approverIds: ['S0LEADS'] } });
  });
});

describe('the built-in default policy', () => {
  const policy = createDefaultPolicy();

  it('lets everyone run every operation that needs no approval, in any channel', () => {
    for (const operation of OPERATION_IDS.filter((op) => !GATED_BY_DEFAULT.includes(op))) {
      const decision = ask(policy, { operation, userId: 'U0ANYONE', channelId: 'D0DIRECT' });
      expect(decision).toEqual({ allowed: true, operation, rule: 'default', grounds: { code: 'built-in' } });
      expect(decisionText(decision)).toBe('the built-in policy lets everyone run every operation');
    }
  });

  it.each(GATED_BY_DEFAULT)('refuses %s and explains how to configure approvers', (operation) => {
    const decision = ask(policy, { operation, userId: 'U0ANYONE', channelId: 'C0OPS' });
    expect(decision).toMatchObject({ allowed: false, rule: 'default' });
    expect(decisionText(decision)).toContain(
      `${operation} needs approval, and the built-in policy has no approvers`,
    );
    expect(decisionText(decision)).toContain('EDGEOPS_POLICY');
    expect(decision).toMatchObject({ denial: { code: 'built-in-has-no-approvers' } });
  });
});

describe('the console demo policy', () => {
  const policy = createDemoPolicy();

  it('lets U0YOU run everything, with the example approval rules', () => {
    expect(ask(policy, { operation: 'dns.list', userId: 'U0YOU', channelId: 'C0CONSOLE' })).toMatchObject({
      allowed: true,
      rule: 'grant',
    });
    for (const operation of [
      'pullzone.reset-key',
      'db.exec',
      'db.tokens.create',
      'shield.bot-detection',
    ] as const) {
      expect(approvalOf(ask(policy, { operation, userId: 'U0YOU', channelId: 'C0CONSOLE' }))).toEqual({
        required: 1,
        approvers: ['leads'],
        approverIds: ['U0LEAD', 'U0LEAD2'],
        confirm: false,
        ttlMs: 30 * 60_000,
        channel: 'C0APPROVALS',
      });
    }
    expect(
      approvalOf(ask(policy, { operation: 'db.tokens.invalidate', userId: 'U0YOU', channelId: 'C0CONSOLE' })),
    ).toMatchObject({
      required: 2,
      confirm: true,
    });
  });

  it('makes U0LEAD and U0LEAD2 approvers, and not U0YOU', () => {
    const rule = approvalRuleFor(policy, 'db.exec')!;
    expect(isApprover(policy, rule, 'U0LEAD', none)).toBe(true);
    expect(isApprover(policy, rule, 'U0LEAD2', none)).toBe(true);
    expect(isApprover(policy, rule, 'U0YOU', none)).toBe(false);
  });
});

describe('approval helpers', () => {
  it('finds the rule that covers an operation, or none', () => {
    expect(approvalRuleFor(example, 'db.tokens.invalidate')).toMatchObject({ required: 2, confirm: true });
    expect(approvalRuleFor(example, 'dns.list')).toBeUndefined();
  });

  it('counts group members as approvers', () => {
    const policy = policyFrom(EXAMPLE_POLICY_YAML.replace('leads: [U0BOB, U0CAROL]', 'leads: [S0LEADS]'));
    const rule = approvalRuleFor(policy, 'db.exec')!;
    expect(isApprover(policy, rule, 'U0ERIN', new Set(['S0LEADS']))).toBe(true);
    expect(isApprover(policy, rule, 'U0ERIN', inOncall)).toBe(false);
  });

  it('lists the roles a user is in', () => {
    expect(rolesOf(example, 'U0ALICE', none)).toEqual(['everyone', 'oncall']);
    expect(rolesOf(example, 'U0DAVE', inOncall)).toEqual(['everyone', 'oncall']);
    expect(rolesOf(example, 'U0BOB', none)).toEqual(['everyone', 'leads']);
  });
});

describe('explainAccess', () => {
  it('lists the roles and a decision with its reason for every operation', () => {
    const explanation = explainAccess(example, 'U0DAVE', 'C0OPS', none);
    expect(explanation).toMatchObject({
      userId: 'U0DAVE',
      channelId: 'C0OPS',
      policy: { origin: 'file' },
      origin: 'file',
      roles: ['everyone'],
      channelAllowed: true,
    });
    expect(explanation.operations.map((entry) => entry.operation)).toEqual([...OPERATION_IDS]);
    const byOperation = new Map(explanation.operations.map((entry) => [entry.operation, entry.decision]));
    expect(byOperation.get('dns.list')).toMatchObject({ allowed: true, rule: 'grant' });
    expect(byOperation.get('db.exec')).toMatchObject({ allowed: false, rule: 'role' });
    for (const { operation, decision } of explanation.operations) {
      expect(decision).toEqual(authorize(example, { operation, userId: 'U0DAVE', channelId: 'C0OPS' }, none));
    }
  });

  it('says when the channel itself is outside the policy', () => {
    const explanation = explainAccess(example, 'U0ALICE', 'C0RANDOM', none);
    expect(explanation.channelAllowed).toBe(false);
    expect(explanation.operations.every((entry) => entry.decision.rule === 'channel')).toBe(true);
  });
});
