import { describe, expect, it } from 'vitest';
import { formatYamlPath, parsePolicy } from '../../src/policy/load.js';
import { OPERATION_IDS } from '../../src/policy/operation-ids.js';
import { EXAMPLE_POLICY_YAML } from './example-policy.js';

const SOURCE = 'edgeops.policy.yml';

const errorOf = (yaml: string) => {
  const result = parsePolicy(yaml, SOURCE);
  if (result.ok) throw new Error('expected the policy to be refused');
  return result.error;
};

describe('parsePolicy', () => {
  it('reads the example policy and normalises it', () => {
    const result = parsePolicy(EXAMPLE_POLICY_YAML, SOURCE);
    if (!result.ok) throw new Error(result.error);
    const { policy } = result;
    expect(policy.origin).toBe('file');
    expect(policy.source).toBe(SOURCE);
    expect(policy.channels).toEqual(['C0OPS', 'C0INCIDENT']);
    expect(policy.roles.oncall).toEqual(['S0ONCALL', 'U0ALICE']);
    expect(policy.grants[1]?.channels).toEqual(['C0OPS']);
    expect(policy.approvals).toEqual({
      channel: 'C0APPROVALS',
      ttlMs: 30 * 60_000,
      rules: [
        {
          ops: ['pullzone.reset-key', 'db.tokens.create', 'db.exec', 'shield.bot-detection'],
          approvers: ['leads'],
          required: 1,
          confirm: false,
        },
        { ops: ['db.tokens.invalidate'], approvers: ['leads'], required: 2, confirm: true },
      ],
    });
  });

  it('reads escalate_to on an approval rule, and the approval requirement carries its members', () => {
    const result = parsePolicy(
      EXAMPLE_POLICY_YAML.replace('      required: 1\n', '      required: 1\n      escalate_to: oncall\n'),
      SOURCE,
    );
    if (!result.ok) throw new Error(result.error);
    expect(result.policy.approvals.rules[0]?.escalate_to).toBe('oncall');
    expect(result.policy.approvals.rules[1]?.escalate_to).toBeUndefined();
  });

  it('expands ops: "*" to every operation and fills in defaults', () => {
    const result = parsePolicy('roles: { all: ["*"] }\ngrants:\n  - ops: "*"\n    roles: [all]\n', SOURCE);
    if (!result.ok) throw new Error(result.error);
    expect(result.policy.grants[0]?.ops).toEqual([...OPERATION_IDS]);
    expect(result.policy.channels).toBeUndefined();
    expect(result.policy.approvals).toEqual({ ttlMs: 30 * 60_000, rules: [] });
  });

  it('accepts W… user ids and an approval rule without required or confirm', () => {
    const result = parsePolicy(
      'roles: { leads: [W0ENTERPRISE] }\napprovals:\n  ttl: 2h\n  rules:\n    - ops: [db.exec]\n      approvers: [leads]\n',
      SOURCE,
    );
    if (!result.ok) throw new Error(result.error);
    expect(result.policy.approvals.rules[0]).toMatchObject({ required: 1, confirm: false });
    expect(result.policy.approvals.ttlMs).toBe(2 * 3_600_000);
  });

  it.each([
    [
      'a misspelt operation, with a suggestion',
      EXAMPLE_POLICY_YAML.replace('apikey.list, pullzone', 'apikey.list, dns.lsit, pullzone'),
      'edgeops.policy.yml: grants[1].ops[2]: "dns.lsit" is not an operation (did you mean dns.list?) (line 9, column 40)',
    ],
    [
      'an unknown key, with a suggestion',
      EXAMPLE_POLICY_YAML.replace('channels: [C0OPS]', 'chanels: [C0OPS]'),
      'edgeops.policy.yml: grants[1].chanels: unknown setting (did you mean channels?) (line 11, column 5)',
    ],
    [
      'an unknown top-level key',
      `${EXAMPLE_POLICY_YAML}maintainer: U0BOB\n`,
      'edgeops.policy.yml: maintainer: unknown setting (expected one of owner, channels, roles, grants, approvals)',
    ],
    [
      'a grant naming a role that is not defined',
      EXAMPLE_POLICY_YAML.replace('roles: [oncall]', 'roles: [oncal]'),
      'edgeops.policy.yml: grants[1].roles[0]: "oncal" is not a role defined under roles (did you mean oncall?)',
    ],
    [
      'an approval rule naming a role that is not defined',
      EXAMPLE_POLICY_YAML.replace(
        'approvers: [leads]\n      required: 2',
        'approvers: [admins]\n      required: 2',
      ),
      'approvals.rules[1].approvers[0]: "admins" is not a role defined under roles',
    ],
    [
      'a user name instead of a user id',
      EXAMPLE_POLICY_YAML.replace('U0ALICE', 'alice'),
      'roles.oncall[1]: "alice" is not a user id (U…, W…), a user-group id (S…) or "*" (line 4, column 22)',
    ],
    [
      'a channel name instead of a channel id',
      EXAMPLE_POLICY_YAML.replace('[C0OPS, C0INCIDENT]', '[C0OPS, "#incident"]'),
      'channels[1]: "#incident" is not a Slack channel id (C… or G…)',
    ],
    [
      'a ttl without a unit',
      EXAMPLE_POLICY_YAML.replace('ttl: 30m', 'ttl: 30'),
      'approvals.ttl: 30 is not a duration (45s, 30m, 2h, 7d) (line 14, column 8)',
    ],
    [
      'a ttl in words',
      EXAMPLE_POLICY_YAML.replace('ttl: 30m', 'ttl: half an hour'),
      'approvals.ttl: "half an hour" is not a duration: use a number and a unit',
    ],
    [
      'zero required approvals',
      EXAMPLE_POLICY_YAML.replace('required: 2', 'required: 0'),
      'approvals.rules[1].required: must be at least 1',
    ],
    [
      'a fractional number of approvals',
      EXAMPLE_POLICY_YAML.replace('required: 2', 'required: 1.5'),
      'approvals.rules[1].required: 1.5 is not a whole number of approvals',
    ],
    [
      'an escalation to a role that is not defined',
      EXAMPLE_POLICY_YAML.replace('      required: 2\n', '      required: 2\n      escalate_to: oncal\n'),
      'approvals.rules[1].escalate_to: "oncal" is not a role defined under roles (did you mean oncall?)',
    ],
    [
      'confirm that is not a boolean',
      EXAMPLE_POLICY_YAML.replace('confirm: true', 'confirm: please'),
      'approvals.rules[1].confirm: "please" is not true or false',
    ],
    [
      'two approval rules for one operation',
      EXAMPLE_POLICY_YAML.replace('- ops: [db.tokens.invalidate]', '- ops: [db.tokens.invalidate, db.exec]'),
      'approvals.rules[1].ops: db.exec already has an approval rule at approvals.rules[0]',
    ],
    [
      'a grant without roles',
      EXAMPLE_POLICY_YAML.replace('    roles: [everyone]\n', ''),
      'grants[0].roles: is required (a list of role names) (line 7, column 5)',
    ],
    [
      'a grant with an empty ops list',
      EXAMPLE_POLICY_YAML.replace(
        'ops: [dns.list, shield.enums, logs.origin, shield.export, db.query, approvals.list]',
        'ops: []',
      ),
      'grants[0].ops: must list at least one operation',
    ],
    [
      'a role name with a space',
      EXAMPLE_POLICY_YAML.replace('everyone: ["*"]', 'everyone: ["*"]\n  on call: [U0DAVE]'),
      'roles["on call"]: "on call" is not a role name',
    ],
    [
      'a list where the policy should be',
      '- dns.list\n',
      'edgeops.policy.yml: ["dns.list"] is not a mapping',
    ],
    [
      'approvals that is not a mapping',
      'approvals: 5\n',
      'approvals: 5 is not a mapping with channel, ttl and rules',
    ],
  ])('names the YAML path of %s', (_what, yaml, expected) => {
    expect(errorOf(yaml)).toContain(expected);
  });

  it('gives the line and column of a YAML syntax error', () => {
    expect(errorOf('roles:\n  leads: [U0BOB\ngrants: []\n')).toMatch(
      /^edgeops\.policy\.yml: line 3, column 1: Flow sequence .* end with a \]$/,
    );
  });

  it('refuses duplicate keys, which YAML would otherwise silently merge', () => {
    expect(errorOf('roles: {}\nroles: {}\n')).toBe(
      'edgeops.policy.yml: line 2, column 1: Map keys must be unique',
    );
  });

  it('refuses an empty file rather than denying everything', () => {
    expect(errorOf('# nothing yet\n')).toContain('the file is empty');
  });

  it('refuses an alias bomb', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]',
    ].join('\n');
    expect(errorOf(bomb)).toMatch(/^edgeops\.policy\.yml: Excessive alias count/);
  });
});

describe('formatYamlPath', () => {
  it('writes keys and indexes the way the file reads', () => {
    expect(formatYamlPath(['approvals', 'rules', 0, 'ops', 2])).toBe('approvals.rules[0].ops[2]');
    expect(formatYamlPath(['roles', 'on call'])).toBe('roles["on call"]');
  });
});
