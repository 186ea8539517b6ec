/**
 * Whether Slack draws tables for a workspace. A workspace, a client or an Enterprise policy may
 * refuse the table block: the answer goes again with its tables as code blocks (fallback.ts), and
 * for an hour that workspace's answers go that way at once, logged once when it starts.
 */
import type { Logger } from '../telemetry/log.js';

/** How long a refusal is believed before a table is tried again. */
export const TABLES_REFUSED_FOR_MS = 60 * 60_000;

/** Slack's words for a message whose table it will not take. */
const TABLE_REFUSALS = new Set(['invalid_blocks', 'invalid_attachments', 'only_one_table_allowed']);
export const refusesTable = (slackError: string | undefined): boolean => TABLE_REFUSALS.has(slackError ?? '');

export interface TableMemory {
  /** True while a refusal by this workspace is less than an hour old. */
  refused(teamId: string): boolean;
  /** Remembers that this workspace refused a table now. */
  remember(teamId: string, slackError: string): void;
}

export function createTableMemory({ now, logger }: { now: () => number; logger: Logger }): TableMemory {
  const refusedAt = new Map<string, number>();
  const refused = (teamId: string) => {
    const at = refusedAt.get(teamId);
    return at !== undefined && now() - at < TABLES_REFUSED_FOR_MS;
  };
  return {
    refused,
    remember(teamId, slackError) {
      // Logged once an hour: every answer in between goes as code blocks without trying.
      if (!refused(teamId))
        logger.warn(
          'Slack refused a table; answers to this workspace show tables as code blocks for an hour',
          {
            teamId,
            slackError,
          },
        );
      refusedAt.set(teamId, now());
    },
  };
}

/** The memory and the workspace a request came from, as every send of its answer needs them. */
export interface TablePolicy {
  memory: TableMemory;
  teamId: string;
}
