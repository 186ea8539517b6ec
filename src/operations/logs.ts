import { rm } from 'node:fs/promises';
import { z } from 'zod';
import { ORIGIN_ERROR_CODES } from '../platform/schemas.js';
import { md, nest, trusted } from '../reply/markup.js';
import { inChannel, type Reply, type ReplyBlock } from '../reply/model.js';
import { hourlyBars } from '../reports/chart.js';
import { originErrorsFilename } from '../reports/filenames.js';
import type { OriginFilters, OriginSummary } from '../reports/origin-summary.js';
import { summariseOriginErrors } from '../reports/origin-summary.js';
import { temporaryCsvPath } from '../reports/temp-file.js';
import { parseDuration } from './duration.js';
import { cancelJob, runLongJob } from './long-job.js';
import { parseDay } from './time-args.js';
import { defineOperation, type RunContext } from './types.js';

const MB = 1024 * 1024;

const ArgsSchema = z.object({
  pullZoneId: z.coerce
    .number({ error: 'the pull zone id must be a number, e.g. 308006' })
    .int({ error: 'the pull zone id must be a whole number' })
    .positive({ error: 'the pull zone id must be positive' }),
  dayMs: z.number(),
  dayText: z.string(),
  lastMs: z.number().optional(),
  status: z
    .string()
    .regex(/^([1-5]\d\d|[1-5]xx)$/i, { error: '--status takes a code like 502 or a class like 5xx' })
    .optional(),
  code: z
    .string()
    .regex(/^[a-z_]{2,64}$/i, {
      error: `--code takes an error code such as ${Object.keys(ORIGIN_ERROR_CODES).slice(0, 3).join(', ')}`,
    })
    .optional(),
  zone: z
    .string()
    .regex(/^[A-Za-z0-9-]{2,12}$/, { error: '--zone takes a server zone such as DE or NY' })
    .optional(),
});
type LogsArgs = z.infer<typeof ArgsSchema>;

function filtersOf(args: LogsArgs, now: number): OriginFilters {
  const filters: OriginFilters = {};
  if (args.status) {
    const status = args.status.toLowerCase();
    filters.status = status.endsWith('xx') ? { classes: [Number(status[0])] } : { exact: [Number(status)] };
  }
  if (args.code) filters.errorCode = args.code;
  if (args.zone) filters.serverZone = args.zone;
  if (args.lastMs) filters.sinceMs = now - args.lastMs;
  return filters;
}

const describeFilters = (args: LogsArgs) =>
  [
    args.lastMs
      ? `last ${args.lastMs / 3_600_000 >= 1 ? `${args.lastMs / 3_600_000}h` : `${args.lastMs / 60_000}m`}`
      : '',
    args.status ? `status ${args.status}` : '',
    args.code ? `code ${args.code}` : '',
    args.zone ? `zone ${args.zone}` : '',
  ]
    .filter(Boolean)
    .join(', ');

const time = (ms: number | null) => (ms === null ? '—' : `${new Date(ms).toISOString().slice(11, 19)} UTC`);
/** The top 12, and how many more there are: the CSV has every entry. */
const counts = (items: { label: string; count: number }[]) =>
  [
    ...items.slice(0, 12).map((item) => `${item.label} ×${item.count.toLocaleString('en-US')}`),
    ...(items.length > 12 ? [`+${items.length - 12} more`] : []),
  ].join(' · ') || '—';

export function renderOriginSummary(
  pullZoneId: number,
  dayText: string,
  filters: string,
  summary: OriginSummary,
  filename: string,
): Reply {
  const blocks: ReplyBlock[] = [
    { type: 'header', text: `Origin errors · pull zone ${pullZoneId} · ${dayText}` },
    {
      type: 'fields',
      fields: [
        {
          label: 'Errors',
          value: md`${summary.total.toLocaleString('en-US')}${filters ? ` (${filters})` : ''}`,
        },
        { label: 'First / last seen', value: md`${time(summary.firstSeenMs)} / ${time(summary.lastSeenMs)}` },
        {
          label: 'By status',
          value: md`${counts(summary.byStatus.map((s) => ({ label: String(s.status), count: s.count })))}`,
        },
        {
          label: 'By server zone',
          value: md`${counts(summary.byServerZone.map((z) => ({ label: z.zone, count: z.count })))}`,
        },
      ],
    },
    {
      type: 'text',
      text: md`*By error code*\n${nest(
        trusted(
          summary.byErrorCode
            .slice(0, 12)
            .map(
              (c) => md`• \`${c.code}\` ${c.words ? `(${c.words}) ` : ''}×${c.count.toLocaleString('en-US')}`,
            )
            .concat(
              summary.byErrorCode.length > 12 ? [md`• +${summary.byErrorCode.length - 12} more codes`] : [],
            )
            .join('\n') || '—',
        ),
      )}`,
    },
  ];
  if (summary.malformed > 0)
    blocks.push({
      type: 'context',
      text: md`:warning: ${summary.malformed} entr${summary.malformed === 1 ? 'y has' : 'ies have'} a log that is missing or not valid JSON; they are counted from their labels, with an empty url and message in the CSV.`,
    });
  if (summary.untimed > 0)
    blocks.push({
      type: 'context',
      text: md`:warning: ${summary.untimed} entr${summary.untimed === 1 ? 'y has no timestamp; it is' : 'ies have no timestamp; they are'} in the counts and the CSV (with an empty timestamp), not in the chart.`,
    });
  if (summary.topUrls.length > 0) {
    blocks.push({ type: 'text', text: trusted('*Top URLs*') });
    blocks.push({
      type: 'code',
      text: summary.topUrls
        .map((u) => `${String(u.count).padStart(7)}${u.overcount > 0 ? '≈' : ' '} ${u.url}`)
        .join('\n'),
    });
  }
  blocks.push({ type: 'text', text: trusted('*Errors per hour (UTC)*') });
  blocks.push({ type: 'code', text: hourlyBars(summary.perHour).join('\n') });
  return {
    ...inChannel(`${summary.total} origin errors for pull zone ${pullZoneId} on ${dayText}`, blocks),
    files: [
      {
        filename,
        title: `Origin errors, pull zone ${pullZoneId}, ${dayText}`,
        path: summary.csv.path,
        about: `all ${summary.csv.rows.toLocaleString('en-US')} entries (${(summary.csv.bytes / MB).toFixed(1)} MB)`,
        comment: `${summary.csv.rows} origin errors for pull zone ${pullZoneId} on ${dayText}${filters ? ` (${filters})` : ''}`,
      },
    ],
  };
}

async function summarise(ctx: RunContext, args: LogsArgs): Promise<Reply | undefined> {
  const filename = originErrorsFilename(args.pullZoneId, args.dayMs);
  const filters = describeFilters(args);
  return runLongJob(ctx, {
    title: `Origin errors of pull zone ${args.pullZoneId} for ${args.dayText}`,
    cancelActionId: 'logs:cancel',
    async work(job) {
      job.status('fetching');
      const response = await ctx.services.platform.getOriginErrorLogs(args.pullZoneId, new Date(args.dayMs), {
        signal: job.signal,
      });
      const csvPath = temporaryCsvPath();
      const summary = await summariseOriginErrors({
        source: response.body,
        filters: filtersOf(args, ctx.services.now()),
        csvPath,
        signal: job.signal,
        onProgress: (progress) =>
          job.status(
            `fetched ${(progress.bytes / MB).toFixed(1)} MB, summarised ${progress.entries.toLocaleString('en-US')} entries`,
          ),
      });
      if (summary.total === 0) {
        await rm(csvPath, { force: true });
        const scope = filters ? ` matching ${filters}` : '';
        // `{}` and `{"logs":null}` are legal answers: the vendor does not require the list.
        const unlisted = summary.listed
          ? trusted('')
          : md` The platform sent no list of entries for that day, which most likely means there were no errors.`;
        return inChannel(`No origin errors for pull zone ${args.pullZoneId} on ${args.dayText}`, [
          {
            type: 'text',
            text: md`:white_check_mark: No origin errors${scope} for pull zone ${args.pullZoneId} on ${args.dayText}${summary.scanned > 0 ? ` (${summary.scanned.toLocaleString('en-US')} entries that day, none matching)` : ''}.${nest(unlisted)} No file posted.`,
          },
        ]);
      }
      job.status('uploading');
      return renderOriginSummary(args.pullZoneId, args.dayText, filters, summary, filename);
    },
  });
}

/** `/edge logs PULLZONE_ID [DAY] [--last 2h] [--status 502|5xx] [--code CODE] [--zone ZONE]`. */
export const logs = defineOperation({
  id: 'logs.origin',
  words: ['logs'],
  usage:
    '/edge logs PULLZONE_ID [today | yesterday | MM-dd-yyyy | yyyy-MM-dd] [--last 2h] [--status 502|5xx] [--code CODE] [--zone ZONE]',
  summary: 'summarise a day of origin errors in the channel, with every entry attached as CSV',
  example: '/edge logs 308006 today --status 5xx',
  flags: {
    last: { kind: 'string', aliases: ['since'] },
    status: { kind: 'string' },
    code: { kind: 'string' },
    zone: { kind: 'string' },
  },
  parse(positionals, flags, { now }) {
    if (positionals.length === 0)
      return { ok: false, error: 'give the pull zone id, e.g. /edge logs 308006' };
    if (positionals.length > 2) return { ok: false, error: `unexpected argument "${positionals[2]}"` };
    const day = parseDay(positionals[1] ?? 'today', now);
    if (!day.ok) return { ok: false, error: day.error };
    let lastMs: number | undefined;
    if (flags.last !== undefined) {
      const last = parseDuration(flags.last);
      if (!last.ok) return { ok: false, error: `--last: ${last.error}` };
      if (last.ms > 24 * 3_600_000)
        return { ok: false, error: '--last covers at most 24h; pick a day for older errors' };
      lastMs = last.ms;
    }
    const parsed = ArgsSchema.safeParse({
      pullZoneId: positionals[0],
      dayMs: day.ms,
      dayText: new Date(day.ms).toISOString().slice(0, 10),
      lastMs,
      status: flags.status,
      code: flags.code,
      zone: flags.zone,
    });
    return parsed.success
      ? { ok: true, args: parsed.data }
      : { ok: false, error: parsed.error.issues[0]!.message };
  },
  target: (args) => String(args.pullZoneId),
  run: (ctx, args) => summarise(ctx, args),
  actions: {
    cancel: async (ctx, value) => cancelJob(ctx, value),
  },
});
