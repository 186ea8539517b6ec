/**
 * The direct messages that delivered a key or a token: where they are, when they went, and
 * whether their reader deleted them ("Saved it, delete this"). Never the secret itself. A
 * reminder to delete one left standing is claimed by one conditional UPDATE, so with several
 * replicas sweeping one database it goes out exactly once, and never after the deletion.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { retryBusy } from './busy.js';
import type { StateStore } from './store.js';

/** The table, part of state migration 8 (src/runtime/migrations.ts). */
export const secretMessagesStatements: readonly string[] = [
  `CREATE TABLE secret_messages (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    ts TEXT NOT NULL,
    delivered_at INTEGER NOT NULL,
    deleted_at INTEGER,
    reminded_at INTEGER
  )`,
  'CREATE INDEX secret_messages_due ON secret_messages (deleted_at, reminded_at, delivered_at)',
];

/** How long a delivered secret may stand before its reader is reminded to delete it. */
export const SECRET_REMINDER_AFTER_MS = 10 * 60_000;

/** `sm_` and 16 hex digits: random, so a button value cannot be guessed. */
export const SECRET_MESSAGE_ID_PATTERN = /^sm_[0-9a-f]{16}$/;

export const newSecretMessageId = (): string => `sm_${randomBytes(8).toString('hex')}`;

export interface SecretMessage {
  id: string;
  userId: string;
  channelId: string;
  ts: string;
  deliveredAt: Date;
  deletedAt: Date | null;
  remindedAt: Date | null;
}

const RowSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  channel_id: z.string(),
  ts: z.string(),
  delivered_at: z.number().int(),
  deleted_at: z.number().int().nullable(),
  reminded_at: z.number().int().nullable(),
});

const COLUMNS = Object.keys(RowSchema.shape).join(', ');

function toMessage(raw: unknown): SecretMessage {
  const row = RowSchema.parse(raw);
  return {
    id: row.id,
    userId: row.user_id,
    channelId: row.channel_id,
    ts: row.ts,
    deliveredAt: new Date(row.delivered_at),
    deletedAt: row.deleted_at === null ? null : new Date(row.deleted_at),
    remindedAt: row.reminded_at === null ? null : new Date(row.reminded_at),
  };
}

export interface SecretMessages {
  /** Remembers a delivered message. */
  record(message: Omit<SecretMessage, 'deletedAt' | 'remindedAt'>): Promise<void>;
  get(id: string): Promise<SecretMessage | null>;
  /** Marks it deleted; false when it already was (or is unknown). */
  markDeleted(id: string, at: Date): Promise<boolean>;
  /**
   * Marks reminded, and returns, the messages delivered at least SECRET_REMINDER_AFTER_MS before
   * `at` that are neither deleted nor reminded yet: each goes to exactly one caller.
   */
  claimReminders(at: Date): Promise<SecretMessage[]>;
}

export function createSecretMessages(state: StateStore): SecretMessages {
  const run = (sql: string, args: (string | number | null)[]) =>
    retryBusy(() => state.client.execute({ sql, args }));
  return {
    async record(message) {
      await run(
        'INSERT INTO secret_messages (id, user_id, channel_id, ts, delivered_at) VALUES (?, ?, ?, ?, ?)',
        [message.id, message.userId, message.channelId, message.ts, message.deliveredAt.getTime()],
      );
    },
    async get(id) {
      if (!SECRET_MESSAGE_ID_PATTERN.test(id)) return null;
      const result = await run(`SELECT ${COLUMNS} FROM secret_messages WHERE id = ?`, [id]);
      const row = result.rows[0];
      return row === undefined ? null : toMessage(row);
    },
    async markDeleted(id, at) {
      const result = await run(
        'UPDATE secret_messages SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL',
        [at.getTime(), id],
      );
      return result.rowsAffected === 1;
    },
    async claimReminders(at) {
      const result = await run(
        `UPDATE secret_messages SET reminded_at = ?
         WHERE deleted_at IS NULL AND reminded_at IS NULL AND delivered_at <= ?
         RETURNING ${COLUMNS}`,
        [at.getTime(), at.getTime() - SECRET_REMINDER_AFTER_MS],
      );
      return result.rows.map(toMessage);
    },
  };
}
