/**
 * GET /statistics (the vendor's published core API): a pull zone's edge numbers, totals and a
 * chart per series keyed by date-times without a zone, as .NET writes them (the vendor shows no
 * example). Hourly points with `hourly=true`, from the hour of `dateFrom` with `exactRange=true`
 * and from its day otherwise; daily points without it. No dates means the last 30 days;
 * `pullZone` left out (or -1) sums every zone. A query value that does not bind is a 400 with
 * ApiErrorData, as the core API answers its validation errors.
 */
import { utc } from '@date-fns/utc';
import { isValid, parseISO } from '../../time/date-fns.js';
import { hasAccountKey, sendApiError, sendEmpty, sendJson } from '../http.js';
import type { Route } from '../router.js';
import type { SandboxState } from '../state.js';
import { HOUR_MS, type TrafficHour, trafficHour } from '../statistics.js';

const DAY_MS = 24 * HOUR_MS;
/** Enough hours for years of hourly points; a longer range is refused rather than computed. */
const MAX_HOURS = 200_000;

const BOOLEAN_PARAMETERS = [
  'loadErrors',
  'hourly',
  'exactRange',
  'loadOriginResponseTimes',
  'loadOriginTraffic',
  'loadRequestsServed',
  'loadBandwidthUsed',
  'loadOriginShieldBandwidth',
  'loadGeographicTrafficDistribution',
  'loadUserBalanceHistory',
] as const;
type BooleanParameter = (typeof BOOLEAN_PARAMETERS)[number];

interface StatisticsQuery {
  fromMs: number;
  toMs: number;
  pullZone: number;
  flags: Record<BooleanParameter, boolean>;
}

type Bound = { ok: true; query: StatisticsQuery } | { ok: false; field: string; message: string };

function bindQuery(url: URL, nowMs: number): Bound {
  const flags = {} as Record<BooleanParameter, boolean>;
  for (const name of BOOLEAN_PARAMETERS) {
    const raw = url.searchParams.get(name);
    if (raw === null || raw === '') flags[name] = false;
    else if (/^(true|false)$/i.test(raw)) flags[name] = raw.toLowerCase() === 'true';
    else return { ok: false, field: name, message: `The value '${raw}' is not valid for ${name}.` };
  }
  const integers: Record<string, number> = {};
  for (const name of ['pullZone', 'serverZoneId']) {
    const raw = url.searchParams.get(name);
    if (raw === null || raw === '') integers[name] = -1;
    else if (/^-?\d{1,18}$/.test(raw)) integers[name] = Number(raw);
    else return { ok: false, field: name, message: `The value '${raw}' is not valid for ${name}.` };
  }
  const instants: Record<string, number | undefined> = {};
  for (const name of ['dateFrom', 'dateTo']) {
    const raw = url.searchParams.get(name);
    if (raw === null || raw === '') continue;
    const date = /^\d{4}-\d{2}-\d{2}/.test(raw) ? parseISO(raw, { in: utc }) : undefined;
    if (!date || !isValid(date))
      return { ok: false, field: name, message: `The value '${raw}' is not valid for ${name}.` };
    instants[name] = date.getTime();
  }
  const toMs = instants.dateTo ?? nowMs;
  const fromMs = instants.dateFrom ?? toMs - 30 * DAY_MS;
  if (fromMs > toMs) return { ok: false, field: 'dateFrom', message: 'dateFrom must be before dateTo.' };
  if ((toMs - fromMs) / HOUR_MS > MAX_HOURS)
    return { ok: false, field: 'dateFrom', message: 'The requested date range is too long.' };
  return { ok: true, query: { fromMs, toMs, pullZone: integers.pullZone!, flags } };
}

/** `2026-11-21T14:00:00`: no zone, as a .NET DateTime of unspecified kind is written. */
const chartKey = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/** The traffic of several hours (or zones) as one point: sums, and rates weighted by requests. */
function merge(startMs: number, hours: readonly TrafficHour[]): TrafficHour {
  const sum = (pick: (hour: TrafficHour) => number) => hours.reduce((total, hour) => total + pick(hour), 0);
  const requests = sum((hour) => hour.requests);
  const originRequests = sum((hour) => hour.originRequests);
  return {
    startMs,
    requests,
    originRequests,
    bandwidthBytes: sum((hour) => hour.bandwidthBytes),
    cachedBytes: sum((hour) => hour.cachedBytes),
    errors3xx: sum((hour) => hour.errors3xx),
    errors4xx: sum((hour) => hour.errors4xx),
    errors5xx: sum((hour) => hour.errors5xx),
    cacheHitRate:
      requests === 0
        ? 0
        : Math.round((sum((hour) => hour.cacheHitRate * hour.requests) / requests) * 100) / 100,
    originMs:
      originRequests === 0
        ? 0
        : Math.round(sum((hour) => hour.originMs * hour.originRequests) / originRequests),
  };
}

function byDay(hours: readonly TrafficHour[]): TrafficHour[] {
  const days = new Map<number, TrafficHour[]>();
  for (const hour of hours) {
    const day = Math.floor(hour.startMs / DAY_MS) * DAY_MS;
    days.set(day, [...(days.get(day) ?? []), hour]);
  }
  return [...days].map(([day, of]) => merge(day, of));
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}

export function statisticsRoutes(state: SandboxState): Route[] {
  /** Every hour of the zones asked for from `fromMs` (an hour's start) to before `toMs`, up to now. */
  const hoursOf = (zones: readonly number[], fromMs: number, toMs: number): TrafficHour[] => {
    const now = state.now();
    const hours: TrafficHour[] = [];
    for (let start = fromMs; start < toMs; start += HOUR_MS) {
      const perZone = zones.flatMap((zone) => trafficHour(state.seed, zone, start, now, state.purges) ?? []);
      if (perZone.length > 0) hours.push(merge(start, perZone));
    }
    return hours;
  };

  return [
    {
      id: 'statistics',
      listener: 'api',
      method: 'GET',
      path: /^\/statistics$/,
      handle({ req, res, url }) {
        if (!hasAccountKey(req, state.apiKey, { bearer: true })) return sendEmpty(res, 401);
        const bound = bindQuery(url, state.now());
        if (!bound.ok) return sendApiError(res, 'validation_error', bound.field, bound.message);
        const { fromMs, toMs, pullZone, flags } = bound.query;
        const zones =
          pullZone === -1 ? [...state.pullZones.keys()] : state.pullZones.has(pullZone) ? [pullZone] : [];
        const exact = flags.hourly && flags.exactRange;
        const startMs = exact ? Math.floor(fromMs / HOUR_MS) * HOUR_MS : Math.floor(fromMs / DAY_MS) * DAY_MS;
        const endMs = exact ? toMs : Math.floor(toMs / DAY_MS) * DAY_MS + DAY_MS;
        const hours = hoursOf(zones, startMs, endMs);
        const points = flags.hourly ? hours : byDay(hours);
        const total = merge(startMs, hours);
        const chart = (load: boolean, pick: (point: TrafficHour) => number) =>
          load ? Object.fromEntries(points.map((point) => [chartKey(point.startMs), pick(point)])) : null;
        sendJson(res, 200, {
          TotalBandwidthUsed: total.bandwidthBytes,
          TotalOriginTraffic: flags.loadOriginTraffic
            ? Math.round(total.bandwidthBytes * (1 - total.cacheHitRate / 100))
            : 0,
          AverageOriginResponseTime: median(hours.map((hour) => hour.originMs)),
          OriginResponseTimeChart: chart(flags.loadOriginResponseTimes, (point) => point.originMs),
          TotalRequestsServed: total.requests,
          CacheHitRate: total.cacheHitRate,
          BandwidthUsedChart: chart(flags.loadBandwidthUsed, (point) => point.bandwidthBytes),
          BandwidthCachedChart: chart(flags.loadBandwidthUsed, (point) => point.cachedBytes),
          CacheHitRateChart: chart(true, (point) => point.cacheHitRate),
          RequestsServedChart: chart(flags.loadRequestsServed, (point) => point.requests),
          PullRequestsPulledChart: chart(flags.loadRequestsServed, (point) => point.originRequests),
          OriginShieldBandwidthUsedChart: null,
          OriginShieldInternalBandwidthUsedChart: null,
          OriginTrafficChart: chart(flags.loadOriginTraffic, (point) =>
            Math.round(point.bandwidthBytes * (1 - point.cacheHitRate / 100)),
          ),
          UserBalanceHistoryChart: null,
          GeoTrafficDistribution: null,
          Error3xxChart: chart(flags.loadErrors, (point) => point.errors3xx),
          Error4xxChart: chart(flags.loadErrors, (point) => point.errors4xx),
          Error5xxChart: chart(flags.loadErrors, (point) => point.errors5xx),
        });
      },
    },
  ];
}
