/**
 * `/edge stats PULLZONE_ID [--last 6h | --from T --to T]`: is the edge itself failing? The zone is
 * checked first (GET /pullzone/{id}; of its body only the name is kept, never logged), then the
 * window and the one before it are read from GET /statistics at once, and the charts are drawn
 * off the event loop.
 */
import { z } from 'zod';
import { PlatformError } from '../../platform/errors.js';
import { type EdgeStatistics, HOURLY_STATISTICS_MAX_MS } from '../../platform/statistics.js';
import type { Reply } from '../../reply/model.js';
import { statsFilename } from '../../reports/filenames.js';
import { UserFacingError } from '../engine/errors.js';
import { defineOperation, type ParseResult, type RunContext } from '../engine/types.js';
import { PullZoneIdArg } from '../shared/ids.js';
import { noDefaultError } from '../zones/context.js';
import { renderNoPoints, renderStatsHeadline, type StatsResult, statsCharts } from './render.js';
import { parseStatsWindow, previousWindow } from './window.js';

const HOUR_MS = 3_600_000;
const EXAMPLE = '/edge stats 308006 --last 6h';

const ArgsSchema = z.object({
  pullZoneId: PullZoneIdArg.optional(),
  window: z.strictObject({ startMs: z.number(), endMs: z.number(), lastMs: z.number().optional() }),
});
type StatsArgs = z.infer<typeof ArgsSchema>;

/** Day words belong to `/edge logs`; here the window is a length or two instants. */
const looksLikeDay = (word: string) =>
  /^(today|yesterday)$/i.test(word) || /^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$/.test(word);

/** The points whose hour (or day) meets the window, and how many the platform dated outside it. */
function withinWindow(
  stats: EdgeStatistics,
  window: { startMs: number; endMs: number },
  stepMs: number,
): { stats: EdgeStatistics; outside: number } {
  const points = stats.points.filter(
    (point) => point.atMs + stepMs > window.startMs && point.atMs < window.endMs,
  );
  return { stats: { ...stats, points }, outside: stats.points.length - points.length };
}

async function answer(ctx: RunContext, pullZoneId: number, window: StatsArgs['window']): Promise<Reply> {
  const { platform } = ctx.services;
  const zone = await platform.getPullZone(pullZoneId);
  const nowMs = ctx.services.now();
  const previous = previousWindow(window);
  const stepMs = window.endMs - window.startMs <= HOURLY_STATISTICS_MAX_MS ? HOUR_MS : 24 * HOUR_MS;
  const [asked, before] = await Promise.all([
    platform.getStatistics({ pullZoneId, fromMs: window.startMs, toMs: window.endMs }),
    platform
      .getStatistics({ pullZoneId, fromMs: previous.startMs, toMs: previous.endMs })
      .catch((error: unknown): { failed: string } => {
        // The window's own numbers stand without the comparison.
        if (!(error instanceof PlatformError)) throw error;
        ctx.logger.warn('statistics of the previous window could not be read', { error });
        // With the id of the warning above, when the cause is not one the reader can fix.
        return { failed: error.shownWith(ctx.correlationId).replace(/\.$/, '') };
      }),
  ]);
  // A point the platform dates outside the window is not this window's: left out, and said so.
  const { stats: current, outside } = withinWindow(asked, window, stepMs);
  const base = {
    pullZoneId,
    zoneName: zone.name,
    window,
    current,
    outside,
    stepMs,
    nowMs,
    requester: ctx.userId,
    filename: statsFilename(pullZoneId, window.startMs, window.endMs),
  };
  if (current.points.length === 0) return renderNoPoints(base);
  const previousPoints = 'failed' in before ? before : withinWindow(before, previous, stepMs).stats;
  const result: StatsResult = { ...base, previous: previousPoints };
  const charts = statsCharts(result);
  const pictures = (await ctx.services.charts.drawAll(charts)) ?? charts.map(() => undefined);
  return renderStatsHeadline({ ...result, pictures });
}

/** `/edge stats [PULLZONE_ID] [--last 6h | --from T --to T]`. */
export const stats = defineOperation({
  id: 'stats.view',
  words: ['stats'],
  usage: '/edge stats [PULLZONE_ID] [--last 6h | --from T --to T]',
  summary:
    "a pull zone's edge numbers (requests, bandwidth, cache hit rate, 4xx and 5xx shares, origin response time) against the window before, charts and CSV in the thread",
  example: EXAMPLE,
  flags: {
    last: { kind: 'string', aliases: ['since'], value: 'duration' },
    from: { kind: 'string', value: 'instant' },
    to: { kind: 'string', value: 'instant' },
  },
  parse(positionals, flags, { now }): ParseResult<StatsArgs> {
    const [zone, extra] = positionals;
    if (zone !== undefined && looksLikeDay(zone))
      return {
        ok: false,
        error: `/edge stats takes no day ("${zone.slice(0, 20)}"): use --last 24h, or --from 2026-11-20T00:00Z --to 2026-11-21T00:00Z`,
      };
    if (extra !== undefined)
      return {
        ok: false,
        error: looksLikeDay(extra)
          ? `/edge stats takes no day ("${extra.slice(0, 20)}"): use --last 24h, or --from and --to`
          : `unexpected argument "${extra.slice(0, 40)}"`,
      };
    const window = parseStatsWindow({ last: flags.last, from: flags.from, to: flags.to }, now);
    if (!window.ok) return { ok: false, error: window.error };
    const parsed = ArgsSchema.safeParse({ pullZoneId: zone, window: window.window });
    if (!parsed.success) return { ok: false, error: parsed.error.issues[0]!.message };
    return { ok: true, args: parsed.data };
  },
  channelDefault: {
    kind: 'pullzone',
    missing: (args) => args.pullZoneId === undefined,
    fill: (args, id) => ({ ...args, pullZoneId: id }),
    absent: noDefaultError('pullzone', EXAMPLE),
  },
  target: (args) => (args.pullZoneId === undefined ? undefined : String(args.pullZoneId)),
  run: async (ctx, { pullZoneId, window }) => {
    if (pullZoneId === undefined) throw new UserFacingError(noDefaultError('pullzone', EXAMPLE));
    return answer(ctx, pullZoneId, window);
  },
});
