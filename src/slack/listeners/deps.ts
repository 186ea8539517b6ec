import type { Engine } from '../../operations/engine/engine.js';
import type { Surface } from '../../operations/engine/ports.js';
import type { Caller, Services } from '../../operations/engine/types.js';
import type { Logger } from '../../telemetry/log.js';
import type { Metrics } from '../../telemetry/metrics.js';
import type { Deliveries } from '../deliveries.js';
import type { TableMemory, TablePolicy } from '../tables.js';

/** What every listener needs of the app: the engine to delegate to, and what it logs and counts. */
export interface ListenerDeps {
  engine: Engine;
  services: Services;
  metrics: Metrics;
  logger: Logger;
  /** Which workspaces refused a table in the last hour (one memory for the app). */
  tables?: TableMemory;
}

/** The table policy of a request from `teamId`, for its surface. */
export const tablesOf = (options: ListenerDeps, teamId: string | undefined): { tables?: TablePolicy } =>
  options.tables ? { tables: { memory: options.tables, teamId: teamId ?? '' } } : {};

/**
 * Runs a typed command line (a slash command, a mention) once across redeliveries: one that
 * changes something is claimed in the state database first, and when that claim cannot be
 * recorded nothing runs and the user is told.
 */
export async function runCommandOnce(
  options: ListenerDeps,
  deliveries: Deliveries,
  delivery: { key: string; retryNum: number | undefined; what: string },
  caller: Caller & { surface: Surface },
  text: string,
): Promise<void> {
  const plan = options.engine.plan({ ...caller, text });
  await deliveries.once(
    { key: delivery.key, retryNum: delivery.retryNum, changes: plan.changes },
    () => plan.run(),
    {
      what: `${delivery.what} delivery`,
      userId: caller.userId,
      unrecorded: () => options.engine.refuseUnrecorded(caller),
    },
  );
}
