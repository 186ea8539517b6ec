import type { Migration } from '../state/migrations.js';

/**
 * The approvals table. Written out in full rather than generated from machine.ts: an applied
 * migration never runs again, so its text must not drift with later code (a test keeps the
 * trigger and TRANSITIONS in step). Times are Unix milliseconds so expiry compares as integers.
 */
export const approvalsMigration: Migration = {
  version: 2,
  name: 'approvals',
  statements: [
    `CREATE TABLE approvals (
      id TEXT PRIMARY KEY,
      operation TEXT NOT NULL,
      target TEXT NOT NULL CHECK (target <> ''),
      params_json TEXT NOT NULL,
      params_digest TEXT NOT NULL,
      requester TEXT NOT NULL,
      channel_id TEXT NOT NULL,
      reason TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN
        ('pending', 'approved', 'executing', 'succeeded', 'failed', 'rejected', 'expired', 'cancelled', 'unknown')),
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL,
      required INTEGER NOT NULL CHECK (required >= 1),
      approver_roles_json TEXT NOT NULL,
      approver_ids_json TEXT NOT NULL,
      confirm INTEGER NOT NULL CHECK (confirm IN (0, 1)),
      approvals_json TEXT NOT NULL DEFAULT '[]',
      decided_by TEXT,
      decided_at INTEGER,
      started_at INTEGER,
      finished_at INTEGER,
      executor TEXT,
      result_json TEXT,
      card_channel TEXT,
      card_ts TEXT,
      version INTEGER NOT NULL DEFAULT 0
    )`,
    // The lock: at most one open request per operation and target, across every replica.
    `CREATE UNIQUE INDEX approvals_open_target ON approvals (operation, target)
     WHERE state IN ('pending', 'approved', 'executing')`,
    'CREATE INDEX approvals_state_expires ON approvals (state, expires_at)',
    'CREATE INDEX approvals_created ON approvals (created_at)',
    // A second guard behind the conditional updates: no code path can move a request backwards.
    `CREATE TRIGGER approvals_transition BEFORE UPDATE OF state ON approvals
     WHEN OLD.state IS NOT NEW.state AND OLD.state || '>' || NEW.state NOT IN (
       'pending>approved', 'pending>rejected', 'pending>expired', 'pending>cancelled',
       'approved>executing', 'executing>succeeded', 'executing>failed', 'executing>unknown')
     BEGIN SELECT RAISE(ABORT, 'approvals: state transition not allowed'); END`,
    // What was asked (and approved) is fixed once asked: it runs only with those parameters.
    `CREATE TRIGGER approvals_request_fixed BEFORE UPDATE OF id, operation, target, params_json,
       params_digest, requester, channel_id, reason, created_at, expires_at, required,
       approver_roles_json, approver_ids_json, confirm ON approvals
     BEGIN SELECT RAISE(ABORT, 'approvals: a request cannot be changed once made'); END`,
  ],
};

/**
 * A request approved by a replica that stopped before it started the change must not stay
 * `approved` (and hold its lock) for ever: the sweep may move it to `unknown`.
 */
export const approvedMayBecomeUnknownMigration: Migration = {
  version: 3,
  name: 'approvals: approved requests that never started may become unknown',
  statements: [
    'DROP TRIGGER approvals_transition',
    `CREATE TRIGGER approvals_transition BEFORE UPDATE OF state ON approvals
     WHEN OLD.state IS NOT NEW.state AND OLD.state || '>' || NEW.state NOT IN (
       'pending>approved', 'pending>rejected', 'pending>expired', 'pending>cancelled',
       'approved>executing', 'approved>unknown',
       'executing>succeeded', 'executing>failed', 'executing>unknown')
     BEGIN SELECT RAISE(ABORT, 'approvals: state transition not allowed'); END`,
  ],
};

/**
 * The halfway reminder and the reason of a rejection. `reminded_at` is set by one conditional
 * UPDATE, so with several replicas exactly one posts the reminder; neither column is part of
 * what was asked, so the request stays fixed.
 */
export const remindersAndReasonsMigration: Migration = {
  version: 6,
  name: 'approvals: halfway reminders and rejection reasons',
  statements: [
    'ALTER TABLE approvals ADD COLUMN reminded_at INTEGER',
    'ALTER TABLE approvals ADD COLUMN decision_reason TEXT',
  ],
};

/**
 * Escalation: a rule's `escalate_to` role and its members are stored with the request, fixed
 * once asked like its approvers. Part of state migration 8 (src/runtime/migrations.ts).
 */
export const escalationStatements: readonly string[] = [
  'ALTER TABLE approvals ADD COLUMN escalate_role TEXT',
  'ALTER TABLE approvals ADD COLUMN escalate_ids_json TEXT',
  'DROP TRIGGER approvals_request_fixed',
  `CREATE TRIGGER approvals_request_fixed BEFORE UPDATE OF id, operation, target, params_json,
     params_digest, requester, channel_id, reason, created_at, expires_at, required,
     approver_roles_json, approver_ids_json, confirm, escalate_role, escalate_ids_json ON approvals
   BEGIN SELECT RAISE(ABORT, 'approvals: a request cannot be changed once made'); END`,
];

/**
 * Whose lock an open request holds: '' when it is the operation and target's (one open request
 * for everyone), or the requester's own (`db.exec`: each person may have one open write per
 * database, PRODUCT §5). The unique index moves from (operation, target) to (operation, target,
 * lock_owner); requests already stored lock as new ones would, and the owner is fixed once asked.
 */
export const lockPerRequesterMigration: Migration = {
  version: 7,
  name: 'approvals: db.exec locks per requester and database',
  statements: [
    "ALTER TABLE approvals ADD COLUMN lock_owner TEXT NOT NULL DEFAULT ''",
    "UPDATE approvals SET lock_owner = requester WHERE operation = 'db.exec'",
    'DROP INDEX approvals_open_target',
    `CREATE UNIQUE INDEX approvals_open_lock ON approvals (operation, target, lock_owner)
     WHERE state IN ('pending', 'approved', 'executing')`,
    `CREATE TRIGGER approvals_lock_fixed BEFORE UPDATE OF lock_owner ON approvals
     BEGIN SELECT RAISE(ABORT, 'approvals: a request cannot be changed once made'); END`,
  ],
};
