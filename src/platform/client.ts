/**
 * The platform client: one typed function per operation of the spec, bound to one HTTP
 * core. Everything else in the product calls the platform through this object.
 */
import type { Logger } from '../telemetry/log.js';
import type { PlatformCallEvent } from '../telemetry/metrics.js';
import { listApiKeys } from './api-keys.js';
import type { PlatformContext } from './context.js';
import { generateDatabaseToken, getDatabase, revokeDatabaseTokens } from './database-tokens.js';
import { listDnsZones } from './dns-zones.js';
import { PlatformHttp, type PlatformHttpOptions } from './http.js';
import { getOriginErrorLogs } from './origin-logs.js';
import { getPullZone, listPullZones, resetPullZoneSecurityKey } from './pull-zones.js';
import { purgePullZoneCache, purgeUrl } from './purge.js';
import { exportShieldEventLogs, getBotDetection, getWafEnums, updateBotDetection } from './shield.js';
import { listShieldZones } from './shield-zones.js';
import { getStatistics } from './statistics.js';
import { createVideoLibrary } from './video-libraries.js';

export interface PlatformClientOptions extends Omit<PlatformHttpOptions, 'logger' | 'onCall'> {
  apiUrl: string;
  apiKey: string;
  loggingUrl: string;
  databaseApiUrl: string;
  logger?: Logger;
  onCall?: (event: PlatformCallEvent) => void;
}

type Bound<F> = F extends (ctx: PlatformContext, ...args: infer A) => infer R ? (...args: A) => R : never;

export interface PlatformClient {
  createVideoLibrary: Bound<typeof createVideoLibrary>;
  listApiKeys: Bound<typeof listApiKeys>;
  resetPullZoneSecurityKey: Bound<typeof resetPullZoneSecurityKey>;
  listPullZones: Bound<typeof listPullZones>;
  listShieldZones: Bound<typeof listShieldZones>;
  listDnsZones: Bound<typeof listDnsZones>;
  updateBotDetection: Bound<typeof updateBotDetection>;
  getBotDetection: Bound<typeof getBotDetection>;
  getWafEnums: Bound<typeof getWafEnums>;
  exportShieldEventLogs: Bound<typeof exportShieldEventLogs>;
  getOriginErrorLogs: Bound<typeof getOriginErrorLogs>;
  getDatabase: Bound<typeof getDatabase>;
  getPullZone: Bound<typeof getPullZone>;
  generateDatabaseToken: Bound<typeof generateDatabaseToken>;
  revokeDatabaseTokens: Bound<typeof revokeDatabaseTokens>;
  getStatistics: Bound<typeof getStatistics>;
  purgeUrl: Bound<typeof purgeUrl>;
  purgePullZoneCache: Bound<typeof purgePullZoneCache>;
  close(): Promise<void>;
}

export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const http = new PlatformHttp({ AccessKey: options.apiKey }, options);
  const ctx: PlatformContext = {
    http,
    apiUrl: options.apiUrl,
    loggingUrl: options.loggingUrl,
    databaseApiUrl: options.databaseApiUrl,
    now: options.now,
  };
  return {
    createVideoLibrary: (...args) => createVideoLibrary(ctx, ...args),
    listApiKeys: (...args) => listApiKeys(ctx, ...args),
    resetPullZoneSecurityKey: (...args) => resetPullZoneSecurityKey(ctx, ...args),
    listPullZones: (...args) => listPullZones(ctx, ...args),
    listShieldZones: (...args) => listShieldZones(ctx, ...args),
    listDnsZones: (...args) => listDnsZones(ctx, ...args),
    updateBotDetection: (...args) => updateBotDetection(ctx, ...args),
    getBotDetection: (...args) => getBotDetection(ctx, ...args),
    getWafEnums: () => getWafEnums(ctx),
    exportShieldEventLogs: (...args) => exportShieldEventLogs(ctx, ...args),
    getOriginErrorLogs: (...args) => getOriginErrorLogs(ctx, ...args),
    getDatabase: (...args) => getDatabase(ctx, ...args),
    getPullZone: (...args) => getPullZone(ctx, ...args),
    generateDatabaseToken: (...args) => generateDatabaseToken(ctx, ...args),
    revokeDatabaseTokens: (...args) => revokeDatabaseTokens(ctx, ...args),
    getStatistics: (...args) => getStatistics(ctx, ...args),
    purgeUrl: (...args) => purgeUrl(ctx, ...args),
    purgePullZoneCache: (...args) => purgePullZoneCache(ctx, ...args),
    close: () => http.close(),
  };
}
