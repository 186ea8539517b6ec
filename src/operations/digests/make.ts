/**
 * What one occurrence of a digest posts: for logs, the headline and breakdown `/edge logs` gives
 * for the period (in daily counts from 72 hours on), read through the kept days; for Shield, the
 * export's summary of at most the last 71 hours. A quiet period is one line.
 */
import { rm } from 'node:fs/promises';
import type { PlatformClient } from '../../platform/client.js';
import { EXPORT_WINDOW_HOURS, type ExportFilter, type ExportRequest } from '../../platform/schemas.js';
import { md } from '../../reply/markup.js';
import type { Reply } from '../../reply/model.js';
import { bucketGrid, DAY_MS, HOUR_MS } from '../../reports/origin/window.js';
import type { ReportPool } from '../../reports/pool.js';
import type { SecretRegistry } from '../../secrets/registry.js';
import type { Digest } from '../../state/digests.js';
import { type OriginWindowDeps, readOriginWindow } from '../logs/logs.js';
import { renderOriginHeadline } from '../logs/render.js';
import { formatLength } from '../logs/window.js';
import type { Job } from '../shared/long-job.js';
import { formatUtc } from '../shared/time-args.js';
import { parseFilter, readShieldExport, renderShieldExport } from '../shield/export.js';
import {
  describePeriod,
  digestContext,
  formatLocal,
  type OccurrenceNote,
  type Period,
  periodTitle,
  quietLine,
} from './render.js';

/** From this long on, a logs digest counts by the day. */
export const DAILY_FROM_MS = 72 * HOUR_MS;
/** The platform exports the last 72 hours: a Shield digest reads the last 71, leaving an hour of room. */
export const SHIELD_DIGEST_MAX_MS = (EXPORT_WINDOW_HOURS - 1) * HOUR_MS;

export interface DigestMakerDeps extends OriginWindowDeps {
  platform: Pick<PlatformClient, 'exportShieldEventLogs'>;
  reports: ReportPool;
  secrets: SecretRegistry;
}

/** What an occurrence posts, and how its run is recorded. */
export interface DigestPost {
  reply: Reply;
  outcome: 'posted' | 'quiet' | 'failed';
  /** Counted in the period, for the audit row. */
  count: number;
  /** A failure's correlation id, logged and shown in the post when its cause is unknown to the reader: the audit row's detail names it. */
  correlationId?: string;
}

/** The reply with the digest's own line first. */
const opened = (reply: Reply, digest: Digest, note: OccurrenceNote, more: Reply['blocks'] = []): Reply => ({
  ...reply,
  blocks: [digestContext(digest, note), ...more, ...reply.blocks],
});

async function makeLogsDigest(
  deps: DigestMakerDeps,
  digest: Digest,
  period: Period,
  note: OccurrenceNote,
  job: Pick<Job, 'signal' | 'status'>,
): Promise<DigestPost> {
  const window = { kind: 'range' as const, startMs: period.startMs, endMs: period.endMs };
  const daily = period.endMs - period.startMs >= DAILY_FROM_MS;
  const result = await readOriginWindow(
    deps,
    {
      pullZoneId: digest.zoneId,
      window,
      title: periodTitle(period, digest.timeZone, note.postedAt),
      ...(daily ? { grid: bucketGrid(window, DAY_MS) } : {}),
      requester: digest.owner,
    },
    job,
  );
  const { summary } = result;
  if (summary.total === 0) {
    const today = Math.floor(note.postedAt / DAY_MS) * DAY_MS;
    const empty = result.plan.windowDays.filter(
      (day, index) => day < today && (summary.days[index]?.entries ?? 0) === 0,
    );
    const caveat =
      empty.length > 0
        ? `The platform returned no entries at all for ${empty.map((day) => new Date(day).toISOString().slice(0, 10)).join(', ')} (UTC): it may keep fewer days.`
        : undefined;
    const text = `No origin errors on pull zone ${digest.zoneId} ${describePeriod(period, digest.timeZone, note.postedAt)}`;
    return { reply: quietLine(digest, text, note, caveat), outcome: 'quiet', count: 0 };
  }
  return {
    reply: opened(renderOriginHeadline(result), digest, note),
    outcome: 'posted',
    count: summary.total,
  };
}

/** The export's filters, as they were checked when the digest was set. */
function filtersOf(digest: Digest): ExportFilter[] {
  return digest.filters.flatMap((text) => {
    const parsed = parseFilter(text);
    return parsed.ok ? [parsed.filter] : [];
  });
}

async function makeShieldDigest(
  deps: DigestMakerDeps,
  digest: Digest,
  period: Period,
  note: OccurrenceNote,
  job: Pick<Job, 'signal' | 'status'>,
): Promise<DigestPost> {
  const from = Math.max(period.startMs, note.postedAt - SHIELD_DIGEST_MAX_MS);
  const to = period.endMs;
  const words = describePeriod(period, digest.timeZone, note.postedAt);
  if (to - from < 60_000)
    return {
      reply: quietLine(
        digest,
        `No Shield events could be read for zone ${digest.zoneId} ${words}`,
        note,
        `The platform exports the last ${EXPORT_WINDOW_HOURS} hours only, and this period ended before them.`,
      ),
      outcome: 'quiet',
      count: 0,
    };
  const filters = filtersOf(digest);
  const body: ExportRequest = {
    from,
    to,
    ...(digest.query ? { query: digest.query } : {}),
    ...(filters.length > 0 ? { filters } : {}),
  };
  const read = await readShieldExport(deps, digest.zoneId, body, job);
  const cut = from > period.startMs;
  const cutNote = cut
    ? `The period is ${formatLength(period.endMs - period.startMs)} long; the platform exports the last ${EXPORT_WINDOW_HOURS} hours only, so this covers its last part, from ${formatLocal(from, digest.timeZone)} (${formatUtc(from)}).`
    : undefined;
  if (read.written.rows === 0) {
    await rm(read.path, { force: true });
    const text = `No Shield events on zone ${digest.zoneId} ${cut ? `between ${formatLocal(from, digest.timeZone)} and ${formatLocal(to, digest.timeZone)}` : words}`;
    return { reply: quietLine(digest, text, note, cutNote), outcome: 'quiet', count: 0 };
  }
  const reply = renderShieldExport(digest.zoneId, body, read, {
    nowMs: note.postedAt,
    requester: digest.owner,
  });
  const more = cutNote ? [{ type: 'context' as const, text: md`:scissors: ${cutNote}` }] : [];
  return { reply: opened(reply, digest, note, more), outcome: 'posted', count: read.written.rows };
}

/** Reads the period and makes the post of one occurrence. */
export const makeDigestPost = (
  deps: DigestMakerDeps,
  digest: Digest,
  period: Period,
  note: OccurrenceNote,
  job: Pick<Job, 'signal' | 'status'>,
): Promise<DigestPost> =>
  digest.kind === 'logs'
    ? makeLogsDigest(deps, digest, period, note, job)
    : makeShieldDigest(deps, digest, period, note, job);
