import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import type { Engine } from '../../operations/engine.js';
import type { Services } from '../../operations/types.js';

/** What every listener needs of the app: the engine to delegate to, and what it logs and counts. */
export interface ListenerDeps {
  engine: Engine;
  services: Services;
  metrics: Metrics;
  logger: Logger;
}
