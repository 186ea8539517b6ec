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
