/**
 * The built-in sandbox platform: the whole platform API on 127.0.0.1, with seeded data, injectable
 * faults and a request log. Two listeners: the management API (logging and database management
 * live under it) and the database's Hrana endpoint, which clients address at its URL root.
 */

import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../time/clock.js';
import { openSandboxDatabase } from './database.js';
import { createFaults, type Faults } from './faults.js';
import { createHranaService } from './hrana.js';
import { createKnobs, type Knobs } from './knobs.js';
import { createRequestLog, type RequestLog } from './request-log.js';
import type { Route, RouteId } from './router.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { databasePipelineRoutes } from './routes/database-pipeline.js';
import { databaseTokenRoutes } from './routes/database-tokens.js';
import { dnsZoneRoutes } from './routes/dns-zones.js';
import { originLogRoutes } from './routes/origin-logs.js';
import { pullZoneRoutes } from './routes/pull-zones.js';
import { purgeRoutes } from './routes/purge.js';
import { shieldRoutes } from './routes/shield.js';
import { statisticsRoutes } from './routes/statistics.js';
import { videoLibraryRoutes } from './routes/video-library.js';
import { zoneListRoutes } from './routes/zone-lists.js';
import { BIG_EXPORT_BYTES, BIG_LOG_DAY_ENTRIES, createSeedData, SEEDED_IDS } from './seed.js';
import { type ServeDeps, serve } from './serve.js';
import { createState, type PurgeRecord } from './state.js';
import { createDatabaseTokens } from './tokens.js';
import type { BotDetectionConfig } from './vendor-rules.js';

/** The account key of every sandbox unless `apiKey` is given; not a secret anywhere else. */
export const SANDBOX_API_KEY = 'sandbox-4a1f0c2e-7d3b-4e59-9a61-0c8e2f5b7d90';
export const SANDBOX_DATABASE_ID = 'db_01SANDBOX0000000000000000';
export const DEFAULT_SEED = 1;

export interface SandboxOptions {
  /** Interface to listen on; 127.0.0.1 by default. */
  host?: string;
  /** Management API port; 0 (the default) picks a free one. */
  port?: number;
  /** Database (Hrana) port; 0 (the default) picks a free one. */
  databasePort?: number;
  /** The account key expected in the AccessKey header; SANDBOX_API_KEY by default. */
  apiKey?: string;
  /** `file:` URL or path of the database; a temporary file, removed on close, by default. */
  databasePath?: string;
  /** The platform's clock (Unix milliseconds): shared with the bot in tests, the system clock in the CLI. */
  now: Clock;
  /** Seed of all generated data; DEFAULT_SEED by default. */
  seed?: number;
  /** Idle time before a database stream's baton expires; 10 s by default. */
  streamIdleMs?: number;
  /** How long a database stream waits for another's write lock before SQLITE_BUSY; 5 s by default. */
  databaseBusyTimeoutMs?: number;
  /** Called with handler failures (answered 500); they go to stderr by default. */
  onError?: (error: unknown, routeId: RouteId) => void;
}

export interface Sandbox {
  /** Management API base ({base_url}), e.g. http://127.0.0.1:4010 — no trailing slash. */
  apiUrl: string;
  /** Origin error log base ({logging_url}): `${apiUrl}/logging`. */
  loggingUrl: string;
  /** Database management base: `${apiUrl}/database`. */
  databaseApiUrl: string;
  /** Hrana endpoint of the database, on its own port: `http://127.0.0.1:P2`. */
  databaseUrl: string;
  databaseId: string;
  apiKey: string;
  /** Tokens valid at start (until revoked). */
  databaseTokens: { fullAccess: string; readOnly: string };
  /** Named seeded ids (see SEEDED_IDS). */
  ids: typeof SEEDED_IDS;
  pullZoneIds: readonly number[];
  shieldZoneIds: readonly number[];
  dnsZoneIds: readonly number[];
  apiKeyIds: readonly number[];
  faults: Faults;
  requests: RequestLog;
  knobs: Knobs;
  /**
   * Adds `count` pull zones (`bulk-1`, `bulk-2`, …) after the others, as in an account larger than
   * a client reads from the list; returns their ids in list order.
   */
  addPullZones(count: number): number[];
  /**
   * Adds a pull zone beyond the seed's (a test that needs many zones nobody else asks about);
   * one that exists already is left as it is.
   */
  addPullZone(pullZoneId: number, name?: string): void;
  /** The current token-authentication key of a pull zone, to check a reset. */
  pullZoneSecurityKey(pullZoneId: number): string | undefined;
  /** The stored bot-detection configuration of a Shield zone. */
  botDetection(shieldZoneId: number): BotDetectionConfig | undefined;
  /** The id of the process that runs the database's statements, while one runs. */
  databaseProcessId(): number | undefined;
  /** Statements the database process is running or has queued, to act while one runs. */
  databaseStatementsRunning(): number;
  /** What was purged, oldest first (POST /purge and purgeCache, accepted). */
  purges(): readonly PurgeRecord[];
  /** Stops both listeners and the database process, mid-statement if need be. */
  close(): Promise<void>;
}

/** Enough for an account past any list a client reads, small enough to stay in memory. */
const MAX_ADDED_PULL_ZONES = 20_000;

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const apiKey = options.apiKey ?? SANDBOX_API_KEY;
  const { now } = options;
  const seed = options.seed ?? DEFAULT_SEED;
  const onError =
    options.onError ??
    ((error: unknown, routeId: RouteId) => {
      process.stderr.write(
        `sandbox: ${routeId} failed: ${error instanceof Error ? error.stack : String(error)}\n`,
      );
    });

  const database = await openSandboxDatabase({
    path: options.databasePath,
    seed,
    ...(options.databaseBusyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.databaseBusyTimeoutMs }),
  });
  const tokens = createDatabaseTokens(SANDBOX_DATABASE_ID, now);
  const hrana = createHranaService({ database, now, streamIdleMs: options.streamIdleMs });
  const knobs = createKnobs({
    logDays: new Map([[SEEDED_IDS.bigPullZone, BIG_LOG_DAY_ENTRIES]]),
    exportBytes: new Map([[SEEDED_IDS.bigShieldZone, BIG_EXPORT_BYTES]]),
  });
  const data = createSeedData(seed, apiKey);
  const state = createState({
    apiKey,
    seed,
    now,
    data,
    knobs,
    databaseId: SANDBOX_DATABASE_ID,
    tokens,
    hrana,
  });
  const faults = createFaults();
  const requests = createRequestLog();
  // In all, not per call: the control endpoint takes no key, so repeated calls must not grow
  // the process (the console's built-in sandbox runs inside the bot) without bound.
  let added = 0;
  const addPullZones = (count: number): number[] => {
    if (!Number.isSafeInteger(count) || count < 1 || count > MAX_ADDED_PULL_ZONES - added)
      throw new RangeError(
        `count must be a whole number from 1 to ${MAX_ADDED_PULL_ZONES - added} (at most ${MAX_ADDED_PULL_ZONES} pull zones are added in all)`,
      );
    added += count;
    const ids: number[] = [];
    for (let n = 1; n <= count; n++) {
      const id = state.nextIds.pullZone++;
      state.pullZones.set(id, {
        id,
        name: `bulk-${id}`,
        securityKey: randomUUID(),
        originUrl: `https://origin.bulk-${id}.example.com`,
        hostnames: [`bulk-${id}.b-cdn.net`],
      });
      ids.push(id);
    }
    return ids;
  };
  const routes: Route[] = [
    ...videoLibraryRoutes(state),
    ...apiKeyRoutes(state),
    ...pullZoneRoutes(state),
    ...zoneListRoutes(state),
    ...dnsZoneRoutes(state),
    ...shieldRoutes(state),
    ...originLogRoutes(state),
    ...databaseTokenRoutes(state),
    ...databasePipelineRoutes(state),
    ...statisticsRoutes(state),
    ...purgeRoutes(state),
  ];

  const deps: ServeDeps = { routes, faults, requests, knobs, addPullZones, now, onError };
  const apiServer = createServer({ keepAlive: true }, serve(deps, 'api'));
  const databaseServer = createServer({ keepAlive: true }, serve(deps, 'database'));
  const apiPort = await listen(apiServer, host, options.port ?? 0);
  const databasePort = await listen(databaseServer, host, options.databasePort ?? 0);
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const apiUrl = `http://${hostPart}:${apiPort}`;

  return {
    apiUrl,
    loggingUrl: `${apiUrl}/logging`,
    databaseApiUrl: `${apiUrl}/database`,
    databaseUrl: `http://${hostPart}:${databasePort}`,
    databaseId: SANDBOX_DATABASE_ID,
    apiKey,
    databaseTokens: {
      fullAccess: tokens.generate('full-access').token,
      readOnly: tokens.generate('read-only').token,
    },
    ids: SEEDED_IDS,
    pullZoneIds: data.pullZones.map((zone) => zone.id),
    shieldZoneIds: data.shieldZones.map((zone) => zone.id),
    dnsZoneIds: data.dnsZones.map((zone) => zone.Id),
    apiKeyIds: data.apiKeys.map((key) => key.Id),
    faults,
    requests,
    knobs,
    addPullZones,
    addPullZone(id, name = `zone-${id}`) {
      if (state.pullZones.has(id)) return;
      state.pullZones.set(id, {
        id,
        name,
        securityKey: `key-${id}`,
        originUrl: `https://origin.${name}.example.com`,
        hostnames: [`${name}.b-cdn.net`],
      });
    },
    pullZoneSecurityKey: (id) => state.pullZones.get(id)?.securityKey,
    botDetection: (id) => state.botDetection.get(id),
    databaseProcessId: () => database.processId(),
    databaseStatementsRunning: () => database.statementsRunning(),
    purges: () => [...state.purges],
    async close() {
      await Promise.all([closeServer(apiServer), closeServer(databaseServer)]);
      await hrana.close();
      await database.close();
    },
  };
}
