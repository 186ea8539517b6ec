/**
 * What a caller may run, as help, the menu and the Home ask it: each request builds its own view,
 * and the views of one caller under one policy share the answer the authorizer remembers.
 */
import { describe, expect, it } from 'vitest';
import { accessView } from '../../src/operations/engine/access.js';
import { operations } from '../../src/operations/registry.js';
import { createPolicyAuthorizer } from '../../src/policy/authorizer.js';
import { createGroupMembership } from '../../src/policy/groups.js';
import { parsePolicy } from '../../src/policy/load.js';
import { EXAMPLE_POLICY_YAML } from '../policy/example-policy.js';
import { pinnedClock } from '../support/clock.js';

function exampleAuthorizer() {
  const parsed = parsePolicy(EXAMPLE_POLICY_YAML, 'edgeops.policy.yml');
  if (!parsed.ok) throw new Error(parsed.error);
  const { policy } = parsed;
  return createPolicyAuthorizer(
    {
      current: () => policy,
      generation: () => 0,
      source: 'test',
      reload: () => true,
      close: () => undefined,
    },
    createGroupMembership({ now: pinnedClock(), fetchMembers: async () => [] }),
  );
}

describe('the access view', () => {
  it('works out what someone may run once per policy, however many requests and Homes ask', async () => {
    const authorizer = exampleAuthorizer();
    const alice = { userId: 'U0ALICE', channelId: 'C0OPS' };
    // Two requests of the same person in the same channel: one command, then their Home redrawn.
    const first = await accessView(operations, authorizer, alice).allowed();
    const second = await accessView(operations, authorizer, alice).allowed();
    expect(second.has('audit.list')).toBe(true);
    // The same remembered answer, not one worked out again for every request.
    expect(second).toBe(first);
  });
});
