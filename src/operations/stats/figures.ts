/**
 * The headline numbers of a window of edge statistics, worked out from what the platform sent:
 * its totals where it gave them, else the points summed. Error shares are the 4xx and 5xx
 * responses over the requests served; the cache hit rate is a percentage (0–100), as the
 * vendor's dashboard shows it.
 */
import type { EdgeStatistics, StatisticsPoint } from '../../platform/statistics.js';

export interface EdgeFigures {
  requests: number | null;
  bandwidthBytes: number | null;
  /** 0–100. */
  cacheHitRate: number | null;
  /** Percent of requests; null without an error chart or requests. */
  share4xx: number | null;
  share5xx: number | null;
  /** Median, ms. */
  originResponseMs: number | null;
  points: number;
}

/** The point where an error share was highest. */
export interface WorstPoint {
  kind: '5xx' | '4xx';
  share: number;
  atMs: number;
}

const sumOf = (points: readonly StatisticsPoint[], pick: (point: StatisticsPoint) => number | null) => {
  let total: number | null = null;
  for (const point of points) {
    const value = pick(point);
    if (value !== null) total = (total ?? 0) + value;
  }
  return total;
};

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A share in percent of `requests`; null when either is unknown or nothing was served. */
export const shareOf = (count: number | null, requests: number | null): number | null =>
  count === null || requests === null || requests <= 0 ? null : (count / requests) * 100;

export function edgeFigures(stats: EdgeStatistics): EdgeFigures {
  const { totals, points } = stats;
  const requests = totals.requests ?? sumOf(points, (point) => point.requests);
  const weightedHits = sumOf(points, (point) =>
    point.cacheHitRate === null || point.requests === null ? null : point.cacheHitRate * point.requests,
  );
  const pointRequests = sumOf(points, (point) => (point.cacheHitRate === null ? null : point.requests));
  return {
    requests,
    bandwidthBytes: totals.bandwidthBytes ?? sumOf(points, (point) => point.bandwidthBytes),
    cacheHitRate:
      totals.cacheHitRate ?? (weightedHits !== null && pointRequests ? weightedHits / pointRequests : null),
    share4xx: shareOf(
      sumOf(points, (point) => point.errors4xx),
      requests,
    ),
    share5xx: shareOf(
      sumOf(points, (point) => point.errors5xx),
      requests,
    ),
    originResponseMs:
      totals.originResponseMs ??
      median(points.flatMap((point) => (point.originResponseMs === null ? [] : [point.originResponseMs]))),
    points: points.length,
  };
}

/** The point with the highest 5xx share, or of 4xx when no point had a 5xx; undefined without errors. */
export function worstPoint(points: readonly StatisticsPoint[]): WorstPoint | undefined {
  for (const kind of ['5xx', '4xx'] as const) {
    let worst: WorstPoint | undefined;
    for (const point of points) {
      const share = shareOf(kind === '5xx' ? point.errors5xx : point.errors4xx, point.requests);
      if (share !== null && share > 0 && (!worst || share > worst.share))
        worst = { kind, share, atMs: point.atMs };
    }
    if (worst) return worst;
  }
  return undefined;
}
