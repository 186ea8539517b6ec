/** The PRODUCT §3 example policy, shared by the policy tests. */
export const EXAMPLE_POLICY_YAML = `channels: [C0OPS, C0INCIDENT]
roles:
  everyone: ["*"]
  oncall: [S0ONCALL, U0ALICE]
  leads: [U0BOB, U0CAROL]
grants:
  - ops: [dns.list, shield.enums, logs.origin, shield.export, db.query, approvals.list]
    roles: [everyone]
  - ops: [library.create, apikey.list, pullzone.reset-key, shield.bot-detection, db.exec, db.tokens.create, db.tokens.invalidate, audit.list]
    roles: [oncall]
    channels: [C0OPS]
approvals:
  channel: C0APPROVALS
  ttl: 30m
  rules:
    - ops: [pullzone.reset-key, db.tokens.create, db.exec, shield.bot-detection]
      approvers: [leads]
      required: 1
    - ops: [db.tokens.invalidate]
      approvers: [leads]
      required: 2
      confirm: true
`;
