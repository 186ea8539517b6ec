import type { NewApprovalRequest } from '../../src/approvals/request.js';
import { type ApprovalService, createApprovalService } from '../../src/approvals/service.js';
import type { ApprovalRequirement } from '../../src/policy/authorize.js';
import { migrations } from '../../src/runtime/migrations.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { type AuditLog, createAuditLog } from '../../src/state/audit.js';
import { openStateStore, type StateStore } from '../../src/state/store.js';
import { memoryLogger, type TempDatabase, tempDatabase } from '../state/temp-db.js';

/** The whole schema, approvals table included. */
export const approvalMigrations = migrations;

/** A clock the test moves by hand. */
export interface TestClock {
  (): Date;
  set(iso: string): void;
  advance(ms: number): void;
}

export function testClock(startIso = '2025-03-01T14:00:00Z'): TestClock {
  let at = Date.parse(startIso);
  return Object.assign(() => new Date(at), {
    set: (iso: string) => {
      at = Date.parse(iso);
    },
    advance: (ms: number) => {
      at += ms;
    },
  });
}

export interface ApprovalFixture {
  db: TempDatabase;
  store: StateStore;
  audit: AuditLog;
  secrets: SecretRegistry;
  clock: TestClock;
  service: ApprovalService;
  /** Another service on the same store, as a second replica or the bot after a restart would have. */
  newService(): ApprovalService;
  close(): Promise<void>;
}

export async function openStore(url: string, clock: () => Date): Promise<StateStore> {
  return openStateStore({ url, logger: memoryLogger(), now: clock, migrations: approvalMigrations });
}

export async function approvalFixture(clock: TestClock = testClock()): Promise<ApprovalFixture> {
  const db = await tempDatabase();
  const store = await openStore(db.url, clock);
  const secrets = new SecretRegistry();
  const audit = createAuditLog({ store, secrets });
  const newService = () => createApprovalService({ store, audit, secrets, logger: memoryLogger() });
  return {
    db,
    store,
    audit,
    secrets,
    clock,
    service: newService(),
    newService,
    async close() {
      await store.close();
      await db.remove();
    },
  };
}

export const LEADS: ApprovalRequirement = {
  required: 1,
  approvers: ['leads'],
  approverIds: ['U0BOB', 'U0CAROL', 'U0DAVE'],
  confirm: false,
  ttlMs: 30 * 60_000,
};

export function resetKeyRequest(overrides: Partial<NewApprovalRequest> = {}): NewApprovalRequest {
  return {
    operation: 'pullzone.reset-key',
    target: '4242',
    params: { pullZoneId: 4242 },
    requester: 'U0ALICE',
    channelId: 'C0OPS',
    reason: 'key leaked in a screenshot',
    requirement: LEADS,
    correlationId: 'corr-request',
    ...overrides,
  };
}
