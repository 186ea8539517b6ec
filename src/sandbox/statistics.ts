/**
 * The seeded zones' edge traffic, hour by hour: the same seed, zone and hour always give the same
 * numbers, so a window is computed on demand instead of stored. Each zone has its own scale (the
 * firehose busiest, quiet-static nearly idle), a daily rhythm peaking in the UTC afternoon, now
 * and then an hour of origin trouble (5xx and slow responses), and after a purge the cache hit
 * rate dips while origin requests and response times rise, for a few hours.
 */
import { createRandom } from './random.js';
import { SEEDED_IDS } from './seed.js';
import type { PurgeRecord } from './state.js';

export const HOUR_MS = 3_600_000;

interface ZoneTraffic {
  requestsPerHour: number;
  bytesPerRequest: number;
  /** Percent of requests served from the cache. */
  cacheHitRate: number;
  originMs: number;
}

const TRAFFIC: Readonly<Record<number, ZoneTraffic>> = {
  [SEEDED_IDS.pullZone]: {
    requestsPerHour: 180_000,
    bytesPerRequest: 45_000,
    cacheHitRate: 92,
    originMs: 180,
  },
  [SEEDED_IDS.mediaPullZone]: {
    requestsPerHour: 60_000,
    bytesPerRequest: 900_000,
    cacheHitRate: 97,
    originMs: 240,
  },
  [SEEDED_IDS.apiPullZone]: {
    requestsPerHour: 40_000,
    bytesPerRequest: 3_000,
    cacheHitRate: 55,
    originMs: 95,
  },
  [SEEDED_IDS.quietPullZone]: {
    requestsPerHour: 300,
    bytesPerRequest: 20_000,
    cacheHitRate: 99,
    originMs: 60,
  },
  [SEEDED_IDS.bigPullZone]: {
    requestsPerHour: 2_500_000,
    bytesPerRequest: 60_000,
    cacheHitRate: 88,
    originMs: 210,
  },
};
const OTHER_ZONE: ZoneTraffic = {
  requestsPerHour: 1_000,
  bytesPerRequest: 30_000,
  cacheHitRate: 90,
  originMs: 150,
};

/** A whole-zone purge empties the cache; a cache tag part of it; one URL barely shows. */
const PURGE_STRENGTH = { zone: 1, tag: 0.5, url: 0.06 } as const;
/** How long a purge's effect takes to fade: a third of it is left after this long. */
const PURGE_FADE_MS = 1.5 * HOUR_MS;
/** Past this, a purge no longer shows. */
const PURGE_REACH_MS = 6 * HOUR_MS;

/** One hour of a zone's traffic (or the part of it before now, for the running hour). */
export interface TrafficHour {
  startMs: number;
  requests: number;
  originRequests: number;
  bandwidthBytes: number;
  /** Bytes served from the cache. */
  cachedBytes: number;
  errors3xx: number;
  errors4xx: number;
  errors5xx: number;
  /** Percent. */
  cacheHitRate: number;
  originMs: number;
}

/** How much of the cache the zone's purges emptied at `atMs`: 0 none, 1 all of it. */
function purgeEffect(purges: readonly PurgeRecord[], pullZoneId: number, atMs: number): number {
  let missing = 0;
  for (const purge of purges) {
    if (purge.pullZoneId !== pullZoneId || purge.at > atMs || atMs - purge.at > PURGE_REACH_MS) continue;
    const strength =
      purge.url !== undefined
        ? PURGE_STRENGTH.url
        : purge.cacheTag !== undefined
          ? PURGE_STRENGTH.tag
          : PURGE_STRENGTH.zone;
    missing = 1 - (1 - missing) * (1 - strength * Math.exp(-(atMs - purge.at) / PURGE_FADE_MS));
  }
  return missing;
}

/** 0.55 at 02:00 UTC to 1.45 at 14:00 UTC. */
const dailyRhythm = (startMs: number) =>
  1 + 0.45 * Math.sin((((startMs / HOUR_MS) % 24) - 8) * (Math.PI / 12));

/**
 * The zone's traffic in the hour starting at `startMs` (a whole hour); the running hour counts
 * only what came before `nowMs`. Undefined for an hour that has not begun.
 */
export function trafficHour(
  seed: number,
  pullZoneId: number,
  startMs: number,
  nowMs: number,
  purges: readonly PurgeRecord[],
): TrafficHour | undefined {
  if (startMs >= nowMs) return undefined;
  const zone = TRAFFIC[pullZoneId] ?? OTHER_ZONE;
  const random = createRandom(seed, 'statistics', pullZoneId, startMs);
  const elapsed = Math.min(1, (nowMs - startMs) / HOUR_MS);
  const requests = Math.round(
    zone.requestsPerHour * dailyRhythm(startMs) * (0.9 + 0.2 * random.next()) * elapsed,
  );
  // An hour of origin trouble about once in two days.
  const trouble = random.next() < 0.02;
  // The purge's effect at the middle of the part of the hour that has passed.
  const purged = purgeEffect(purges, pullZoneId, startMs + (elapsed * HOUR_MS) / 2);
  const baseHit = Math.min(99.5, zone.cacheHitRate + (random.next() - 0.5) * 3);
  const cacheHitRate = baseHit - (baseHit - 5) * purged;
  const originRequests = Math.round(requests * (1 - cacheHitRate / 100));
  const share4xx = 0.008 + 0.012 * random.next();
  const share5xx = trouble ? 0.02 + 0.04 * random.next() : 0.0005 + 0.002 * random.next() + 0.01 * purged;
  const originMs = zone.originMs * (0.85 + 0.3 * random.next()) * (1 + 1.5 * purged) * (trouble ? 3 : 1);
  const bandwidthBytes = Math.round(requests * zone.bytesPerRequest * (0.9 + 0.2 * random.next()));
  return {
    startMs,
    requests,
    originRequests,
    bandwidthBytes,
    cachedBytes: Math.round((bandwidthBytes * cacheHitRate) / 100),
    errors3xx: Math.round(requests * 0.02 * random.next()),
    errors4xx: Math.round(requests * share4xx),
    errors5xx: Math.round(requests * share5xx),
    cacheHitRate: Math.round(cacheHitRate * 100) / 100,
    originMs: Math.round(originMs),
  };
}
