/**
 * The operation ids the access policy speaks about (PRODUCT §3). `help` and `whoami` are not
 * operations: they are always allowed and never appear in a policy.
 */
export const OPERATION_IDS = [
  'library.create',
  'apikey.list',
  'pullzone.reset-key',
  'dns.list',
  'pullzone.list',
  'shieldzone.list',
  'shield.bot-detection',
  'shield.enums',
  'shield.export',
  'logs.origin',
  'watch.logs',
  'db.query',
  'db.exec',
  'db.tokens.create',
  'db.tokens.invalidate',
  'approvals.list',
  'audit.list',
] as const;

export type OperationId = (typeof OPERATION_IDS)[number];

/** Subcommands every caller may run, whatever the policy says. */
export const ALWAYS_ALLOWED = ['help', 'whoami'] as const;

export type AlwaysAllowed = (typeof ALWAYS_ALLOWED)[number];

const operationIds: ReadonlySet<string> = new Set(OPERATION_IDS);

export function isOperationId(value: unknown): value is OperationId {
  return typeof value === 'string' && operationIds.has(value);
}
