/**
 * Prometheus metrics (PRODUCT §1): commands by operation and outcome, ack latency, platform
 * call latency and errors, approvals by state. One registry per app instance, so that tests
 * and benchmarks can run several in one process.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** One platform API call as the metrics count it, retries included; the platform client reports it. */
export interface PlatformCallEvent {
  operation: string;
  outcome: 'ok' | 'error';
  kind?: string;
  status?: number;
  durationMs: number;
  attempts: number;
}

export interface Metrics {
  registry: Registry;
  commandFinished(operation: string, outcome: string): void;
  ackObserved(seconds: number): void;
  platformCall(event: PlatformCallEvent): void;
  setApprovals(state: string, count: number): void;
  setRunningJobs(count: number): void;
  /** Watches running in the workspace, as the state database has them. */
  setRunningWatches(count: number): void;
  /** One poll of one pull zone's log day(s), serving every watch of that zone. */
  watchPolled(seconds: number): void;
  /** A replica took a watch's lease from another whose lease had expired. */
  watchTakenOver(): void;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'edgeops_' });
  const commands = new Counter({
    name: 'edgeops_commands_total',
    help: 'Commands handled, by operation and outcome',
    labelNames: ['operation', 'outcome'] as const,
    registers: [registry],
  });
  const ack = new Histogram({
    name: 'edgeops_ack_seconds',
    help: 'Time from receiving a Slack request to acknowledging it',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3],
    registers: [registry],
  });
  const platformLatency = new Histogram({
    name: 'edgeops_platform_call_seconds',
    help: 'Platform API call latency, retries included',
    labelNames: ['operation', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const platformErrors = new Counter({
    name: 'edgeops_platform_errors_total',
    help: 'Failed platform API calls, by operation and kind',
    labelNames: ['operation', 'kind'] as const,
    registers: [registry],
  });
  const approvals = new Gauge({
    name: 'edgeops_approvals',
    help: 'Approval requests by state',
    labelNames: ['state'] as const,
    registers: [registry],
  });
  const jobs = new Gauge({
    name: 'edgeops_long_jobs_running',
    help: 'Long jobs (origin-log summaries, exports) running in this process',
    registers: [registry],
  });
  const watches = new Gauge({
    name: 'edgeops_watches_running',
    help: 'Watches of origin errors running in the workspace',
    registers: [registry],
  });
  const watchPolls = new Histogram({
    name: 'edgeops_watch_poll_seconds',
    help: "Time one watch poll takes: fetching and counting a pull zone's log day",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const takeovers = new Counter({
    name: 'edgeops_watch_lease_takeovers_total',
    help: 'Watch leases taken over from a replica that stopped renewing them',
    registers: [registry],
  });
  return {
    registry,
    commandFinished: (operation, outcome) => commands.inc({ operation, outcome }),
    ackObserved: (seconds) => ack.observe(seconds),
    platformCall(event) {
      platformLatency.observe(
        { operation: event.operation, outcome: event.outcome },
        event.durationMs / 1000,
      );
      if (event.outcome === 'error')
        platformErrors.inc({ operation: event.operation, kind: event.kind ?? 'unknown' });
    },
    setApprovals: (state, count) => approvals.set({ state }, count),
    setRunningJobs: (count) => jobs.set(count),
    setRunningWatches: (count) => watches.set(count),
    watchPolled: (seconds) => watchPolls.observe(seconds),
    watchTakenOver: () => takeovers.inc(),
  };
}
