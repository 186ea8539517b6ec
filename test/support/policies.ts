import type { OperationId } from '../../src/policy/operation-ids.js';

/**
 * Policies the tests share, written once. Each names the people and groups the tests click as:
 * U0YOU asks, U0LEAD and U0LEAD2 (and members of S0LEADS) approve a key reset, two of three
 * Shield approvers confirm a bot-detection change, and db.tokens.create has one approver besides
 * the requester (S0SOLO's members or U0YOU, who cannot approve their own).
 */
export const APPROVALS_POLICY = `
roles:
  everyone: ["*"]
  leads: [U0LEAD, U0LEAD2, S0LEADS]
  shield: [U0SHA, U0SHB, U0SHC]
  solo: [S0SOLO, U0YOU]
grants:
  - ops: "*"
    roles: [everyone]
approvals:
  channel: C0APPROVALS
  ttl: 30m
  rules:
    - ops: [pullzone.reset-key]
      approvers: [leads]
      required: 1
    - ops: [shield.bot-detection]
      approvers: [shield]
      required: 2
      confirm: true
    - ops: [db.tokens.create]
      approvers: [solo]
      required: 1
`;

/** Everyone may list; only oncall may read API keys, and only in C0OPS; nobody may run db exec. */
export const ONCALL_POLICY = `
roles:
  everyone: ["*"]
  oncall: [U0ALICE, S0ONCALL]
grants:
  - ops: [dns.list, pullzone.list, shieldzone.list, approvals.list, audit.list]
    roles: [everyone]
  - ops: [apikey.list]
    roles: [oncall]
    channels: [C0OPS]
`;

/** A rule of its own for operations that need more than one approval, or a typed confirmation. */
export interface LeadsRule {
  ops: readonly OperationId[];
  required: number;
  confirm?: boolean;
}

/**
 * Everyone may run everything, so that a denial never hides what a test is about. The
 * operations in `gated` still wait for one of the leads (U0LEAD unless `leads` says otherwise),
 * and so do those in `rules`, as each rule says; cards go to C0APPROVALS. Without either,
 * nothing waits for anyone.
 */
export function everyoneMayRun(
  options: { gated?: readonly OperationId[]; rules?: readonly LeadsRule[]; leads?: readonly string[] } = {},
): string {
  const { gated = [], leads = ['U0LEAD'] } = options;
  const rules = [...(gated.length > 0 ? [{ ops: gated, required: 1 }] : []), ...(options.rules ?? [])];
  const everyone = 'grants:\n  - ops: "*"\n    roles: [everyone]\n';
  if (rules.length === 0) return `roles:\n  everyone: ["*"]\n${everyone}`;
  const ruleLines = rules.map(
    ({ ops, required, confirm }) =>
      `    - ops: [${ops.join(', ')}]\n      approvers: [leads]\n      required: ${required}\n${confirm ? '      confirm: true\n' : ''}`,
  );
  return `roles:\n  everyone: ["*"]\n  leads: [${leads.join(', ')}]\n${everyone}approvals:\n  channel: C0APPROVALS\n  rules:\n${ruleLines.join('')}`;
}

/**
 * Everyone may list zones and run what their buttons lead to (logs, exports, a key reset, which
 * waits for U0LEAD) in C0OPS and C0READ; only U0ONCALL may change bot detection, so a button can
 * be refused.
 */
export const ZONE_LISTS_POLICY = `
channels: [C0OPS, C0READ]
roles:
  everyone: ["*"]
  oncall: [U0ONCALL]
  leads: [U0LEAD]
grants:
  - ops: [pullzone.list, shieldzone.list, logs.origin, shield.export, pullzone.reset-key]
    roles: [everyone]
  - ops: [shield.bot-detection]
    roles: [oncall]
approvals:
  channel: C0APPROVALS
  rules:
    - ops: [pullzone.reset-key]
      approvers: [leads]
      required: 1
`;
