import { rm } from 'node:fs/promises';
import { z } from 'zod';
import { EdgeopsError, UnexpectedError } from '../../errors.js';
import { closestName } from '../../policy/suggest.js';
import { oneLine, truncate } from '../../reply/escape.js';
import { ephemeral, type Reply } from '../../reply/model.js';
import { byteSize, counted } from '../../reply/words.js';
import type { ChartRenderer } from '../../reports/chart/render.js';
import { temporaryCsvPath } from '../../reports/csv/temp-file.js';
import { originErrorsFilename, originErrorsWindowFilename } from '../../reports/filenames.js';
import { ORIGIN_ERROR_CODES } from '../../reports/origin/entry.js';
import type { OriginDayOpener, OriginFilters, OriginSummary } from '../../reports/origin/summary.js';
import { summariseOriginErrors } from '../../reports/origin/summary.js';
import { statusFilterOf } from '../../reports/origin/tally.js';
import { type BucketGrid, bucketGrid, chartBuckets, planOriginFetch } from '../../reports/origin/window.js';
import type { ReportPool } from '../../reports/pool.js';
import type { Logger } from '../../telemetry/log.js';
import { UserFacingError } from '../engine/errors.js';
import { newCorrelationId } from '../engine/failure.js';
import type { SharedOutcome } from '../engine/shared-answers.js';
import { defineOperation, type ParseResult, type RunContext } from '../engine/types.js';
import { PullZoneIdArg } from '../shared/ids.js';
import { cancelJob, type Job, runLongJob } from '../shared/long-job.js';
import { joinedNote, pointerReply } from '../shared/pointer.js';
import { noDefaultError } from '../zones/context.js';
import type { KeptOriginDays, OriginDayBody } from './kept-days.js';
import { type OriginWindowResult, renderNothingFound, renderOriginHeadline } from './render.js';
import { describeLogsWindow, formatLength, type LogsWindow, parseLogsWindow } from './window.js';

const DOCUMENTED_CODES = Object.keys(ORIGIN_ERROR_CODES);

/** `--status 502` or `--status 5xx`. */
export const StatusFlag = z
  .string()
  .regex(/^([1-5]\d\d|[1-5]xx)$/i, { error: '--status takes a code like 502 or a class like 5xx' });

/** `--code dns_lookup`: checked further by `checkCode`. */
export const CodeFlag = z.string().regex(/^[a-z_]{2,64}$/i, {
  error: `--code takes an error code such as ${DOCUMENTED_CODES.slice(0, 3).join(', ')}`,
});

const ArgsSchema = z.object({
  pullZoneId: PullZoneIdArg,
  window: z.strictObject({
    kind: z.enum(['day', 'last', 'range']),
    startMs: z.number(),
    endMs: z.number(),
    dayMs: z.number().optional(),
    lastMs: z.number().optional(),
  }),
  status: StatusFlag.optional(),
  code: CodeFlag.optional(),
  zone: z
    .string()
    .regex(/^[A-Za-z0-9-]{2,12}$/, { error: '--zone takes a server zone such as DE or NY' })
    .optional(),
});
type LogsArgs = z.infer<typeof ArgsSchema>;

/** As typed: the pull zone may be left to the channel's default. */
const RequestSchema = ArgsSchema.extend({ pullZoneId: ArgsSchema.shape.pullZoneId.optional() });
type LogsRequest = z.infer<typeof RequestSchema>;

/** A day word or date where the zone id would be: `/edge logs today`, `/edge logs 11-21-2026`. */
const looksLikeDay = (word: string) =>
  /^(today|yesterday)$/i.test(word) || /^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$/.test(word);

/**
 * A code close to a documented one but not one of them is a typo: refused before any download,
 * with the code meant. One unlike any documented code may be new on the platform: it is looked
 * for, and an empty result names the codes the logs do carry.
 */
export function checkCode(code: string | undefined): string | undefined {
  if (code === undefined || DOCUMENTED_CODES.includes(code.toLowerCase())) return undefined;
  const suggestion = closestName(code, DOCUMENTED_CODES);
  return suggestion
    ? `--code ${code} is not a documented error code (did you mean --code ${suggestion}?)`
    : undefined;
}

function filtersOf(args: LogsArgs): OriginFilters {
  const filters: OriginFilters = {};
  if (args.status) filters.status = statusFilterOf(args.status);
  if (args.code) filters.errorCode = args.code;
  if (args.zone) filters.serverZone = args.zone;
  return filters;
}

const describeFilters = (args: LogsArgs) =>
  [
    args.status ? `status ${args.status}` : '',
    args.code ? `code ${args.code}` : '',
    args.zone ? `zone ${args.zone}` : '',
  ]
    .filter(Boolean)
    .join(', ');

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * After a summary: a day read whole tells its kept copy where its hours lie; a day read in part
 * counts as many entries as its whole body has; a copy whose body broke is not kept.
 */
function settleKeptDays(opened: readonly (OriginDayBody | undefined)[], summary: OriginSummary): void {
  for (const [index, day] of opened.entries()) {
    const read = summary.days[index];
    if (!day || !read) continue;
    if (read.broken) void day.forget();
    else if (day.part) summary.days[index] = { ...read, entries: day.part.entries };
    else {
      const hours = summary.indexes?.[index];
      if (hours) day.indexed(hours);
    }
  }
}

/** A day's body when a day only a comparison needs could not be fetched: that comparison is left out. */
async function* emptyDay(): AsyncGenerator<Uint8Array> {
  yield Buffer.from('{}');
}

/** What reading an origin-log window needs, with or without a request to answer: digests read them too. */
export interface OriginWindowDeps {
  now: () => number;
  keptDays: KeptOriginDays;
  reports: ReportPool;
  charts: ChartRenderer;
  logger: Logger;
  /** The id of the request (its logger's lines carry it) or of the digest's occurrence: its audit row's. */
  correlationId?: string;
}

/** The most of a day's failure a comparison's note quotes: escaped, two of them stay within a Slack text. */
const DAY_FAILURE_CHARS = 200;

/**
 * A comparison day's failure as its note quotes it: the words on one line and cut short (they may
 * be the platform's), then the correlation id when the cause is not the reader's to fix.
 */
function dayFailure(failure: EdgeopsError, correlationId: string): string {
  const words = truncate(oneLine(failure.userMessage), DAY_FAILURE_CHARS).replace(/\.$/, '');
  return failure.unexpected ? `${words}; correlation id ${correlationId}` : words;
}

/** A window to read: the zone, the window and its filters, its title, and whom the answer names. */
export type OriginWindowAsk = LogsArgs & {
  /** The window in words, as the answer titles it. */
  title: string;
  /** The chart's buckets; by default as wide as the window's length calls for. */
  grid?: BucketGrid;
  requester: string;
};

export const originWindowDeps = (ctx: RunContext): OriginWindowDeps => ({
  now: ctx.services.now,
  keptDays: ctx.services.keptDays,
  reports: ctx.services.reports,
  charts: ctx.services.charts,
  logger: ctx.logger,
  correlationId: ctx.correlationId,
});

/**
 * Reads the window's days, kept or fetched, into its summary, CSV and chart. A window with no
 * error to summarise keeps no CSV and draws no chart.
 */
export async function readOriginWindow(
  deps: OriginWindowDeps,
  args: OriginWindowAsk,
  job: Pick<Job, 'signal' | 'status'>,
): Promise<OriginWindowResult> {
  const window: LogsWindow = args.window;
  const plan = planOriginFetch(window, deps.now());
  const grid = args.grid ?? bucketGrid(window);
  const filters = describeFilters(args);
  const { title } = args;
  const filename =
    plan.windowDays.length > 1
      ? originErrorsWindowFilename(args.pullZoneId, plan.counted.startMs, plan.counted.endMs)
      : originErrorsFilename(args.pullZoneId, plan.windowDays[0]!);
  const failedDays = new Map<number, string>();
  let reading = '';
  // Only these are counted: a kept day that knows where its hours lie is read for them alone,
  // unless a code or zone is asked for, whose hint when nothing matches names what the whole days hold.
  const countedWindows = args.code || args.zone ? undefined : [plan.counted, ...plan.comparisons];
  const opened: OriginDayBody[] = [];
  const days = plan.days.map(
    (dayMs, index): OriginDayOpener =>
      async () => {
        reading = plan.days.length > 1 ? `${isoDate(dayMs)} (day ${index + 1} of ${plan.days.length}): ` : '';
        job.status(`${reading}fetching`);
        try {
          const day = await deps.keptDays.open(args.pullZoneId, dayMs, {
            signal: job.signal,
            only: countedWindows,
          });
          opened[index] = day;
          return day.body;
        } catch (error) {
          // The window's own days must all be read; a day only a comparison needs may be missing.
          if (index < plan.windowDays.length || job.signal.aborted) throw error;
          // The request's own id where there is one (its audit row has it), else one for this line.
          const correlationId = deps.correlationId ?? newCorrelationId();
          const failure = error instanceof EdgeopsError ? error : new UnexpectedError(error);
          failedDays.set(dayMs, dayFailure(failure, correlationId));
          deps.logger.warn('origin-log day for a comparison could not be fetched', { error, correlationId });
          return emptyDay();
        }
      },
  );
  const csvPath = temporaryCsvPath();
  const summary = await summariseOriginErrors({
    indexHours: true,
    days,
    filters: { ...filtersOf(args), sinceMs: window.startMs, untilMs: window.endMs },
    view: { grid, comparisons: plan.comparisons.map(({ startMs, endMs }) => ({ startMs, endMs })) },
    // Entries without a time belong to a window only when it is the whole day they came with.
    ...(window.kind === 'day' ? { untimedDay: 0 } : {}),
    comparisonsFrom: plan.windowDays.length,
    csvPath,
    pool: deps.reports,
    signal: job.signal,
    onProgress: (progress) =>
      job.status(
        `${reading}fetched ${byteSize(progress.bytes)}, summarised ${counted(progress.entries, 'entry', 'entries')}`,
      ),
  }).catch(async (error: unknown) => {
    // Which body was not what it should be is not known: none of them is kept.
    await Promise.all(opened.map((day) => day?.forget()));
    throw error;
  });
  settleKeptDays(opened, summary);
  for (const [index, read] of summary.days.entries())
    if (read.broken && !failedDays.has(plan.days[index]!))
      failedDays.set(plan.days[index]!, 'its response broke off or was not valid JSON');
  const result: OriginWindowResult = {
    pullZoneId: args.pullZoneId,
    window,
    title,
    filters,
    code: args.code,
    zone: args.zone,
    summary,
    plan,
    grid,
    nowMs: deps.now(),
    failedDays,
    filename,
    requester: args.requester,
  };
  if (summary.total === 0) {
    await rm(csvPath, { force: true });
    return result;
  }
  job.status('drawing the chart');
  const chart = await deps.charts.draw(
    {
      title: `Origin errors · pull zone ${args.pullZoneId} · ${title}${filters ? ` · ${filters}` : ''}`,
      unit: 'errors',
      bucketMs: grid.widthMs,
      buckets: chartBuckets(grid, summary.buckets, window, result.nowMs),
    },
    { signal: job.signal },
  );
  if (job.signal.aborted) {
    // Cancelled while the chart was drawn: nothing is posted, and the CSV goes too.
    await rm(csvPath, { force: true });
    job.signal.throwIfAborted();
  }
  return chart ? { ...result, chart } : result;
}

async function summarise(
  ctx: RunContext,
  args: LogsArgs,
  onCancelled: () => void,
): Promise<Reply | undefined> {
  const title = describeLogsWindow(args.window, ctx.services.now());
  return runLongJob(ctx, {
    title: `Origin errors of pull zone ${args.pullZoneId}, ${title}`,
    cancelActionId: 'logs:cancel',
    onCancelled,
    async work(job) {
      const result = await readOriginWindow(
        originWindowDeps(ctx),
        { ...args, title, requester: ctx.userId },
        job,
      );
      if (result.summary.total === 0) return renderNothingFound(result);
      job.status('uploading');
      return renderOriginHeadline(result);
    },
  });
}

/** The request as typed: the window's words (`--last 1h` stays `--last 1h` as the clock moves), the filters. */
function sharingKey(ctx: RunContext, args: LogsArgs): string {
  const { window } = args;
  const typed =
    window.kind === 'range'
      ? `${window.startMs}-${window.endMs}`
      : `${window.dayMs ?? 'now'}/${window.lastMs ?? 'day'}`;
  const filters = [args.status, args.code, args.zone].map((value) => value?.toLowerCase() ?? '');
  return ['logs', ctx.channelId, ctx.threadTs ?? '', args.pullZoneId, window.kind, typed, ...filters].join(
    '|',
  );
}

/**
 * Answers the request, or joins the same request of someone else in this channel within the
 * minute: one download, one headline and thread, and a private pointer to it for each joiner.
 */
async function answerShared(ctx: RunContext, args: LogsArgs): Promise<Reply | undefined> {
  const what = `origin errors of pull zone ${args.pullZoneId}${args.window.kind === 'last' ? `, last ${formatLength(args.window.lastMs ?? 0)}` : ''}`;
  // A cancelled job's answer goes back to the engine, which records it as cancelled.
  let cancelledReply: Reply | undefined;
  const shared = ctx.services.shared.share(
    sharingKey(ctx, args),
    ctx.userId,
    async (): Promise<SharedOutcome> => {
      let cancelled = false;
      const reply = await summarise(ctx, args, () => {
        cancelled = true;
      });
      if (cancelled) {
        cancelledReply = reply;
        return { kind: 'cancelled' };
      }
      // The first asker's answer is delivered here, so that the others can be pointed to it.
      const ref = reply ? await ctx.surface.respond(reply) : undefined;
      if (ref && ref.channelId !== ctx.channelId) return { kind: 'unshared' };
      if (reply?.visibility === 'channel') return { kind: 'posted', ...(ref ? { ref } : {}) };
      return { kind: 'private', reply: reply ?? ephemeral('Nothing to show.') };
    },
  );
  if (shared.first) {
    await shared.outcome;
    return cancelledReply;
  }
  ctx.logger.info('joined the same request of another person', { starter: shared.starter });
  if (!shared.settled) await ctx.surface.respond(joinedNote(what, shared, ctx.services.now()));
  const outcome = await shared.outcome;
  // Nothing this asker can see to point to: they get an answer of their own.
  if (outcome.kind === 'unshared') return answerShared(ctx, args);
  return pointerReply(ctx, what, shared, outcome);
}

/** `/edge logs [PULLZONE_ID] [DAY] [--last 2h | --from T --to T] [--status 502|5xx] [--code CODE] [--zone ZONE]`. */
export const logs = defineOperation({
  id: 'logs.origin',
  words: ['logs'],
  usage:
    '/edge logs [PULLZONE_ID] [today | yesterday | MM-dd-yyyy | yyyy-MM-dd] [--last 2h | --from T --to T] [--status 502|5xx] [--code CODE] [--zone ZONE]',
  summary:
    'summarise origin errors of a day or a window of up to 72h in the channel, compared with earlier, with every entry attached as CSV',
  example: '/edge logs 308006 --last 2h --status 5xx',
  // Cancel only stops a summary already running.
  outsideApproval: { interactions: ['cancel'] },
  flags: {
    last: { kind: 'string', aliases: ['since'], value: 'duration' },
    from: { kind: 'string', value: 'instant' },
    to: { kind: 'string', value: 'instant' },
    status: { kind: 'string' },
    code: { kind: 'string' },
    zone: { kind: 'string' },
  },
  parse(positionals, flags, { now }): ParseResult<LogsRequest> {
    // Without a zone id typed (`/edge logs today --last 2h`), the channel's default is taken.
    const zoneTyped = positionals.length > 0 && !looksLikeDay(positionals[0]!);
    const [zone, day, extra] = zoneTyped ? positionals : [undefined, ...positionals];
    if (extra !== undefined) return { ok: false, error: `unexpected argument "${extra}"` };
    const window = parseLogsWindow({ day, last: flags.last, from: flags.from, to: flags.to }, now);
    if (!window.ok) return { ok: false, error: window.error };
    const parsed = RequestSchema.safeParse({
      pullZoneId: zone,
      window: window.window,
      status: flags.status,
      code: flags.code,
      zone: flags.zone,
    });
    if (!parsed.success) return { ok: false, error: parsed.error.issues[0]!.message };
    const codeError = checkCode(parsed.data.code);
    return codeError ? { ok: false, error: codeError } : { ok: true, args: parsed.data };
  },
  channelDefault: {
    kind: 'pullzone',
    missing: (args) => args.pullZoneId === undefined,
    fill: (args, id) => ({ ...args, pullZoneId: id }),
    absent: noDefaultError('pullzone', '/edge logs 308006'),
  },
  target: (args) => (args.pullZoneId === undefined ? undefined : String(args.pullZoneId)),
  run: (ctx, { pullZoneId, ...rest }) => {
    if (pullZoneId === undefined) throw new UserFacingError(noDefaultError('pullzone', '/edge logs 308006'));
    return answerShared(ctx, { ...rest, pullZoneId });
  },
  actions: {
    cancel: async (ctx, value) => cancelJob(ctx, value),
  },
});
