/**
 * authorize(policy, request, membership) → Decision: may this user run this operation in this
 * channel, and if so, does it need approval? Pure: group membership is resolved by the caller
 * (groups.ts), so the same inputs always give the same answer and the reason can be trusted.
 */
import { type AlwaysAllowed, isAlwaysAllowed as alwaysAllowed, type OperationId } from './operation-ids.js';
import {
  type ApprovalRule,
  EVERYONE,
  type Grant,
  type Policy,
  type PolicyLabel,
  policyLabel,
} from './schema.js';

export type Operation = OperationId | AlwaysAllowed;

export interface AccessRequest {
  operation: Operation;
  userId: string;
  channelId: string;
}

export interface ApprovalRequirement {
  /** Distinct approvals needed; the requester never counts. */
  required: number;
  /** Role names whose members may approve. */
  approvers: string[];
  /** The user ids, user-group ids or "*" in those roles. */
  approverIds: string[];
  /** Each approver types the target id to approve. */
  confirm: boolean;
  ttlMs: number;
  /** Where the request is posted; absent means the channel it was asked in. */
  channel?: string;
  /** The rule's `escalate_to`: a role whose members may approve from half the time to live on. */
  escalation?: { role: string; ids: string[] };
}

/** Why an operation was allowed, as data; operations/engine/access-text.ts writes it for people. */
export type Grounds =
  | { code: 'always' }
  | { code: 'built-in' }
  | { code: 'granted'; roles: string[]; grant: string };

/** Why an operation was refused, as data; operations/engine/access-text.ts writes it for people. */
export type Denial =
  /** The policy's `channels` leave this channel out. */
  | { code: 'outside-policy-channels'; channels: string[] }
  | { code: 'no-grant'; policy: PolicyLabel }
  /** Granted to roles the user is not in; `unread` are groups Slack did not answer for. */
  | { code: 'not-in-role'; roles: string[]; helpers: string[]; unread: string[] }
  /** The user's grants allow it only in other channels. */
  | { code: 'grant-channels'; channels: string[]; grants: string[] }
  /** Needs approval and nobody could give it: the built-in policy has no approvers, */
  | { code: 'built-in-has-no-approvers' }
  /** or the approver roles are empty, */
  | { code: 'no-approvers'; approverRoles: string[]; policy: PolicyLabel }
  /** or fewer approvers than required are left once the requester is left out. */
  | {
      code: 'too-few-approvers';
      required: number;
      approverRoles: string[];
      others: number;
      groups: string[];
    };

/**
 * Which rule decided: `always` (help, whoami), `channel` (the policy's channels or a grant's),
 * `role` (granted, but not to a role the user is in), `grant` (a grant allowed it, or no grant
 * covers it), `default` (the built-in policy, used when there is no policy file).
 */
export type DecisionRule = 'channel' | 'grant' | 'role' | 'default' | 'always';

interface DecisionBase {
  operation: Operation;
  rule: DecisionRule;
}

/** The user may run it, or request it when `approval` is set. */
export interface Allowed extends DecisionBase {
  allowed: true;
  grounds: Grounds;
  approval?: ApprovalRequirement;
}

export interface Denied extends DecisionBase {
  allowed: false;
  denial: Denial;
  /** User and group ids who may run the operation (or approve it) and so can help. */
  helpers?: string[];
  /** On a channel denial: the channels where it would be allowed. */
  channels?: string[];
}

export type Decision = Allowed | Denied;

export interface AuthorizeOptions {
  /** Groups whose members could not be read from Slack; a denial that may be due to them says so. */
  unresolvedGroups?: ReadonlySet<string>;
  /**
   * The members of approver groups, where they could be read: with them, a rule that names
   * groups can be counted like one that names people, and refused when nobody could approve.
   */
  groupMembers?: ReadonlyMap<string, ReadonlySet<string>>;
}

function isAlwaysAllowed(operation: Operation): operation is AlwaysAllowed {
  return alwaysAllowed(operation);
}

/** Whether a role's list of ids covers the user: `*`, their user id, or a group they are in. */
export function roleIncludes(
  members: readonly string[],
  userId: string,
  membership: ReadonlySet<string>,
): boolean {
  return members.some((member) => member === EVERYONE || member === userId || membership.has(member));
}

function membersOf(policy: Policy, role: string): readonly string[] {
  return Object.hasOwn(policy.roles, role) ? (policy.roles[role] ?? []) : [];
}

/** The names of the roles the user is in, in policy order. */
export function rolesOf(policy: Policy, userId: string, membership: ReadonlySet<string>): string[] {
  return Object.keys(policy.roles).filter((role) =>
    roleIncludes(membersOf(policy, role), userId, membership),
  );
}

/** The approval rule that covers an operation, if any (the schema allows at most one). */
export function approvalRuleFor(policy: Policy, operation: OperationId): ApprovalRule | undefined {
  return policy.approvals.rules.find((rule) => rule.ops.includes(operation));
}

/** Whether the user is one of the rule's approvers. The requester check belongs to the approval flow. */
export function isApprover(
  policy: Policy,
  rule: ApprovalRule,
  userId: string,
  membership: ReadonlySet<string>,
): boolean {
  return rule.approvers.some((role) => roleIncludes(membersOf(policy, role), userId, membership));
}

/** Whether the user is in the rule's `escalate_to` role (who may approve from half the time to live on). */
export function isEscalationApprover(
  policy: Policy,
  rule: ApprovalRule,
  userId: string,
  membership: ReadonlySet<string>,
): boolean {
  return (
    rule.escalate_to !== undefined && roleIncludes(membersOf(policy, rule.escalate_to), userId, membership)
  );
}

const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)];

const grantLabel = (policy: Policy, grant: Grant) => `grants[${policy.grants.indexOf(grant)}]`;

/**
 * authorize()'s answer alone, yes or no, without the explanation a decision carries: listing
 * what someone may run asks this of every operation on every help, menu and Home, and the
 * explanations were most of what those allocated. A test holds it to authorize() for every
 * operation, user and channel of several policies.
 */
export function isAllowed(
  policy: Policy,
  request: AccessRequest,
  membership: ReadonlySet<string>,
  options: AuthorizeOptions = {},
): boolean {
  const { operation: op, userId, channelId } = request;
  if (isAlwaysAllowed(op)) return true;
  if (policy.channels && !policy.channels.includes(channelId)) return false;
  let grantedHere = false;
  for (const grant of policy.grants) {
    if (!grant.ops.includes(op)) continue;
    if (grant.channels && !grant.channels.includes(channelId)) continue;
    if (grant.roles.some((role) => roleIncludes(membersOf(policy, role), userId, membership))) {
      grantedHere = true;
      break;
    }
  }
  if (!grantedHere) return false;
  const approvalRule = approvalRuleFor(policy, op);
  if (!approvalRule) return true;
  const approverIds = unique(approvalRule.approvers.flatMap((role) => membersOf(policy, role)));
  return !whyApprovalIsUnavailable(policy, approvalRule, approverIds, userId, options.groupMembers);
}

export function authorize(
  policy: Policy,
  request: AccessRequest,
  membership: ReadonlySet<string>,
  options: AuthorizeOptions = {},
): Decision {
  const { operation: op, userId, channelId } = request;
  if (isAlwaysAllowed(op))
    return { allowed: true, operation: op, rule: 'always', grounds: { code: 'always' } };

  if (policy.channels && !policy.channels.includes(channelId)) {
    return {
      allowed: false,
      operation: op,
      rule: 'channel',
      denial: { code: 'outside-policy-channels', channels: [...policy.channels] },
      channels: [...policy.channels],
    };
  }

  const covering = policy.grants.filter((grant) => grant.ops.includes(op));
  if (covering.length === 0) {
    return {
      allowed: false,
      operation: op,
      rule: 'grant',
      denial: { code: 'no-grant', policy: policyLabel(policy) },
      helpers: [],
    };
  }

  const mine = covering.filter((grant) =>
    grant.roles.some((role) => roleIncludes(membersOf(policy, role), userId, membership)),
  );
  if (mine.length === 0) {
    const roles = unique(covering.flatMap((grant) => grant.roles));
    const helpers = unique(roles.flatMap((role) => membersOf(policy, role))).filter((id) => id !== EVERYONE);
    const unread = helpers.filter((id) => options.unresolvedGroups?.has(id));
    return {
      allowed: false,
      operation: op,
      rule: 'role',
      denial: { code: 'not-in-role', roles, helpers, unread },
      helpers,
    };
  }

  const here = mine.find((grant) => !grant.channels || grant.channels.includes(channelId));
  if (!here) {
    const channels = unique(mine.flatMap((grant) => grant.channels ?? []));
    return {
      allowed: false,
      operation: op,
      rule: 'channel',
      denial: { code: 'grant-channels', channels, grants: mine.map((grant) => grantLabel(policy, grant)) },
      channels,
    };
  }

  const builtIn = policy.origin === 'default';
  const rule: DecisionRule = builtIn ? 'default' : 'grant';
  const grounds: Grounds = builtIn
    ? { code: 'built-in' }
    : {
        code: 'granted',
        roles: here.roles.filter((role) => roleIncludes(membersOf(policy, role), userId, membership)),
        grant: grantLabel(policy, here),
      };

  const approvalRule = approvalRuleFor(policy, op);
  if (!approvalRule) return { allowed: true, operation: op, rule, grounds };

  const approverIds = unique(approvalRule.approvers.flatMap((role) => membersOf(policy, role)));
  const unavailable = whyApprovalIsUnavailable(
    policy,
    approvalRule,
    approverIds,
    userId,
    options.groupMembers,
  );
  if (unavailable) {
    return {
      allowed: false,
      operation: op,
      rule: builtIn ? 'default' : 'role',
      denial: unavailable,
      helpers: approverIds.filter((id) => id !== EVERYONE),
    };
  }
  return {
    allowed: true,
    operation: op,
    rule,
    grounds,
    approval: {
      required: approvalRule.required,
      approvers: [...approvalRule.approvers],
      approverIds,
      confirm: approvalRule.confirm,
      ttlMs: policy.approvals.ttlMs,
      ...(approvalRule.escalate_to !== undefined
        ? {
            escalation: {
              role: approvalRule.escalate_to,
              ids: [...membersOf(policy, approvalRule.escalate_to)],
            },
          }
        : {}),
      ...(policy.approvals.channel ? { channel: policy.approvals.channel } : {}),
    },
  };
}

/**
 * The distinct people the approver ids stand for, groups expanded; undefined when they cannot
 * be counted: "*" (anyone) or a group whose members could not be read.
 */
function countableApprovers(
  approverIds: readonly string[],
  groupMembers: ReadonlyMap<string, ReadonlySet<string>> | undefined,
): Set<string> | undefined {
  const people = new Set<string>();
  for (const id of approverIds) {
    if (id === EVERYONE) return undefined;
    if (!id.startsWith('S')) {
      people.add(id);
      continue;
    }
    const members = groupMembers?.get(id);
    if (!members) return undefined;
    for (const member of members) people.add(member);
  }
  return people;
}

/**
 * Refuses up front what could never be approved: no approvers at all, or fewer approvers than
 * required once the requester is left out (people named directly or through groups whose
 * members are known; "*" always leaves someone else).
 */
function whyApprovalIsUnavailable(
  policy: Policy,
  rule: ApprovalRule,
  approverIds: readonly string[],
  requesterId: string,
  groupMembers: ReadonlyMap<string, ReadonlySet<string>> | undefined,
): Denial | undefined {
  if (policy.origin === 'default') return { code: 'built-in-has-no-approvers' };
  if (approverIds.length === 0)
    return { code: 'no-approvers', approverRoles: [...rule.approvers], policy: policyLabel(policy) };
  const people = countableApprovers(approverIds, groupMembers);
  if (!people) return undefined;
  people.delete(requesterId);
  const others = people.size;
  if (others >= rule.required) return undefined;
  return {
    code: 'too-few-approvers',
    required: rule.required,
    approverRoles: [...rule.approvers],
    others,
    groups: approverIds.filter((id) => id.startsWith('S')),
  };
}
