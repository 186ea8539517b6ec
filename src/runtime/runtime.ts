/**
 * Builds everything an adapter needs from the configuration: state store, audit, policy,
 * platform client, metrics and the engine. main.ts, tests and benchmarks all start here, so
 * Slack and the console run exactly the same product.
 */
import { randomBytes } from 'node:crypto';
import { createApprovalService } from '../approvals/service.js';
import type { Config } from '../config.js';
import { configSecrets } from '../config.js';
import { createCustomerDatabase } from '../database/customer-database.js';
import { type ApprovalFlow, createApprovalFlow } from '../operations/approvals/flow.js';
import { type HeldReplay, heldGate } from '../operations/approvals/held.js';
import {
  createDigestRunner,
  type DigestRunner,
  type DigestRunnerOptions,
} from '../operations/digests/runner.js';
import { createDigestDesk } from '../operations/digests/service.js';
import { createTtlCache } from '../operations/engine/cache.js';
import { createEngine, type Engine } from '../operations/engine/engine.js';
import {
  createJobRecords,
  type JobRecords,
  type JobRecordsOptions,
} from '../operations/engine/job-records.js';
import { createJobRegistry, type ProgressTiming } from '../operations/engine/jobs.js';
import type { Messenger } from '../operations/engine/ports.js';
import { createSharedAnswers } from '../operations/engine/shared-answers.js';
import type { Services } from '../operations/engine/types.js';
import { createHomeContent } from '../operations/home/content.js';
import { homeDrawer } from '../operations/home/draw.js';
import {
  createHomeRefresher,
  type HomeRefresher,
  refreshingApprovals,
  refreshingDigests,
  refreshingWatches,
} from '../operations/home/refresh.js';
import { createKeptOriginDays } from '../operations/logs/kept-days.js';
import { commandForms, gatedOperations, operations, wordAliases } from '../operations/registry.js';
import { createWatchPoller, type WatchPoller } from '../operations/watches/poller.js';
import { createWatchDesk } from '../operations/watches/service.js';
import { channelDefaults } from '../operations/zones/defaults.js';
import { createZoneDirectory } from '../operations/zones/directory.js';
import { suggestZones } from '../operations/zones/suggest.js';
import { createPlatformClient } from '../platform/client.js';
import type { PlatformHttpOptions } from '../platform/http.js';
import { createPolicyAuthorizer, type PolicyAuthorizer } from '../policy/authorizer.js';
import { createDefaultPolicy } from '../policy/defaults.js';
import { createGroupMembership } from '../policy/groups.js';
import { OPERATION_IDS } from '../policy/operation-ids.js';
import type { Policy } from '../policy/schema.js';
import { createPolicyStore, type PolicyStore } from '../policy/store.js';
import { type ChartRendererOptions, createChartRenderer } from '../reports/chart/render.js';
import { sweepTemporaryFiles } from '../reports/csv/temp-file.js';
import { createReportPool } from '../reports/pool.js';
import { SecretRegistry } from '../secrets/registry.js';
import { createAuditLog } from '../state/audit.js';
import { createDigestStore } from '../state/digests.js';
import { createRunningJobStore } from '../state/running-jobs.js';
import { createSecretMessages } from '../state/secret-messages.js';
import { openStateStore, type StateStore } from '../state/store.js';
import { createLogger, type Logger } from '../telemetry/log.js';
import { createMetrics, type Metrics } from '../telemetry/metrics.js';
import type { Clock } from '../time/clock.js';
import { createWatchStore } from '../watches/store.js';
import { migrations } from './migrations.js';

export interface RuntimeOptions {
  config: Config;
  /** Required: the composition root fills it from the sandbox in console mode. */
  platform: NonNullable<Config['platform']>;
  /** Platform HTTP timeouts and retry policy; the defaults suit production (tests shorten them). */
  platformHttp?: Pick<
    PlatformHttpOptions,
    'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'retry'
  >;
  secrets?: SecretRegistry;
  logger?: Logger;
  /** Members of a Slack user group; the console has none. */
  fetchGroupMembers?: (groupId: string) => Promise<readonly string[]>;
  /** The policy when no file is configured: the built-in default, or the console demo. */
  fallbackPolicy?: Policy;
  /** Poll interval for policy file changes (tests shorten it). */
  policyIntervalMs?: number;
  /** How often stale approvals are expired and crashed executions recovered. */
  sweepIntervalMs?: number;
  /** An execution running longer than this is taken as interrupted by a crash. */
  staleExecutionMs?: number;
  /** When long jobs show progress and how often it changes (tests shorten it). */
  progress?: ProgressTiming;
  /** The bound on drawing a chart picture, and its font; the defaults suit production. */
  charts?: Pick<ChartRendererOptions, 'timeoutMs' | 'fontFile'>;
  /** How often (real time) the watch poller wakes to look for due watches; tests tick it by hand. */
  watchTickMs?: number;
  /** How often (real time) the digest runner wakes to look for due digests; tests tick it by hand. */
  digestTickMs?: number;
  /** How long changes are gathered before the Homes they concern are drawn again. */
  homeRefreshDelayMs?: number;
  /** The clock every part of the bot reads; main passes the system clock, tests a pinned one. */
  now: Clock;
}

export interface Runtime {
  engine: Engine;
  services: Services;
  metrics: Metrics;
  policies: PolicyStore;
  authorizer: PolicyAuthorizer;
  /** The approval flow, for the sweep and for showing pending cards again. */
  approvals: ApprovalFlow;
  secrets: SecretRegistry;
  logger: Logger;
  /** Polls the watches this replica holds the lease of; tests call tick() after moving the clock. */
  watchPoller: WatchPoller;
  /** Posts the digests whose time has come, each occurrence once; tests call tick() after moving the clock. */
  digestRunner: DigestRunner;
  /**
   * Starts the approval sweep (expiry, crash recovery) with a surface that can update cards
   * and send DMs outside any request; runs one sweep at once.
   */
  startBackground(messenger: Messenger): Promise<void>;
  close(): Promise<void>;
}

/** Digests: their store (which redraws Homes), the desk the commands call, and the runner that posts them. */
function createDigests(
  options: RuntimeOptions,
  deps: Omit<DigestRunnerOptions, 'store'> & { state: StateStore; homes: HomeRefresher },
) {
  const store = refreshingDigests(createDigestStore(deps.state.client), deps.homes);
  return {
    store,
    desk: createDigestDesk({ ...deps, store, limits: options.config.digests }),
    runner: createDigestRunner({ ...deps, store, tickMs: options.digestTickMs }),
  };
}

/** Long jobs' records: one outlives three sweeps without renewal, which only a replica that stopped misses. */
function recordsOfJobs(
  state: StateStore,
  deps: Omit<JobRecordsOptions, 'store' | 'leaseMs'>,
  { sweepIntervalMs = 30_000 }: { sweepIntervalMs?: number },
): JobRecords {
  return createJobRecords({
    ...deps,
    store: createRunningJobStore(state.client),
    leaseMs: 3 * sweepIntervalMs,
  });
}

/**
 * Expires and recovers approvals, then refreshes the approvals-by-state gauge; renews this
 * replica's long jobs and closes those of replicas that stopped.
 */
async function sweepApprovals(
  deps: {
    approvals: ApprovalFlow;
    state: StateStore;
    metrics: Metrics;
    logger: Logger;
    jobRecords: JobRecords;
  },
  surface: Messenger,
): Promise<void> {
  try {
    await deps.jobRecords.sweep(surface);
  } catch (error) {
    deps.logger.warn('long-job sweep failed', { error });
  }
  try {
    await deps.approvals.sweep(surface);
    await deps.state.purgeClaims();
    const counts = await deps.approvals.countByState();
    for (const [name, count] of Object.entries(counts)) deps.metrics.setApprovals(name, count);
  } catch (error) {
    deps.logger.warn('approval sweep failed', { error });
  }
}

// One piece: the composition root's assembly of every service, in the order each needs the others.
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config, now } = options;
  const secrets = options.secrets ?? new SecretRegistry();
  secrets.add(...configSecrets(config), options.platform.apiKey);
  const logger = options.logger ?? createLogger({ level: config.logLevel, secrets, clock: now });

  // What a crashed or killed run left in the temporary folder goes before anything new is written.
  const swept = await sweepTemporaryFiles();
  if (swept > 0) logger.info('removed temporary files left by a stopped process', { count: swept });
  const policies = createPolicyStore({
    path: config.policyPath,
    fallback: options.fallbackPolicy ?? createDefaultPolicy(),
    logger,
    intervalMs: options.policyIntervalMs,
  });
  const state = await openStateStore({
    url: config.stateDatabase.url,
    authToken: config.stateDatabase.authToken,
    logger,
    now: () => new Date(now()),
    migrations,
  });
  const metrics = createMetrics({ defaultMetrics: true });
  const platform = createPlatformClient({
    ...options.platform,
    ...options.platformHttp,
    logger,
    onCall: (event) => metrics.platformCall(event),
    now,
  });
  const audit = createAuditLog({ store: state, secrets, now: () => new Date(now()) });
  const groups = createGroupMembership({
    fetchMembers: options.fetchGroupMembers ?? (async () => []),
    now,
    logger,
  });
  const authorizer = createPolicyAuthorizer(policies, groups);
  const instanceId = `edgeops-${process.pid}-${randomBytes(3).toString('hex')}`;
  const homes = createHomeRefresher({
    groups,
    logger,
    delayMs: options.homeRefreshDelayMs ?? 1_000,
    now,
    policyGeneration: () => policies.generation(),
    draw: (userId, links) => drawHome(userId, links),
  });
  // Every transition, wherever it is made, redraws the Homes of the people it concerns.
  const approvalService = refreshingApprovals(
    createApprovalService({
      store: state,
      audit,
      logger,
      now: () => new Date(now()),
      secrets,
      instanceId,
    }),
    homes,
  );
  const approvals = createApprovalFlow({
    service: approvalService,
    authorizer,
    groups,
    logger,
    now,
    staleExecutionMs: options.staleExecutionMs ?? config.executionTimeoutMs,
    secretMessages: createSecretMessages(state),
  });
  // Every other operation an approval rule may name is held as it was asked, and replayed once
  // approved by the engine built below.
  const selfGated: ReadonlySet<string> = new Set(gatedOperations.map((gate) => gate.id));
  let engine: Engine | undefined;
  const replay: HeldReplay = (entry, run) => {
    if (!engine) throw new Error('an approved entry was replayed before the engine was built');
    return engine.replay(entry, run);
  };
  const heldGates = OPERATION_IDS.filter((id) => !selfGated.has(id)).map((id) => heldGate(id, replay));
  const gates = [...gatedOperations, ...heldGates];
  for (const gate of gates) approvals.register(gate);
  const database = config.serviceDatabase
    ? createCustomerDatabase({
        url: config.serviceDatabase.url,
        authToken: config.serviceDatabase.authToken,
        databaseId: config.serviceDatabase.id,
        secrets,
        timeoutMs: config.databaseQuery.timeoutMs,
        limits: { maxRows: config.databaseQuery.maxRows, maxBytes: config.databaseQuery.maxBytes },
        logger,
      })
    : undefined;
  const jobs = createJobRegistry({
    limits: config.jobs,
    progress: options.progress,
    onChange: (running) => metrics.setRunningJobs(running),
  });
  const jobRecords = recordsOfJobs(state, { audit, logger, now, runner: instanceId }, options);
  const reports = createReportPool();
  const keptDays = await createKeptOriginDays({ ...config.logCache, now, logger, platform });
  const watchStore = refreshingWatches(createWatchStore(state.client), homes);
  // What the background work (watches, digests) reads and posts with, outside any request.
  const background = { platform, authorizer, audit, logger, now, instanceId };
  const watchPoller = createWatchPoller({
    ...background,
    store: watchStore,
    metrics,
    callsPerMinute: config.watches.callsPerMinute,
    tickMs: options.watchTickMs,
  });
  const charts = createChartRenderer({ logger, pool: reports, ...options.charts });
  const digests = createDigests(options, { ...background, state, homes, keptDays, reports, charts, secrets });
  const { show: showHome } = createHomeContent({
    approvals: approvalService,
    mayApprove: approvals.mayApprove,
    audit,
    watches: watchStore,
    digests: digests.store,
    gated: gates,
    now,
  });
  // Through the services, as `/edge home` draws it, so a Home drawn for its tab is the same.
  const drawHome = homeDrawer({
    show: (viewer) => services.home.show(viewer),
    operations,
    authorizer,
    logger,
  });
  const services: Services = {
    platform,
    audit,
    state,
    logger,
    secrets,
    cache: createTtlCache(now),
    approvals,
    jobs,
    jobRecords,
    shared: createSharedAnswers({ now }),
    reports,
    database,
    charts,
    zones: createZoneDirectory({ platform, now, logger }),
    watches: createWatchDesk({ store: watchStore, authorizer, audit, logger, limits: config.watches, now }),
    home: { show: showHome, refresher: homes },
    now,
    keptDays,
    digests: digests.desk,
  };
  engine = createEngine({
    operations,
    aliases: wordAliases,
    services,
    authorizer,
    commandForms,
    onOutcome: (operation, outcome) => metrics.commandFinished(operation, outcome),
    selfGated,
    channelDefaults,
    suggestZones: (input) => suggestZones({ authorizer, services }, input),
  });

  let sweeper: NodeJS.Timeout | undefined;
  const sweep = (surface: Messenger) =>
    sweepApprovals({ approvals, state, metrics, logger, jobRecords }, surface);

  return {
    engine,
    services,
    metrics,
    policies,
    authorizer,
    approvals,
    secrets,
    logger,
    watchPoller,
    digestRunner: digests.runner,
    async startBackground(surface) {
      await sweep(surface);
      // A restart resumes every watch: the poller takes the leases nobody renews.
      watchPoller.start(surface);
      // And every digest: an occurrence missed meanwhile is posted once, late.
      digests.runner.start(surface);
      sweeper = setInterval(() => void sweep(surface), options.sweepIntervalMs ?? 30_000);
      sweeper.unref();
    },
    async close() {
      if (sweeper) clearInterval(sweeper);
      homes.close();
      await watchPoller.close();
      await digests.runner.close();
      jobs.close();
      await reports.close();
      await keptDays.close();
      policies.close();
      await database?.close();
      await platform.close();
      await state.close();
    },
  };
}
