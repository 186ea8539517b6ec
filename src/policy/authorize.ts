/**
 * authorize(policy, request, membership) → Decision: may this user run this operation in this
 * channel, and if so, does it need approval? Pure: group membership is resolved by the caller
 * (groups.ts), so the same inputs always give the same answer and the reason can be trusted.
 */
import type { AlwaysAllowed, OperationId } from '../operations/ids.js';
import { ALWAYS_ALLOWED } from '../operations/ids.js';
import { type ApprovalRule, EVERYONE, type Grant, type Policy } from './schema.js';

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
}

/** The operation needs approval and nobody could give it; the text says how to fix that. */
export interface ApprovalUnavailable {
  unavailable: string;
}

/**
 * Which rule decided: `always` (help, whoami), `channel` (the policy's channels or a grant's),
 * `role` (granted, but not to a role the user is in), `grant` (a grant allowed it, or no grant
 * covers it), `default` (the built-in policy, used when there is no policy file).
 */
export type DecisionRule = 'channel' | 'grant' | 'role' | 'default' | 'always';

export interface Decision {
  /** True means the user may run it, or request it when `approval` is an ApprovalRequirement. */
  allowed: boolean;
  /** One or two sentences for the user: what decided and what to do. */
  reason: string;
  rule: DecisionRule;
  /** On a denial: user and group ids who may run the operation (or approve it) and so can help. */
  helpers?: string[];
  /** On a channel denial: the channels where it would be allowed. */
  channels?: string[];
  approval?: ApprovalRequirement | ApprovalUnavailable;
}

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
  return (ALWAYS_ALLOWED as readonly string[]).includes(operation);
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

const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)];

const grantLabel = (policy: Policy, grant: Grant) => `grants[${policy.grants.indexOf(grant)}]`;

const list = (values: readonly string[]) => values.join(', ');

export function authorize(
  policy: Policy,
  request: AccessRequest,
  membership: ReadonlySet<string>,
  options: AuthorizeOptions = {},
): Decision {
  const { operation: op, userId, channelId } = request;
  if (isAlwaysAllowed(op)) return { allowed: true, rule: 'always', reason: `${op} is always allowed` };

  if (policy.channels && !policy.channels.includes(channelId)) {
    return {
      allowed: false,
      rule: 'channel',
      reason: `/edge works only in ${list(policy.channels)}; ask there`,
      channels: [...policy.channels],
    };
  }

  const covering = policy.grants.filter((grant) => grant.ops.includes(op));
  if (covering.length === 0) {
    return {
      allowed: false,
      rule: 'grant',
      reason: `no grant in ${policy.source} allows ${op}; ask whoever maintains that file to add one`,
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
    const note =
      unread.length > 0
        ? ` (Slack did not answer whether you are in ${list(unread)}; try again in a minute)`
        : '';
    return {
      allowed: false,
      rule: 'role',
      reason: `${op} is granted to ${list(roles)}, and you are ${roles.length > 1 ? 'in none of them' : 'not in it'}; ask ${helpers.length > 0 ? list(helpers) : 'whoever maintains the policy'} for help${note}`,
      helpers,
    };
  }

  const here = mine.find((grant) => !grant.channels || grant.channels.includes(channelId));
  if (!here) {
    const channels = unique(mine.flatMap((grant) => grant.channels ?? []));
    return {
      allowed: false,
      rule: 'channel',
      reason: `you may run ${op} only in ${list(channels)} (${list(mine.map((grant) => grantLabel(policy, grant)))})`,
      channels,
    };
  }

  const builtIn = policy.origin === 'default';
  const rule: DecisionRule = builtIn ? 'default' : 'grant';
  const reason = builtIn
    ? 'the built-in policy lets everyone run every operation'
    : `granted to ${list(here.roles.filter((role) => roleIncludes(membersOf(policy, role), userId, membership)))} by ${grantLabel(policy, here)}`;

  const approvalRule = approvalRuleFor(policy, op);
  if (!approvalRule) return { allowed: true, rule, reason };

  const approverIds = unique(approvalRule.approvers.flatMap((role) => membersOf(policy, role)));
  const unavailable = whyApprovalIsUnavailable(
    policy,
    op,
    approvalRule,
    approverIds,
    userId,
    options.groupMembers,
  );
  if (unavailable) {
    return {
      allowed: false,
      rule: builtIn ? 'default' : 'role',
      reason: unavailable,
      helpers: approverIds.filter((id) => id !== EVERYONE),
      approval: { unavailable },
    };
  }
  return {
    allowed: true,
    rule,
    reason: `${reason}; it needs ${approvalRule.required} approval${approvalRule.required > 1 ? 's' : ''} from ${list(approvalRule.approvers)}`,
    approval: {
      required: approvalRule.required,
      approvers: [...approvalRule.approvers],
      approverIds,
      confirm: approvalRule.confirm,
      ttlMs: policy.approvals.ttlMs,
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
  op: OperationId,
  rule: ApprovalRule,
  approverIds: readonly string[],
  requesterId: string,
  groupMembers: ReadonlyMap<string, ReadonlySet<string>> | undefined,
): string | undefined {
  if (policy.origin === 'default') {
    return `${op} needs approval, and the built-in policy has no approvers. To use it, write a policy file (edgeops.policy.yml, or the path in EDGEOPS_POLICY) with a role listing the approvers' Slack ids and an approvals rule naming that role, e.g. approvals: { rules: [{ ops: [${op}], approvers: [leads] }] }`;
  }
  if (approverIds.length === 0) {
    return `${op} needs approval from ${list(rule.approvers)}, and no one is in ${rule.approvers.length > 1 ? 'those roles' : 'that role'}; add approvers to it in ${policy.source}`;
  }
  const people = countableApprovers(approverIds, groupMembers);
  if (!people) return undefined;
  people.delete(requesterId);
  const others = people.size;
  if (others >= rule.required) return undefined;
  const groups = approverIds.filter((id) => id.startsWith('S'));
  const counting = groups.length > 0 ? ` (counting the members of ${list(groups)})` : '';
  return `${op} needs ${rule.required} approval${rule.required > 1 ? 's' : ''} from ${list(rule.approvers)}, and only ${others} approver${others === 1 ? '' : 's'} other than you ${others === 1 ? 'is' : 'are'} listed${counting}; you cannot approve your own request`;
}
