/**
 * What `/edge whoami` shows: the caller's roles and, for every operation, whether they may run
 * it here and why (or why not). Built from authorize() so the two can never disagree.
 */

import { type AuthorizeOptions, authorize, type Decision, rolesOf } from './authorize.js';
import { OPERATION_IDS, type OperationId } from './operation-ids.js';
import { type Policy, type PolicyLabel, type PolicyOrigin, policyLabel } from './schema.js';

export interface OperationAccess {
  operation: OperationId;
  decision: Decision;
}

export interface AccessExplanation {
  userId: string;
  channelId: string;
  /** Which policy decided, as people are told it (never a path on the server). */
  policy: PolicyLabel;
  origin: PolicyOrigin;
  /** Role names the user is in, in policy order. */
  roles: string[];
  /** False when the policy's channels leave this channel out; every operation is then denied. */
  channelAllowed: boolean;
  /** Every operation in the order of OPERATION_IDS. */
  operations: OperationAccess[];
}

export function explainAccess(
  policy: Policy,
  userId: string,
  channelId: string,
  membership: ReadonlySet<string>,
  options: AuthorizeOptions = {},
): AccessExplanation {
  return {
    userId,
    channelId,
    policy: policyLabel(policy),
    origin: policy.origin,
    roles: rolesOf(policy, userId, membership),
    channelAllowed: !policy.channels || policy.channels.includes(channelId),
    operations: OPERATION_IDS.map((operation) => ({
      operation,
      decision: authorize(policy, { operation, userId, channelId }, membership, options),
    })),
  };
}
