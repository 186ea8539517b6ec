/**
 * The bot's state database schema: every migration, oldest first. A new one goes at the end with
 * the next version number. Each part keeps its tables' text beside its code; this list is where
 * they meet, so that state/ needs to know nothing of approvals.
 */
import {
  approvalsMigration,
  approvedMayBecomeUnknownMigration,
  escalationStatements,
  lockPerRequesterMigration,
  remindersAndReasonsMigration,
} from '../approvals/migration.js';
import { channelDefaultsMigration } from '../state/channel-defaults.js';
import { digestsMigration } from '../state/digests.js';
import { auditAndClaimsMigration, type Migration } from '../state/migrations.js';
import { runningJobsMigration } from '../state/running-jobs.js';
import { secretMessagesStatements } from '../state/secret-messages.js';
import { watchApprovalMigration, watchesMigration } from '../watches/migration.js';

/** Escalation on approvals, and the trail of the messages that delivered a key or token. */
const escalationAndSecretMessagesMigration: Migration = {
  version: 8,
  name: 'approvals escalation; delivered secret messages',
  statements: [...escalationStatements, ...secretMessagesStatements],
};

export const migrations: readonly Migration[] = [
  auditAndClaimsMigration,
  approvalsMigration,
  approvedMayBecomeUnknownMigration,
  channelDefaultsMigration,
  watchesMigration,
  remindersAndReasonsMigration,
  lockPerRequesterMigration,
  escalationAndSecretMessagesMigration,
  watchApprovalMigration,
  digestsMigration,
  runningJobsMigration,
];
