import { describe, expect, it } from 'vitest';
import { authorize, isAllowed } from '../../src/policy/authorize.js';
import { createDefaultPolicy, createDemoPolicy } from '../../src/policy/defaults.js';
import { parsePolicy } from '../../src/policy/load.js';
import { OPERATION_IDS } from '../../src/policy/operation-ids.js';
import type { Policy } from '../../src/policy/schema.js';
import { EXAMPLE_POLICY_YAML } from './example-policy.js';

function policyFrom(yaml: string): Policy {
  const result = parsePolicy(yaml, 'edgeops.policy.yml');
  if (!result.ok) throw new Error(result.error);
  return result.policy;
}

/** Channel-scoped grants, a wildcard grant, groups, escalation, and a rule nobody else can approve. */
const SCOPED = `roles:
  everyone: ["*"]
  oncall: [S0ONCALL, U0ALICE]
  leads: [U0BOB]
  seniors: [U0CAROL]
grants:
  - ops: "*"
    roles: [oncall]
    channels: [C0OPS]
  - ops: [dns.list, logs.origin]
    roles: [everyone]
  - ops: [db.exec]
    roles: [leads]
approvals:
  channel: C0APPROVALS
  rules:
    - ops: [db.exec, pullzone.reset-key]
      approvers: [leads]
      required: 1
      escalate_to: seniors
    - ops: [db.tokens.invalidate]
      approvers: [leads, seniors]
      required: 2
`;

/** Each policy, and whether it allows some requests and refuses others. */
const POLICIES: [string, Policy, boolean][] = [
  ['the example policy', policyFrom(EXAMPLE_POLICY_YAML), true],
  ['channel-scoped grants with escalation', policyFrom(SCOPED), true],
  ['the built-in policy', createDefaultPolicy(), true],
  ['the demo policy', createDemoPolicy(), false],
];

const USERS = ['U0ALICE', 'U0BOB', 'U0CAROL', 'U0DAVE', 'U0NOBODY'];
const CHANNELS = ['C0OPS', 'C0INCIDENT', 'C0RANDOM', 'D0DIRECT'];
const MEMBERSHIPS: ReadonlySet<string>[] = [new Set(), new Set(['S0ONCALL'])];

describe('isAllowed', () => {
  it.each(POLICIES)(
    'answers as authorize() does for every operation, user, channel and membership (%s)',
    (_name, policy, mixed) => {
      const answers = new Set<boolean>();
      for (const operation of OPERATION_IDS)
        for (const userId of USERS)
          for (const channelId of CHANNELS)
            for (const membership of MEMBERSHIPS)
              for (const groupMembers of [undefined, new Map([['S0ONCALL', new Set(['U0DAVE'])]])]) {
                const request = { operation, userId, channelId };
                const expected = authorize(policy, request, membership, { groupMembers }).allowed;
                expect(
                  isAllowed(policy, request, membership, { groupMembers }),
                  JSON.stringify(request),
                ).toBe(expected);
                answers.add(expected);
              }
      // Where both answers occur, agreement is not two constant functions agreeing.
      if (mixed) expect(answers.size).toBe(2);
    },
  );
});
