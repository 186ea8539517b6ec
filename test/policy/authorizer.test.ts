import { describe, expect, it } from 'vitest';
import { createPolicyAuthorizer } from '../../src/policy/authorizer.js';
import { createGroupMembership } from '../../src/policy/groups.js';
import { parsePolicy } from '../../src/policy/load.js';
import { OPERATION_IDS } from '../../src/policy/operation-ids.js';
import type { Policy } from '../../src/policy/schema.js';
import { pinnedClock } from '../support/clock.js';
import { EXAMPLE_POLICY_YAML } from './example-policy.js';

function policyFrom(yaml: string): Policy {
  const result = parsePolicy(yaml, 'edgeops.policy.yml');
  if (!result.ok) throw new Error(result.error);
  return result.policy;
}

/**
 * The example policy with its approvers in user groups: two leads in all, so a lead (both are
 * on call too) asking for a two-approver change is refused; the other rule adds a group Slack
 * cannot list, whose members cannot be counted.
 */
const GROUP_APPROVERS = EXAMPLE_POLICY_YAML.replace(
  'leads: [U0BOB, U0CAROL]',
  'leads: [S0LEADS, U0CAROL]\n  auditors: [S0BROKEN]',
).replace('approvers: [leads]\n      required: 1', 'approvers: [leads, auditors]\n      required: 1');

const GROUPS: Record<string, string[]> = { S0ONCALL: ['U0DAVE', 'U0CAROL'], S0LEADS: ['U0DAVE'] };

function authorizerFor(yaml: string) {
  const policy = policyFrom(yaml);
  const groups = createGroupMembership({
    now: pinnedClock(),
    fetchMembers: async (groupId) => {
      if (groupId === 'S0BROKEN') throw new Error('usergroups.users.list: missing_scope');
      return GROUPS[groupId] ?? [];
    },
  });
  return createPolicyAuthorizer(
    {
      current: () => policy,
      generation: () => 0,
      source: 'test',
      reload: () => true,
      close: () => undefined,
    },
    groups,
  );
}

describe('allowedAmong', () => {
  const users = ['U0ALICE', 'U0BOB', 'U0CAROL', 'U0DAVE', 'U0NOBODY'];
  const channels = ['C0OPS', 'C0INCIDENT', 'C0RANDOM', 'D0DIRECT'];

  it.each([
    ['the example policy', EXAMPLE_POLICY_YAML],
    ['approvers in user groups, one unreadable', GROUP_APPROVERS],
  ])('gives decide()’s answer for every operation, user and channel (%s)', async (_name, yaml) => {
    const authorizer = authorizerFor(yaml);
    let allowedSomewhere = 0;
    let deniedSomewhere = 0;
    for (const userId of users)
      for (const channelId of channels) {
        const requester = { userId, channelId };
        const expected = new Set<string>();
        for (const operation of OPERATION_IDS)
          if ((await authorizer.decide(operation, requester)).allowed) expected.add(operation);
        const among = await authorizer.allowedAmong(OPERATION_IDS, requester);
        expect([...among].sort(), `${userId} in ${channelId}`).toEqual([...expected].sort());
        allowedSomewhere += among.size;
        deniedSomewhere += OPERATION_IDS.length - among.size;
      }
    // Both answers occur, so agreement is not two empty sets.
    expect(allowedSomewhere).toBeGreaterThan(0);
    expect(deniedSomewhere).toBeGreaterThan(0);
  });

  it('refuses what nobody else could approve, counting the members of approver groups', async () => {
    const authorizer = authorizerFor(GROUP_APPROVERS);
    const carol = { userId: 'U0CAROL', channelId: 'C0OPS' };
    expect((await authorizer.decide('db.tokens.invalidate', carol)).allowed).toBe(false);
    const among = await authorizer.allowedAmong(['db.tokens.invalidate', 'pullzone.reset-key'], carol);
    expect([...among]).toEqual(['pullzone.reset-key']);
  });

  it('answers anew when the policy or the requester’s groups change', async () => {
    let policy = policyFrom(EXAMPLE_POLICY_YAML);
    const members: Record<string, string[]> = { S0ONCALL: [] };
    const groups = createGroupMembership({
      now: pinnedClock(),
      fetchMembers: async (id) => members[id] ?? [],
    });
    const authorizer = createPolicyAuthorizer(
      {
        current: () => policy,
        generation: () => 0,
        source: 'test',
        reload: () => true,
        close: () => undefined,
      },
      groups,
    );
    const dave = { userId: 'U0DAVE', channelId: 'C0OPS' };
    const mayAudit = async () => (await authorizer.allowedAmong(OPERATION_IDS, dave)).has('audit.list');
    expect(await mayAudit()).toBe(false);
    expect(await mayAudit()).toBe(false);
    members.S0ONCALL = ['U0DAVE'];
    groups.invalidate();
    expect(await mayAudit()).toBe(true);
    policy = policyFrom(EXAMPLE_POLICY_YAML.replace(', audit.list]', ']'));
    expect(await mayAudit()).toBe(false);
    expect((await authorizer.decide('audit.list', dave)).allowed).toBe(false);
  });

  it('answers only for the operations asked about', async () => {
    const authorizer = authorizerFor(EXAMPLE_POLICY_YAML);
    const among = await authorizer.allowedAmong(['dns.list', 'audit.list'], {
      userId: 'U0ALICE',
      channelId: 'C0OPS',
    });
    expect([...among].sort()).toEqual(['audit.list', 'dns.list']);
  });
});
