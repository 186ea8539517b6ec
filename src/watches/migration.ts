import type { Migration } from '../state/migrations.js';

/**
 * The watches table. A watch is polled by whichever replica holds its lease (lease_owner until
 * lease_expires_at); what it has counted (progress_json: the cursor, the counts, the alert
 * episode) changes only in the UPDATE that checks that lease, so a takeover neither loses nor
 * counts twice. Times are Unix milliseconds.
 */
export const watchesMigration: Migration = {
  version: 5,
  name: 'watches',
  statements: [
    `CREATE TABLE watches (
      id TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      channel_id TEXT NOT NULL,
      thread_ts TEXT,
      message_ts TEXT,
      pull_zone_id INTEGER NOT NULL,
      status_filter TEXT,
      code_filter TEXT,
      every_ms INTEGER NOT NULL CHECK (every_ms > 0),
      started_at INTEGER NOT NULL,
      ends_at INTEGER NOT NULL,
      alert_count INTEGER,
      alert_window_ms INTEGER,
      snoozed_until INTEGER,
      state TEXT NOT NULL CHECK (state IN ('running', 'ended')),
      ended_reason TEXT,
      ended_by TEXT,
      ended_at INTEGER,
      lease_owner TEXT,
      lease_expires_at INTEGER,
      next_poll_at INTEGER NOT NULL,
      last_polled_at INTEGER,
      progress_json TEXT NOT NULL,
      version INTEGER NOT NULL DEFAULT 0
    )`,
    'CREATE INDEX watches_running ON watches (state, next_poll_at)',
    'CREATE INDEX watches_owner ON watches (owner, state)',
    // An ended watch stays ended: no code path can start it again.
    `CREATE TRIGGER watches_stay_ended BEFORE UPDATE OF state ON watches
     WHEN OLD.state = 'ended' AND NEW.state <> 'ended'
     BEGIN SELECT RAISE(ABORT, 'watches: an ended watch cannot run again'); END`,
  ],
};

/** The approval request a watch was started by, when an approval rule held watch.logs. */
export const watchApprovalMigration: Migration = {
  version: 9,
  name: 'watches started by an approval',
  statements: ['ALTER TABLE watches ADD COLUMN approval_id TEXT'],
};
