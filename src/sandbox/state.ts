/**
 * The mutable account behind the sandbox routes: seeded data plus what requests change
 * (new libraries and their zones, reset keys, bot-detection configurations, purges).
 */
import type { HranaService } from './hrana.js';
import type { KnobState } from './knobs.js';
import { type PullZone, SEEDED_IDS, type SeedData, type ShieldZone } from './seed.js';
import type { DatabaseTokens } from './tokens.js';
import type { BotDetectionConfig } from './vendor-rules.js';

export interface SandboxState {
  apiKey: string;
  seed: number;
  now: () => number;
  data: SeedData;
  pullZones: Map<number, PullZone>;
  shieldZones: Map<number, ShieldZone>;
  botDetection: Map<number, BotDetectionConfig>;
  /** Ids handed to the next video library and its zones. */
  nextIds: { library: number; pullZone: number; storageZone: number };
  knobs: KnobState;
  databaseId: string;
  tokens: DatabaseTokens;
  hrana: HranaService;
  /** What was purged, oldest first: the statistics show a purge's dip in cache hits after it. */
  purges: PurgeRecord[];
}

/** One accepted purge: a URL (`POST /purge`) or a whole zone, or one cache tag of it (`purgeCache`). */
export interface PurgeRecord {
  at: number;
  pullZoneId: number;
  url?: string;
  cacheTag?: string;
}

/** What a Shield zone reports before anyone changes it: log-only, medium sensitivity. */
export function defaultBotDetection(shieldZoneId: number): BotDetectionConfig {
  return {
    shieldZoneId,
    executionMode: 0,
    requestIntegrity: { sensitivity: 2 },
    ipAddress: { sensitivity: 2 },
    browserFingerprint: { sensitivity: 2, aggression: 2, complexEnabled: false },
  };
}

export function createState(
  parts: Omit<SandboxState, 'pullZones' | 'shieldZones' | 'botDetection' | 'nextIds' | 'purges'>,
): SandboxState {
  const shieldZones = new Map(parts.data.shieldZones.map((zone) => [zone.id, zone]));
  const botDetection = new Map<number, BotDetectionConfig>();
  for (const zone of parts.data.shieldZones) {
    if (zone.planType === 1) botDetection.set(zone.id, defaultBotDetection(zone.id));
  }
  return {
    ...parts,
    pullZones: new Map(parts.data.pullZones.map((zone) => [zone.id, zone])),
    shieldZones,
    botDetection,
    nextIds: { library: 245_001, pullZone: SEEDED_IDS.bigPullZone + 1_000, storageZone: 830_001 },
    purges: [],
  };
}
