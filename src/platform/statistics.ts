/**
 * GET /statistics (the vendor's published core API, beyond the spec's nine operations): a pull
 * zone's edge numbers for a window, totals and one chart map per series. The maps are keyed by
 * date strings the vendor shows no example of; they are read as ISO 8601 date-times, with or
 * without a zone (none means UTC), and a map that is missing or null is a zone without traffic.
 */
import { utc } from '@date-fns/utc';
import { z } from 'zod';
import { isValid, parseISO } from '../time/date-fns.js';
import { endpoint, type PlatformContext } from './context.js';
import { invalidRequest } from './errors.js';

/** Hourly points for windows up to 7 days, daily beyond (the vendor's `hourly` flag). */
export const HOURLY_STATISTICS_MAX_MS = 7 * 86_400_000;

const StatisticsQuerySchema = z.strictObject({
  pullZoneId: z.number().int().positive({ error: 'the pull zone id must be a positive whole number' }),
  fromMs: z.number().int(),
  toMs: z.number().int(),
});
export type StatisticsQuery = z.infer<typeof StatisticsQuerySchema>;

/** A chart of the vendor's StatisticsModel: a value per date string; null or absent without traffic. */
const ChartMapSchema = z.record(z.string(), z.number().nullish()).nullish();
const TotalSchema = z.number().nullish();

/** The StatisticsModel fields the answer shows; the rest of the body passes unread. */
const StatisticsBodySchema = z.object({
  TotalRequestsServed: TotalSchema,
  TotalBandwidthUsed: TotalSchema,
  /** A percentage, 0–100, as the vendor's dashboard shows it. */
  CacheHitRate: TotalSchema,
  /** Named "average" but described by the vendor as the median origin response time, in ms. */
  AverageOriginResponseTime: TotalSchema,
  RequestsServedChart: ChartMapSchema,
  /** Requests the edge passed to the origin: uncached ones. */
  PullRequestsPulledChart: ChartMapSchema,
  BandwidthUsedChart: ChartMapSchema,
  CacheHitRateChart: ChartMapSchema,
  Error4xxChart: ChartMapSchema,
  Error5xxChart: ChartMapSchema,
  OriginResponseTimeChart: ChartMapSchema,
});

/** The series of one point; null where the platform gave no value. */
export interface StatisticsPoint {
  atMs: number;
  requests: number | null;
  originRequests: number | null;
  bandwidthBytes: number | null;
  /** 0–100. */
  cacheHitRate: number | null;
  errors4xx: number | null;
  errors5xx: number | null;
  originResponseMs: number | null;
}

export interface EdgeStatistics {
  totals: {
    requests: number | null;
    bandwidthBytes: number | null;
    /** 0–100. */
    cacheHitRate: number | null;
    /** Median origin response time, ms. */
    originResponseMs: number | null;
  };
  /** Oldest first, one per date any chart named. */
  points: StatisticsPoint[];
  /** Chart keys that are no ISO 8601 date-time, left out of the points. */
  unreadKeys: number;
}

type SeriesName = Exclude<keyof StatisticsPoint, 'atMs'>;

const SERIES: readonly (readonly [SeriesName, keyof z.infer<typeof StatisticsBodySchema>])[] = [
  ['requests', 'RequestsServedChart'],
  ['originRequests', 'PullRequestsPulledChart'],
  ['bandwidthBytes', 'BandwidthUsedChart'],
  ['cacheHitRate', 'CacheHitRateChart'],
  ['errors4xx', 'Error4xxChart'],
  ['errors5xx', 'Error5xxChart'],
  ['originResponseMs', 'OriginResponseTimeChart'],
];

/** A chart key as an instant: ISO 8601 with or without a zone (none means UTC); NaN otherwise. */
export function chartKeyInstant(key: string): number {
  if (!/^\d{4}-\d{2}-\d{2}/.test(key.trim())) return Number.NaN;
  const date = parseISO(key.trim(), { in: utc });
  return isValid(date) ? date.getTime() : Number.NaN;
}

const finite = (value: number | null | undefined) =>
  value === null || value === undefined || !Number.isFinite(value) ? null : value;

export const EdgeStatisticsSchema = StatisticsBodySchema.transform((body): EdgeStatistics => {
  const points = new Map<number, StatisticsPoint>();
  let unreadKeys = 0;
  for (const [series, field] of SERIES) {
    const chart = body[field] as Record<string, number | null | undefined> | null | undefined;
    for (const [key, value] of Object.entries(chart ?? {})) {
      const atMs = chartKeyInstant(key);
      if (Number.isNaN(atMs)) {
        unreadKeys++;
        continue;
      }
      let point = points.get(atMs);
      if (!point) {
        point = {
          atMs,
          requests: null,
          originRequests: null,
          bandwidthBytes: null,
          cacheHitRate: null,
          errors4xx: null,
          errors5xx: null,
          originResponseMs: null,
        };
        points.set(atMs, point);
      }
      point[series] = finite(value);
    }
  }
  return {
    totals: {
      requests: finite(body.TotalRequestsServed),
      bandwidthBytes: finite(body.TotalBandwidthUsed),
      cacheHitRate: finite(body.CacheHitRate),
      originResponseMs: finite(body.AverageOriginResponseTime),
    },
    points: [...points.values()].sort((a, b) => a.atMs - b.atMs),
    unreadKeys,
  };
});

/**
 * GET /statistics for one pull zone and window, with errors, origin response times, requests
 * and bandwidth: hourly points with the window's exact hours up to 7 days, daily points beyond.
 */
export async function getStatistics(
  ctx: PlatformContext,
  input: StatisticsQuery,
  signal?: AbortSignal,
): Promise<EdgeStatistics> {
  const query = StatisticsQuerySchema.safeParse(input);
  if (!query.success) throw invalidRequest('statistics', query.error);
  const { pullZoneId, fromMs, toMs } = query.data;
  const hourly = toMs - fromMs <= HOURLY_STATISTICS_MAX_MS;
  return ctx.http.json(
    {
      operation: 'statistics',
      subject: `pull zone ${pullZoneId}`,
      lookup: '/edge pullzones',
      method: 'GET',
      url: endpoint(ctx.apiUrl, '/statistics'),
      query: {
        pullZone: pullZoneId,
        dateFrom: new Date(fromMs).toISOString(),
        dateTo: new Date(toMs).toISOString(),
        ...(hourly ? { hourly: 'true', exactRange: 'true' } : {}),
        loadErrors: 'true',
        loadOriginResponseTimes: 'true',
        loadRequestsServed: 'true',
        loadBandwidthUsed: 'true',
      },
      read: true,
      expect: [200],
      signal,
    },
    EdgeStatisticsSchema,
  );
}
