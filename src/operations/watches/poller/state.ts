/**
 * What every part of the watch poller works with, passed in explicitly: its dependencies, and
 * what changes as it runs (the messenger once started, whether it is closing, the downloads
 * under way).
 */
import type { PlatformClient } from '../../../platform/client.js';
import type { Authorizer } from '../../../policy/authorizer.js';
import type { AuditLog } from '../../../state/audit.js';
import type { Logger } from '../../../telemetry/log.js';
import type { Metrics } from '../../../telemetry/metrics.js';
import type { Clock } from '../../../time/clock.js';
import type { WatchStore } from '../../../watches/store.js';
import type { Messenger } from '../../engine/ports.js';
import type { CallBudget } from './budget.js';

export interface PollerDeps {
  store: WatchStore;
  platform: Pick<PlatformClient, 'getOriginErrorLogs'>;
  authorizer: Authorizer;
  audit: AuditLog;
  logger: Logger;
  metrics: Pick<Metrics, 'setRunningWatches' | 'watchPolled' | 'watchTakenOver'>;
  now: Clock;
  /** This replica's name in lease_owner. */
  instanceId: string;
}

export interface PollerState extends Readonly<PollerDeps> {
  /** The platform calls all watches may still make this minute. */
  readonly budget: CallBudget;
  /** Posts and updates outside any request; set when the poller starts. */
  messenger: Messenger | undefined;
  /** Set by close(): no pass starts, and a stopped download saves nothing. */
  closed: boolean;
  /** The downloads under way, stopped by close(). */
  readonly downloads: Set<AbortController>;
}
