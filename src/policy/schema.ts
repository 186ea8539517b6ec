/**
 * The access policy file (PRODUCT §3) as a zod schema. Parsing normalises it: `ops: "*"` becomes
 * the full list of operations and `ttl` becomes milliseconds, so `authorize` never re-reads text.
 * Messages are written for the operator who edits the YAML; load.ts adds the file name and path.
 */
import { z } from 'zod';
import { parseDuration } from '../time/duration.js';
import { OPERATION_IDS, type OperationId } from './operation-ids.js';
import { closestName } from './suggest.js';

const CHANNEL_ID = /^[CG][A-Z0-9]+$/;
const USER_ID = /^[UW][A-Z0-9]+$/;
const GROUP_ID = /^S[A-Z0-9]+$/;
const ROLE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export const EVERYONE = '*';

export const DEFAULT_APPROVAL_TTL = '30m';

/** A value quoted for an error message, cut short so a pasted blob cannot flood the log line. */
export function quoted(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

const problem =
  (what: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? `is required (${what})` : `${quoted(issue.input)} is not ${what}`;

const pattern = (regex: RegExp, what: string) =>
  z.string({ error: problem(what) }).regex(regex, { error: problem(what) });

const channelIdSchema = pattern(CHANNEL_ID, 'a Slack channel id (C… or G…)');

const subjectSchema = z
  .string({ error: problem('a user id (U…, W…), a user-group id (S…) or "*"') })
  .refine((value) => value === EVERYONE || USER_ID.test(value) || GROUP_ID.test(value), {
    error: problem('a user id (U…, W…), a user-group id (S…) or "*"'),
  });

const roleNameSchema = pattern(ROLE_NAME, 'a role name (letters, digits, "-", "_" or ".")');

const operationOrEveryoneSchema = z.enum([...OPERATION_IDS, EVERYONE], {
  error: (issue) => {
    if (issue.input === undefined) return 'is required (an operation id)';
    const guess = typeof issue.input === 'string' ? closestName(issue.input, OPERATION_IDS) : undefined;
    return `${quoted(issue.input)} is not an operation${guess ? ` (did you mean ${guess}?)` : ''}`;
  },
});

/** `ops: "*"`, `ops: ["*"]` or a list of operation ids; always a list of ids once parsed. */
const operationsSchema = z
  .preprocess(
    (value) => (value === EVERYONE ? [EVERYONE] : value),
    z
      .array(operationOrEveryoneSchema, { error: problem('a list of operation ids or "*"') })
      .min(1, { error: 'must list at least one operation (or "*")' }),
  )
  .transform((ops): OperationId[] =>
    ops.includes(EVERYONE) ? [...OPERATION_IDS] : [...new Set(ops.filter((op) => op !== EVERYONE))],
  );

const durationSchema = z
  .string({ error: problem('a duration (45s, 30m, 2h, 7d)') })
  .transform((text, context) => {
    const parsed = parseDuration(text);
    if (parsed.ok) return parsed.ms;
    context.addIssue({ code: 'custom', message: parsed.error, input: text });
    return z.NEVER;
  });

const grantSchema = z.strictObject({
  ops: operationsSchema,
  roles: z
    .array(roleNameSchema, { error: problem('a list of role names') })
    .min(1, { error: 'must name at least one role' }),
  /** The grant applies only in these channels. */
  channels: z
    .array(channelIdSchema, { error: problem('a list of channel ids') })
    .min(1, { error: 'must list at least one channel, or be left out' })
    .optional(),
});

const approvalRuleSchema = z.strictObject({
  ops: operationsSchema,
  approvers: z
    .array(roleNameSchema, { error: problem('a list of role names') })
    .min(1, { error: 'must name at least one role' }),
  /** Distinct approvals needed; the requester never counts. */
  required: z
    .number({ error: problem('a whole number of approvals') })
    .int({ error: problem('a whole number of approvals') })
    .min(1, { error: 'must be at least 1' })
    .default(1),
  /** Each approver types the target id before approving. */
  confirm: z.boolean({ error: problem('true or false') }).default(false),
  /** A role whose members may approve too once a request has waited half its time to live. */
  escalate_to: roleNameSchema.optional(),
});

const approvalsSchema = z
  .strictObject(
    {
      /** Where requests are posted; absent means the channel the request was made in. */
      channel: channelIdSchema.optional(),
      ttl: durationSchema.prefault(DEFAULT_APPROVAL_TTL),
      rules: z.array(approvalRuleSchema, { error: problem('a list of approval rules') }).default([]),
    },
    { error: problem('a mapping with channel, ttl and rules') },
  )
  .transform(({ ttl, ...rest }) => ({ ...rest, ttlMs: ttl }))
  .prefault({});

export const policyFileSchema = z
  .strictObject(
    {
      /**
       * Who keeps the policy, as refusals name it instead of the file: a Slack user or channel
       * id (shown as a mention) or a few words ("the platform on-call").
       */
      owner: z
        .string({ error: problem('a Slack user or channel id, or a few words') })
        .trim()
        .min(1, { error: 'must not be empty; leave it out instead' })
        .max(80, { error: 'must be 80 characters at most' })
        .optional(),
      /** The only channels where /edge answers; absent means everywhere. */
      channels: z
        .array(channelIdSchema, { error: problem('a list of channel ids') })
        .min(1, { error: 'must list at least one channel, or be left out' })
        .optional(),
      roles: z
        .record(roleNameSchema, z.array(subjectSchema, { error: problem('a list of user or group ids') }), {
          error: problem('a mapping of role names to lists of ids'),
        })
        .default({}),
      grants: z.array(grantSchema, { error: problem('a list of grants') }).default([]),
      approvals: approvalsSchema,
    },
    { error: problem('a mapping with channels, roles, grants and approvals') },
  )
  .superRefine((policy, context) => {
    const roleNames = Object.keys(policy.roles);
    const checkRole = (name: string, path: (string | number)[]) => {
      if (Object.hasOwn(policy.roles, name)) return;
      const guess = closestName(name, roleNames);
      context.addIssue({
        code: 'custom',
        path,
        input: name,
        message: `${quoted(name)} is not a role defined under roles${guess ? ` (did you mean ${guess}?)` : ''}`,
      });
    };
    policy.grants.forEach((grant, i) => {
      grant.roles.forEach((role, j) => {
        checkRole(role, ['grants', i, 'roles', j]);
      });
    });
    const ruleOf = new Map<OperationId, number>();
    policy.approvals.rules.forEach((rule, i) => {
      rule.approvers.forEach((role, j) => {
        checkRole(role, ['approvals', 'rules', i, 'approvers', j]);
      });
      if (rule.escalate_to !== undefined)
        checkRole(rule.escalate_to, ['approvals', 'rules', i, 'escalate_to']);
      for (const op of rule.ops) {
        const earlier = ruleOf.get(op);
        if (earlier !== undefined) {
          // Two rules for one operation would make the number of approvals ambiguous.
          context.addIssue({
            code: 'custom',
            path: ['approvals', 'rules', i, 'ops'],
            input: op,
            message: `${op} already has an approval rule at approvals.rules[${earlier}]`,
          });
        } else {
          ruleOf.set(op, i);
        }
      }
    });
  });

export type PolicyFile = z.output<typeof policyFileSchema>;

export type Grant = PolicyFile['grants'][number];

export type ApprovalRule = PolicyFile['approvals']['rules'][number];

/** Where a policy came from: a file, the built-in default (no file) or the console demo. */
export type PolicyOrigin = 'file' | 'default' | 'demo';

/** How a refusal names the policy to people: never by its path on the server. */
export interface PolicyLabel {
  readonly origin: PolicyOrigin;
  readonly owner?: string;
}

export const policyLabel = (policy: Policy): PolicyLabel => ({
  origin: policy.origin,
  ...(policy.owner ? { owner: policy.owner } : {}),
});

export type Policy = PolicyFile & {
  readonly origin: PolicyOrigin;
  /** The file path, or a description of the built-in policy, for messages. */
  readonly source: string;
};
