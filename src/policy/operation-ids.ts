/**
 * The operation ids the access policy speaks about (PRODUCT §3). `help`, `whoami` and showing a
 * channel's defaults are not operations: they are always allowed and never appear in a policy.
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
  'context.set',
  'stats.view',
  'purge.url',
  'purge.zone',
  'digest.set',
  'digest.list',
] as const;

export type OperationId = (typeof OPERATION_IDS)[number];

/**
 * Subcommands every caller may run, whatever the policy says: help, who they are, which
 * defaults this channel's commands take (`/edge context`), and their own Home (`/edge home`).
 */
export const ALWAYS_ALLOWED = ['help', 'whoami', 'context.show', 'home'] as const;

export type AlwaysAllowed = (typeof ALWAYS_ALLOWED)[number];

const operationIds: ReadonlySet<string> = new Set(OPERATION_IDS);

const alwaysAllowed: ReadonlySet<string> = new Set(ALWAYS_ALLOWED);

export function isAlwaysAllowed(value: unknown): value is AlwaysAllowed {
  return typeof value === 'string' && alwaysAllowed.has(value);
}

export function isOperationId(value: unknown): value is OperationId {
  return typeof value === 'string' && operationIds.has(value);
}
