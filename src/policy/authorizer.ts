/**
 * The policy as the engine asks it: resolves the requester's user groups (cached, from Slack),
 * then asks the pure authorize(). Answers are data; operations/engine/access-text.ts writes them for people.
 */

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
import { isOperationId, type OperationId } from './operation-ids.js';
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
  allowedAmong(operations: readonly string[], requester: Requester): Promise<ReadonlySet<string>>;
  /** Which of `operations` an approval rule of the policy in force names: they run only once approved. */
  ruledAmong(operations: readonly string[]): ReadonlySet<string>;
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

/** Requesters whose allowed operations are remembered per policy and list; past it, all are forgotten. */
const ALLOWED_MEMO_ENTRIES = 1_000;
const allowedMemos = new WeakMap<Policy, WeakMap<readonly string[], Map<string, ReadonlySet<string>>>>();

function memoFor(policy: Policy, operations: readonly string[]): Map<string, ReadonlySet<string>> {
  let byList = allowedMemos.get(policy);
  if (!byList) {
    byList = new WeakMap();
    allowedMemos.set(policy, byList);
  }
  let memo = byList.get(operations);
  if (!memo) {
    memo = new Map();
    byList.set(operations, memo);
  }
  return memo;
}

/** The requester and everything read about them that a decision depends on. */
const memoKey = (requester: Requester, found: GroupLookup) =>
  [
    requester.userId,
    requester.channelId,
    [...found.groups].sort().join(','),
    [...found.unresolved].sort().join(','),
  ].join('\u0000');

const withApproverGroups = new WeakMap<Policy, boolean>();
/** Whether any approval rule names a role with a user group in it (a policy never changes). */
function policyHasApproverGroups(policy: Policy): boolean {
  let answer = withApproverGroups.get(policy);
  if (answer === undefined) {
    answer = policy.approvals.rules.some((rule) =>
      rule.approvers.some((role) =>
        (Object.hasOwn(policy.roles, role) ? (policy.roles[role] ?? []) : []).some((id) =>
          id.startsWith('S'),
        ),
      ),
    );
    withApproverGroups.set(policy, answer);
  }
  return answer;
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
    ruledAmong(operations) {
      const policy = policies.current();
      return new Set(
        operations.filter((operation) => isOperationId(operation) && approvalRuleFor(policy, operation)),
      );
    },
    decide(operation, requester) {
      return decision(operation as Operation, requester);
    },
    async allowedAmong(operations, requester) {
      const policy = policies.current();
      const found = await lookup(requester.userId);
      // A pure function of the policy, the list, the requester and their groups as read just now,
      // so it is remembered under exactly those; not where a rule's approvers are groups, whose
      // members count too.
      const memo = policyHasApproverGroups(policy) ? undefined : memoFor(policy, operations);
      const key = memo && memoKey(requester, found);
      const known = key === undefined ? undefined : memo?.get(key);
      if (known) return known;
      const allowed = new Set<string>();
      for (const operation of operations) {
        const op = operation as Operation;
        // Most rules name people only: no group to read, and no wait.
        const groupMembers = approverGroups(policy, op) ? await approverGroupMembers(policy, op) : undefined;
        const request = { operation: op, userId: requester.userId, channelId: requester.channelId };
        if (isAllowed(policy, request, found.groups, { unresolvedGroups: found.unresolved, groupMembers }))
          allowed.add(operation);
      }
      if (memo && key !== undefined) {
        if (memo.size >= ALLOWED_MEMO_ENTRIES) memo.clear();
        memo.set(key, allowed);
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
