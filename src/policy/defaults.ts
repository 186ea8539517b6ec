/**
 * The policies used without a policy file (PRODUCT §3): the built-in default, and the console
 * demo policy that lets a newcomer try approvals against the sandbox by switching users.
 */

import { OPERATION_IDS, type OperationId } from './operation-ids.js';
import { DEFAULT_APPROVAL_TTL, EVERYONE, type Policy, policyFileSchema } from './schema.js';

/** Operations that change secrets or data: approval is required even without a policy file. */
export const GATED_BY_DEFAULT: readonly OperationId[] = [
  'pullzone.reset-key',
  'db.exec',
  'db.tokens.create',
  'db.tokens.invalidate',
  // A full purge can send every request to the origin at once.
  'purge.zone',
];

const THIRTY_MINUTES = 30 * 60_000;

/**
 * Everyone may run everything anywhere; the gated operations have an approval rule with no
 * approvers, which authorize() refuses with an explanation of how to configure them. Built by
 * hand because a policy file may not have a rule without approvers.
 */
export function createDefaultPolicy(): Policy {
  return {
    origin: 'default',
    source: 'the built-in policy',
    roles: { everyone: [EVERYONE] },
    grants: [{ ops: [...OPERATION_IDS], roles: ['everyone'] }],
    approvals: {
      ttlMs: THIRTY_MINUTES,
      rules: [{ ops: [...GATED_BY_DEFAULT], approvers: [], required: 1, confirm: false }],
    },
  };
}

/** The console demo's people: the user at the keyboard, and two approvers to switch to with `:as`. */
export const DEMO_USER_ID = 'U0YOU';
export const DEMO_APPROVER_IDS = ['U0LEAD', 'U0LEAD2'] as const;
export const DEMO_APPROVALS_CHANNEL = 'C0APPROVALS';

/** The PRODUCT §3 example rules, with everyone allowed everything; parsed so it is a valid file policy. */
export function createDemoPolicy(): Policy {
  const file = policyFileSchema.parse({
    roles: { everyone: [EVERYONE], leads: [...DEMO_APPROVER_IDS] },
    grants: [{ ops: EVERYONE, roles: ['everyone'] }],
    approvals: {
      channel: DEMO_APPROVALS_CHANNEL,
      ttl: DEFAULT_APPROVAL_TTL,
      rules: [
        {
          ops: ['pullzone.reset-key', 'db.tokens.create', 'db.exec', 'shield.bot-detection', 'purge.zone'],
          approvers: ['leads'],
          required: 1,
        },
        { ops: ['db.tokens.invalidate'], approvers: ['leads'], required: 2, confirm: true },
      ],
    },
  });
  return { ...file, origin: 'demo', source: 'the console demo policy' };
}
