/**
 * The engine's view of the policy: resolves the caller's user groups (cached, from Slack),
 * then asks the pure authorize(). whoami's reply is built from the same decisions.
 */

import type { AccessDecision, Authorizer } from '../operations/engine.js';
import { isOperationId, type OperationId } from '../operations/ids.js';
import type { Caller } from '../operations/types.js';
import { md, nest, trusted } from '../reply/markup.js';
import { ephemeral, type Reply } from '../reply/model.js';
import { approvalRuleFor, authorize, type Decision, isApprover, type Operation } from './authorize.js';
import { explainAccess } from './explain.js';
import { type GroupMembership, groupIdsIn } from './groups.js';
import type { Policy } from './schema.js';
import type { PolicyStore } from './store.js';

export interface PolicyAuthorizer extends Authorizer {
  /** The full decision, approval requirement included, for the approval flow. */
  decision(operation: Operation, caller: Caller): Promise<Decision>;
  /** Whether the user is in one of the given roles (approver checks). */
  membership(userId: string): Promise<ReadonlySet<string>>;
  /** Whether the policy in force now names the user an approver of the operation. */
  isApproverNow(operation: OperationId, userId: string): Promise<boolean>;
}

export function createPolicyAuthorizer(policies: PolicyStore, groupsOf: GroupMembership): PolicyAuthorizer {
  async function lookup(userId: string) {
    return groupsOf.lookup(userId, groupIdsIn(policies.current()));
  }

  /** Members of the groups that approve `operation`, so a request nobody else could approve is refused. */
  async function approverGroupMembers(policy: Policy, operation: Operation) {
    if (!isOperationId(operation)) return undefined;
    const rule = approvalRuleFor(policy, operation);
    if (!rule) return undefined;
    const groups = rule.approvers
      .flatMap((role) => (Object.hasOwn(policy.roles, role) ? (policy.roles[role] ?? []) : []))
      .filter((id) => id.startsWith('S'));
    return groups.length > 0 ? groupsOf.membersOf(groups) : undefined;
  }

  async function decision(operation: Operation, caller: Caller): Promise<Decision> {
    const policy = policies.current();
    const [found, groupMembers] = await Promise.all([
      lookup(caller.userId),
      approverGroupMembers(policy, operation),
    ]);
    return authorize(
      policy,
      { operation, userId: caller.userId, channelId: caller.channelId },
      found.groups,
      { unresolvedGroups: found.unresolved, groupMembers },
    );
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
    async decide(operation, caller): Promise<AccessDecision> {
      const result = await decision(operation as Operation, caller);
      return {
        allowed: result.allowed,
        reason: result.allowed ? result.reason : `Not allowed: ${result.reason}.`,
      };
    },
    async explain(caller): Promise<Reply> {
      const policy = policies.current();
      const approverGroups = policy.approvals.rules
        .flatMap((rule) => rule.approvers)
        .flatMap((role) => (Object.hasOwn(policy.roles, role) ? (policy.roles[role] ?? []) : []))
        .filter((id) => id.startsWith('S'));
      const [found, groupMembers] = await Promise.all([
        lookup(caller.userId),
        approverGroups.length > 0 ? groupsOf.membersOf(approverGroups) : undefined,
      ]);
      const explanation = explainAccess(policy, caller.userId, caller.channelId, found.groups, {
        unresolvedGroups: found.unresolved,
        groupMembers,
      });
      const lines = explanation.operations.map(({ operation, decision: d }) => {
        const mark = d.allowed ? ':white_check_mark:' : ':no_entry_sign:';
        const approval =
          d.allowed && d.approval && 'required' in d.approval
            ? md` — needs ${d.approval.required} approval(s) from ${d.approval.approvers.join(', ')}`
            : trusted('');
        return md`${nest(trusted(mark))} \`${operation}\`${nest(approval)}${d.allowed ? '' : ` — ${d.reason}`}`;
      });
      const roles = explanation.roles.length > 0 ? explanation.roles.join(', ') : '(none)';
      return ephemeral(`You are ${caller.userId}; roles: ${roles}`, [
        { type: 'header', text: 'Who you are to edgeops' },
        {
          type: 'fields',
          fields: [
            { label: 'User', value: md`${caller.userId}` },
            { label: 'Roles', value: md`${roles}` },
            { label: 'Policy', value: md`${explanation.source}` },
            {
              label: 'This channel',
              value: md`${caller.channelId}${explanation.channelAllowed ? '' : ' (not allowed)'}`,
            },
          ],
        },
        { type: 'text', text: trusted(lines.join('\n')) },
        { type: 'context', text: trusted('`help` and `whoami` are always allowed.') },
      ]);
    },
  };
}
