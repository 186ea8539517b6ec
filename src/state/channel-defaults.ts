/**
 * Per-channel defaults (`/edge context set pullzone=308006`): the ids a channel's commands take
 * when none is typed. One row per channel and name; a change reads what it replaces in the same
 * write transaction, so the audit row's "before" is exactly what was there.
 */
import { z } from 'zod';
import { retryBusy } from './busy.js';
import type { Migration } from './migrations.js';
import type { StateStore } from './store.js';

/** The names a channel may have a default for. */
export const CHANNEL_DEFAULT_NAMES = ['pullzone', 'shieldzone'] as const;
export type ChannelDefaultName = (typeof CHANNEL_DEFAULT_NAMES)[number];

export type ChannelDefaults = Partial<Record<ChannelDefaultName, number>>;

/** Per name: the new id, or null to remove the default. Names left out stay as they are. */
export type ChannelDefaultsChange = Partial<Record<ChannelDefaultName, number | null>>;

export const channelDefaultsMigration: Migration = {
  version: 4,
  name: 'channel defaults',
  statements: [
    `CREATE TABLE channel_defaults (
      channel_id TEXT NOT NULL,
      name TEXT NOT NULL,
      value INTEGER NOT NULL,
      set_by TEXT NOT NULL,
      set_at INTEGER NOT NULL,
      PRIMARY KEY (channel_id, name)
    )`,
  ],
};

const RowSchema = z.object({ name: z.string(), value: z.number().int() });

const isName = (name: string): name is ChannelDefaultName =>
  (CHANNEL_DEFAULT_NAMES as readonly string[]).includes(name);

function defaultsOf(rows: readonly unknown[]): ChannelDefaults {
  const defaults: ChannelDefaults = {};
  for (const row of rows) {
    const parsed = RowSchema.safeParse(row);
    // A name a newer release knows is left to it.
    if (parsed.success && isName(parsed.data.name)) defaults[parsed.data.name] = parsed.data.value;
  }
  return defaults;
}

const SELECT = 'SELECT name, value FROM channel_defaults WHERE channel_id = ?';

export async function readChannelDefaults(state: StateStore, channelId: string): Promise<ChannelDefaults> {
  const result = await retryBusy(() => state.client.execute({ sql: SELECT, args: [channelId] }));
  return defaultsOf(result.rows);
}

/** Applies a change in one write transaction; returns the defaults before and after it. */
export async function changeChannelDefaults(
  state: StateStore,
  channelId: string,
  change: ChannelDefaultsChange,
  by: { userId: string },
): Promise<{ before: ChannelDefaults; after: ChannelDefaults }> {
  const at = state.now().getTime();
  const writes = Object.entries(change).flatMap(([name, value]) =>
    value === undefined
      ? []
      : value === null
        ? [{ sql: 'DELETE FROM channel_defaults WHERE channel_id = ? AND name = ?', args: [channelId, name] }]
        : [
            {
              sql: `INSERT INTO channel_defaults (channel_id, name, value, set_by, set_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (channel_id, name) DO UPDATE SET
                      value = excluded.value, set_by = excluded.set_by, set_at = excluded.set_at`,
              args: [channelId, name, value, by.userId, at],
            },
          ],
  );
  const results = await retryBusy(() =>
    state.client.batch(
      [{ sql: SELECT, args: [channelId] }, ...writes, { sql: SELECT, args: [channelId] }],
      'write',
    ),
  );
  return { before: defaultsOf(results[0]!.rows), after: defaultsOf(results.at(-1)!.rows) };
}
