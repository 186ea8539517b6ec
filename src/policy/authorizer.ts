/**
 * The policy as the engine asks it: resolves the requester's user groups (cached, from Slack),
 * then asks the pure authorize(). Answers are data; operations/access-text.ts writes them for people.
 */

import { isOperationId, type OperationId } from '../operation-ids.js';
import {
  approvalRuleFor,
  authorize,
  type Decision,
  isAllowed,
  isApprover,
  isEscalationApprover,
  type Operation,
} from './authorize.js';
import { type AccessExplanation, explainAccess } from './explain.js';
import { type GroupLookup, type GroupMembership, groupIdsIn } from './groups.js';
import type { Policy } from './schema.js';
import type { PolicyStore } from './store.js';

/** Who asks, where: all the policy needs to know of a request. */
export interface Requester {
  userId: string;
  channelId: string;
}

/** The policy as the engine needs it. */
export interface Authorizer {
  /** May the requester run `operation` here, and does it need approval? */
  decide(operation: string, requester: Requester): Promise<Decision>;
  /** Every operation's decision for the requester, for whoami. */
  explanation(requester: Requester): Promise<AccessExplanation>;
  /**
   * Which of `operations` the requester may run here (help, the menu, Home): the same answers
   * as decide(), with the requester's groups read once for all of them.
   */
  allowedAmong(operations: readonly string[], requester: Requester): Promise<Set<string>>;
}

export interface PolicyAuthorizer extends Authorizer {
  /** The full decision, approval requirement included, for the approval flow. */
  decision(operation: Operation, requester: Requester): Promise<Decision>;
  /** Whether the user is in one of the given roles (approver checks). */
  membership(userId: string): Promise<ReadonlySet<string>>;
  /** Whether the policy in force now names the user an approver of the operation. */
  isApproverNow(operation: OperationId, userId: string): Promise<boolean>;
  /** Whether the policy in force now names the user in the `escalate_to` role of the operation's rule. */
  isEscalationApproverNow(operation: OperationId, userId: string): Promise<boolean>;
}

export function createPolicyAuthorizer(policies: PolicyStore, groupsOf: GroupMembership): PolicyAuthorizer {
  async function lookup(userId: string) {
    return groupsOf.lookup(userId, groupIdsIn(policies.current()));
  }

  /** The user groups that approve `operation`, when its rule names any. */
  function approverGroups(policy: Policy, operation: Operation): string[] | undefined {
    if (!isOperationId(operation)) return undefined;
    const rule = approvalRuleFor(policy, operation);
    if (!rule) return undefined;
    const groups = rule.approvers
      .flatMap((role) => (Object.hasOwn(policy.roles, role) ? (policy.roles[role] ?? []) : []))
      .filter((id) => id.startsWith('S'));
    return groups.length > 0 ? groups : undefined;
  }

  /** Members of the groups that approve `operation`, so a request nobody else could approve is refused. */
  async function approverGroupMembers(policy: Policy, operation: Operation) {
    const groups = approverGroups(policy, operation);
    return groups ? groupsOf.membersOf(groups) : undefined;
  }

  function decideWith(
    policy: Policy,
    operation: Operation,
    caller: Requester,
    found: GroupLookup,
    groupMembers: ReadonlyMap<string, ReadonlySet<string>> | undefined,
  ): Decision {
    return authorize(
      policy,
      { operation, userId: caller.userId, channelId: caller.channelId },
      found.groups,
      { unresolvedGroups: found.unresolved, groupMembers },
    );
  }

  async function decision(operation: Operation, caller: Requester): Promise<Decision> {
    const policy = policies.current();
    const [found, groupMembers] = await Promise.all([
      lookup(caller.userId),
      approverGroupMembers(policy, operation),
    ]);
    return decideWith(policy, operation, caller, found, groupMembers);
  }

  return {
    decision,
    async membership(userId) {
      return (await lookup(userId)).groups;
    },
    async isApproverNow(operation, userId) {
      const policy = policies.current();
      const rule = approvalRuleFor(policy, operation);
      if (!rule) return false;
      return isApprover(policy, rule, userId, (await lookup(userId)).groups);
    },
    async isEscalationApproverNow(operation, userId) {
      const policy = policies.current();
      const rule = approvalRuleFor(policy, operation);
      if (!rule || rule.escalate_to === undefined) return false;
      return isEscalationApprover(policy, rule, userId, (await lookup(userId)).groups);
    },
    decide(operation, requester) {
      return decision(operation as Operation, requester);
    },
    async allowedAmong(operations, requester) {
      const policy = policies.current();
      const found = await lookup(requester.userId);
      const allowed = new Set<string>();
      for (const operation of operations) {
        const op = operation as Operation;
        // Most rules name people only: no group to read, and no wait.
        const groupMembers = approverGroups(policy, op) ? await approverGroupMembers(policy, op) : undefined;
        const request = { operation: op, userId: requester.userId, channelId: requester.channelId };
        if (isAllowed(policy, request, found.groups, { unresolvedGroups: found.unresolved, groupMembers }))
          allowed.add(operation);
      }
      return allowed;
    },
    async explanation(requester) {
      const policy = policies.current();
      const approverGroups = policy.approvals.rules
        .flatMap((rule) => rule.approvers)
        .flatMap((role) => (Object.hasOwn(policy.roles, role) ? (policy.roles[role] ?? []) : []))
        .filter((id) => id.startsWith('S'));
      const [found, groupMembers] = await Promise.all([
        lookup(requester.userId),
        approverGroups.length > 0 ? groupsOf.membersOf(approverGroups) : undefined,
      ]);
      return explainAccess(policy, requester.userId, requester.channelId, found.groups, {
        unresolvedGroups: found.unresolved,
        groupMembers,
      });
    },
  };
}
