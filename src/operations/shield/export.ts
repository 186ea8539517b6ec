import type { PlatformClient } from '../../platform/client.js';
import {
  EXPORT_FILTER_FIELDS,
  EXPORT_FILTER_OPS,
  EXPORT_WINDOW_HOURS,
  type ExportFilter,
  type ExportRequest,
  exportRequestSchema,
} from '../../platform/schemas.js';
import { fieldText, type ModalField, type ModalValues } from '../../reply/form.js';
import { hiddenCharacterError } from '../../reply/hidden-characters.js';
import { md } from '../../reply/markup.js';
import { inChannel, type Reply } from '../../reply/model.js';
import { byteSize, counted } from '../../reply/words.js';
import { temporaryCsvPath } from '../../reports/csv/temp-file.js';
import { shieldExportFilename } from '../../reports/filenames.js';
import type { ReportPool } from '../../reports/pool.js';
import { writeShieldExportCsv } from '../../reports/shield/export.js';
import { fileSecretForms } from '../../secrets/file-scrub.js';
import type { SecretRegistry } from '../../secrets/registry.js';
import { UserFacingError } from '../engine/errors.js';
import {
  defineOperation,
  type ParseResult,
  type RunContext,
  type SubmissionOutcome,
} from '../engine/types.js';
import { ShieldZoneIdArg } from '../shared/ids.js';
import { cancelJob, type Job, runLongJob } from '../shared/long-job.js';
import { formatUtc } from '../shared/time-args.js';
import { type FlagWindow, parseWindowFlags, type WindowLimit } from '../shared/window.js';
import { noDefaultError, withDefaultNote } from '../zones/context.js';
import { renderShieldSummary, shieldFurtherBreakdowns, shieldHeadlineFields } from './summary-render.js';

const EXPORT_WINDOW_MS = EXPORT_WINDOW_HOURS * 3_600_000;

const ZoneSchema = ShieldZoneIdArg;

interface ExportArgs {
  zoneId: number;
  body: ExportRequest;
}

/** `zoneId` is absent when none was typed (the channel's default fills it); `fromDefault` says it was. */
type ShieldExportArgs = { zoneId?: number; fromDefault?: boolean } & (
  | { form: true; query?: string; filters: ExportFilter[] }
  | { form: false; body: ExportRequest }
);

const NO_ZONE = noDefaultError('shieldzone', '/edge shield export 5101 --last 1h');

/** The form's private metadata: the zone, and whether it is the channel's default (`5101 default`). */
function readFormZone(metadata: string): { zoneId: number; fromDefault: boolean } | undefined {
  const match = /^(\S+)( default)?$/.exec(metadata.trim());
  const zone = ZoneSchema.safeParse(match?.[1]);
  return zone.success ? { zoneId: zone.data, fromDefault: match?.[2] !== undefined } : undefined;
}

type FilterResult = { ok: true; filter: ExportFilter } | { ok: false; error: string };

/** What an error repeats of the user's words: enough to recognise them. */
const echo = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

/** `FIELD:OP:V1,V2` → a filter clause, checked against the allowed fields and operators. */
export function parseFilter(text: string): FilterResult {
  const [field, op, ...rest] = text.split(':');
  const values = rest
    .join(':')
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean);
  if (!field || !op || values.length === 0)
    return {
      ok: false,
      error: `--filter "${text.slice(0, 60)}" must be FIELD:OP:VALUE[,VALUE…], e.g. country:in:DE,FR`,
    };
  if (!(EXPORT_FILTER_FIELDS as readonly string[]).includes(field))
    return {
      ok: false,
      error: `--filter field "${echo(field)}" is not one of ${EXPORT_FILTER_FIELDS.join(', ')}`,
    };
  if (!(EXPORT_FILTER_OPS as readonly string[]).includes(op))
    return {
      ok: false,
      error: `--filter operator "${echo(op)}" is not one of ${EXPORT_FILTER_OPS.join(', ')}`,
    };
  if (op === 'cidr' && field !== 'ip')
    return { ok: false, error: '--filter: the cidr operator applies to the ip field only' };
  return { ok: true, filter: { field, op, value: values } as ExportFilter };
}

/** Checks the window and filters exactly as the platform will, before anything is sent. */
function checkBody(body: ExportRequest, now: number): string | undefined {
  const parsed = exportRequestSchema(now).safeParse(body);
  if (parsed.success) return undefined;
  const message = parsed.error.issues[0]?.message ?? 'the export request is not valid';
  // The platform's words name its fields; people typed flags, and the earliest start helps.
  if (message === 'to must be after from') return '--to must be after --from';
  if (message === 'to must not be in the future') return '--to must not be in the future';
  if (message.startsWith('the window must lie within'))
    return `${message}: start at ${formatUtc(Math.ceil((now - EXPORT_WINDOW_MS) / 60_000) * 60_000)} or later`;
  return message;
}

/** The instants a window of flags names: `--last` ends now. */
function exportSpan(window: FlagWindow, now: number): { from: number; to: number } {
  return window.kind === 'last'
    ? { from: now - window.lastMs, to: now }
    : { from: window.startMs, to: window.endMs };
}

/** The platform exports the last 72 hours only. */
const withinExportWindow =
  (now: number): WindowLimit =>
  (window) =>
    window.kind === 'last' && window.lastMs > EXPORT_WINDOW_MS
      ? `--last covers at most ${EXPORT_WINDOW_HOURS}h, as far back as exports reach`
      : checkBody(exportSpan(window, now), now);

/** An export read into its CSV file and its summary. */
export interface ShieldExportRead {
  path: string;
  written: Awaited<ReturnType<typeof writeShieldExportCsv>>;
}

/** Asks the platform for the export and streams it into a CSV, counting its summary on the way. */
export async function readShieldExport(
  deps: {
    platform: Pick<PlatformClient, 'exportShieldEventLogs'>;
    reports: ReportPool;
    secrets: SecretRegistry;
  },
  zoneId: number,
  body: ExportRequest,
  job: Pick<Job, 'signal' | 'status'>,
): Promise<ShieldExportRead> {
  job.status('asking the platform');
  const response = await deps.platform.exportShieldEventLogs(zoneId, body, { signal: job.signal });
  let path: string;
  try {
    path = temporaryCsvPath();
  } catch (error) {
    // No file to write to (the temporary folder is full or gone): the body is not read either.
    response.body.destroy();
    throw error;
  }
  const written = await writeShieldExportCsv({
    source: response.body,
    path,
    pool: deps.reports,
    // Counted in the file as it is written, so that its upload need not read it back.
    secrets: fileSecretForms(deps.secrets),
    signal: job.signal,
    onProgress: (progress) =>
      job.status(`fetched ${byteSize(progress.bytes)}, ${counted(progress.rows, 'row')}`),
  });
  return { path, written };
}

/** The headline in the channel; the summary and the CSV in its thread. */
export function renderShieldExport(
  zoneId: number,
  body: ExportRequest,
  { path, written }: ShieldExportRead,
  who: { nowMs: number; requester: string },
): Reply {
  const filename = shieldExportFilename(zoneId, body.from, body.to);
  const window = `${formatUtc(body.from)} – ${formatUtc(body.to)}`;
  const filters = body.filters?.map((f) => `${f.field} ${f.op} ${f.value.join('|')}`).join('; ');
  const comment = `${counted(written.rows, 'Shield event')} of zone ${zoneId}, ${window}${body.query ? `, query "${body.query}"` : ''}${filters ? `, filters ${filters}` : ''}`;
  const rows = counted(written.rows, 'row');
  const asked = `${window}${body.query ? `, query "${body.query}"` : ''}${filters ? `, filters ${filters}` : ''}`;
  // The headline in the channel; the summary and the CSV in its thread, then each further breakdown.
  return {
    ...inChannel(`Shield events of zone ${zoneId}: ${rows}`, [
      {
        type: 'text',
        text: md`:shield: *${counted(written.rows, 'Shield event')}* · zone ${zoneId} · ${asked}`,
      },
      { type: 'fields', fields: shieldHeadlineFields(written.summary, who) },
    ]),
    thread: [
      {
        ...inChannel(`Shield events of zone ${zoneId}: ${rows}, the summary and the CSV`, [
          {
            type: 'text',
            text: md`:shield: *Shield events of zone ${zoneId}*: ${rows} for ${asked}.`,
          },
          // Counted while the CSV streamed to the file, in the same pass.
          ...(written.rows > 0 ? renderShieldSummary(written.summary) : []),
        ]),
        files: [
          {
            filename,
            title: `Shield events, zone ${zoneId}`,
            path,
            ...(written.secretCount && { secretCount: written.secretCount }),
            comment,
            about: `all ${counted(written.rows, 'event')} as CSV (${byteSize(written.bytes)})`,
          },
        ],
      },
      ...(written.rows > 0
        ? shieldFurtherBreakdowns(written.summary, `the Shield events of zone ${zoneId}, ${window}`)
        : []),
    ],
  };
}

async function exportCsv(ctx: RunContext, args: ExportArgs): Promise<Reply | undefined> {
  const { zoneId, body } = args;
  return runLongJob(ctx, {
    title: `Shield event export of zone ${zoneId}`,
    cancelActionId: 'shield.export:cancel',
    async work(job) {
      const read = await readShieldExport(ctx.services, zoneId, body, job);
      job.status('uploading');
      return renderShieldExport(zoneId, body, read, { nowMs: ctx.services.now(), requester: ctx.userId });
    },
  });
}

/** `country:in:DE,FR`: a filter as the command line and the form's list write it. */
const filterLine = (filter: ExportFilter) => `${filter.field}:${filter.op}:${filter.value.join(',')}`;

/**
 * The form's filters: asked only when wanted (the console asks "Add a filter?"; Slack shows one
 * field, a filter a line), each a field, an operator and its values, as `--filter` takes them.
 */
const filtersField = (filters: readonly ExportFilter[]): ModalField => ({
  id: 'filters',
  label: 'Filters',
  kind: 'entries',
  noun: 'filter',
  optional: true,
  parts: [
    {
      id: 'field',
      label: 'field',
      kind: 'select',
      options: EXPORT_FILTER_FIELDS.map((field) => ({ value: field, label: field })),
    },
    {
      id: 'op',
      label: 'operator',
      kind: 'select',
      options: EXPORT_FILTER_OPS.map((op) => ({ value: op, label: op })),
    },
    { id: 'values', label: 'values, separated by commas', kind: 'text' },
  ],
  ...(filters.length > 0 ? { initial: filters.map(filterLine) } : {}),
  hint: `One a line, as field:operator:values; every filter must match. Fields: ${EXPORT_FILTER_FIELDS.join(', ')}. Operators: ${EXPORT_FILTER_OPS.join(', ')} (cidr for ip only).`,
  examples: ['country:in:DE,FR'],
});

/**
 * The lines of a form filled in when filters had three slots (`field0`, `op0`, `values0`, …): one
 * held for approval across an upgrade runs with the filters it was approved with.
 */
const slotLines = (values: ModalValues): string[] =>
  [0, 1, 2]
    .map((i) => [`field${i}`, `op${i}`, `values${i}`].map((id) => fieldText(values, id)))
    .filter((slot) => slot.some(Boolean))
    .map((slot) => slot.join(':'));

/**
 * Line breaks other than a line feed: a card draws them as a new line, but the list is not split
 * there, so two filters on the card would run as one (its values swallowing the second).
 */
const OTHER_LINE_BREAKS: Readonly<Record<string, string>> = {
  '\u2028': 'U+2028 LINE SEPARATOR',
  '\u2029': 'U+2029 PARAGRAPH SEPARATOR',
};

/** The form's filters, a line each; the error names the line at fault. */
function readFilterLines(text: string): { filters: ExportFilter[] } | { error: string } {
  const hidden = hiddenCharacterError(text, 'These filters');
  if (hidden) return { error: hidden };
  const breaks = /[\u2028\u2029]/.exec(text);
  if (breaks)
    return {
      error: `These filters contain ${OTHER_LINE_BREAKS[breaks[0]]} at character ${Array.from(text.slice(0, breaks.index)).length + 1}, which shows as a new line but does not start one: put each filter on a line of its own with Enter.`,
    };
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const filters: ExportFilter[] = [];
  for (const [index, line] of lines.entries()) {
    const filter = parseFilter(line);
    if (!filter.ok) {
      const said = filter.error.replace(/^--filter: /, '').replace(/^--filter /, 'the filter ');
      return {
        error:
          lines.length > 1 ? `Line ${index + 1}: ${said}` : `${said.charAt(0).toUpperCase()}${said.slice(1)}`,
      };
    }
    filters.push(filter.filter);
  }
  return { filters };
}

/**
 * `/edge shield export [SHIELD_ZONE_ID] [--last 1h | --from T --to T] [--query TEXT] [--filter F:OP:V]…`:
 * the full filtered event log as CSV in the channel. Without window flags a form asks.
 */
export const shieldExport = defineOperation({
  id: 'shield.export',
  words: ['shield', 'export'],
  usage:
    '/edge shield export [SHIELD_ZONE_ID] [--last 1h | --from T --to T] [--query TEXT] [--filter FIELD:OP:V1,V2]…',
  summary: 'export a Shield zone’s event log as CSV to the channel (a form asks for the window)',
  example: '/edge shield export 5101 --last 1h --filter country:in:DE,FR',
  flags: {
    last: { kind: 'string', aliases: ['since'], value: 'duration' },
    from: { kind: 'string', value: 'instant' },
    to: { kind: 'string', value: 'instant' },
    query: { kind: 'string' },
    filter: { kind: 'repeatable' },
  },
  parse(positionals, flags, { now }): ParseResult<ShieldExportArgs> {
    if (positionals.length > 1) return { ok: false, error: 'give exactly one Shield zone id' };
    // Without one, the channel's default is taken (see channelDefault below).
    const zone =
      positionals.length === 0
        ? ({ success: true, data: undefined } as const)
        : ZoneSchema.safeParse(positionals[0]);
    if (!zone.success) return { ok: false, error: zone.error.issues[0]!.message };
    const filters: ExportFilter[] = [];
    for (const raw of flags.filter) {
      const filter = parseFilter(raw);
      if (!filter.ok) return { ok: false, error: filter.error };
      filters.push(filter.filter);
    }
    const window = parseWindowFlags(flags, now, withinExportWindow(now));
    if (!window.ok) return { ok: false, error: window.error };
    if (window.window === undefined)
      return { ok: true, args: { zoneId: zone.data, form: true, query: flags.query, filters } };
    const { from, to } = exportSpan(window.window, now);
    const body: ExportRequest = {
      from,
      to,
      ...(flags.query ? { query: flags.query } : {}),
      ...(filters.length > 0 ? { filters } : {}),
    };
    const problem = checkBody(body, now);
    if (problem) return { ok: false, error: problem };
    return { ok: true, args: { zoneId: zone.data, form: false, body } };
  },
  // Without a window the command only opens the form, whose submission a rule holds; Cancel stops.
  outsideApproval: { command: (args) => args.form, interactions: ['cancel'] },
  channelDefault: {
    kind: 'shieldzone',
    missing: (args) => args.zoneId === undefined,
    fill: (args, id) => ({ ...args, zoneId: id, fromDefault: true }),
    absent: NO_ZONE,
  },
  target: (args) => (args.zoneId === undefined ? undefined : String(args.zoneId)),
  async run(ctx, args) {
    const { zoneId } = args;
    if (zoneId === undefined) throw new UserFacingError(NO_ZONE);
    if (!args.form) return exportCsv(ctx, { zoneId, body: args.body });
    const now = ctx.services.now();
    const whose = args.fromDefault ? ' (this channel’s default, /edge context)' : '';
    await ctx.surface.openModal({
      callbackId: 'shield.export:window-and-filters',
      title: 'Shield event export',
      submit: 'Export',
      privateMetadata: args.fromDefault ? `${zoneId} default` : String(zoneId),
      intro: `Zone *${zoneId}*${whose}: the window must lie within the last ${EXPORT_WINDOW_HOURS} hours (times in UTC).`,
      fields: [
        { id: 'from', label: 'From', kind: 'datetime', initial: now - 3_600_000 },
        { id: 'to', label: 'To', kind: 'datetime', initial: now },
        {
          id: 'query',
          label: 'Search (IP, rule id, URL, user agent, rule name)',
          kind: 'text',
          optional: true,
          initial: args.query,
        },
        filtersField(args.filters),
      ],
    });
    return undefined;
  },
  actions: {
    cancel: async (ctx, value) => cancelJob(ctx, value),
  },
  submissions: {
    /**
     * The form as it is now, its filters one list. A callback id of its own: a replica of the
     * version with three slots (during an upgrade, or after a rollback) refuses it as a form it
     * does not know, where under the old id it would export without the filters it never read.
     */
    'window-and-filters': (ctx, values, privateMetadata) =>
      submitExportForm(ctx, values, privateMetadata, 'filters'),
    /**
     * The form with three slots of filters, still open in Slack or held for approval across an
     * upgrade; a fault in its filters is shown on its first slot, a field that form has.
     */
    window: (ctx, values, privateMetadata) => submitExportForm(ctx, values, privateMetadata, 'field0'),
  },
});

/** A submitted export form: the window and filters checked as the platform will check them. */
async function submitExportForm(
  ctx: RunContext,
  values: ModalValues,
  privateMetadata: string,
  filtersField: string,
): Promise<SubmissionOutcome> {
  const zone = readFormZone(privateMetadata);
  if (!zone) return { errors: { from: 'The form lost its zone; run the command again.' } };
  const now = ctx.services.now();
  const from = Number(fieldText(values, 'from'));
  const to = Number(fieldText(values, 'to'));
  if (!Number.isFinite(from) || from <= 0) return { errors: { from: 'Pick the start of the window.' } };
  if (!Number.isFinite(to) || to <= 0) return { errors: { to: 'Pick the end of the window.' } };
  if (to <= from) return { errors: { to: 'The end must be after the start.' } };
  if (from < now - EXPORT_WINDOW_HOURS * 3_600_000)
    return { errors: { from: `The start must be within the last ${EXPORT_WINDOW_HOURS} hours.` } };
  if (to > now + 60_000) return { errors: { to: 'The end cannot be in the future.' } };
  const read = readFilterLines([fieldText(values, 'filters'), ...slotLines(values)].join('\n'));
  if ('error' in read) return { errors: { [filtersField]: read.error } };
  const { filters } = read;
  const query = fieldText(values, 'query');
  const hiddenInQuery = hiddenCharacterError(query, 'The query');
  if (hiddenInQuery) return { errors: { query: hiddenInQuery } };
  const body: ExportRequest = {
    from,
    to,
    ...(query ? { query } : {}),
    ...(filters.length ? { filters } : {}),
  };
  const problem = checkBody(body, now);
  if (problem) return { errors: { from: problem } };
  return {
    target: String(zone.zoneId),
    // The audit row records what ran, as a typed command's does: the filters, not their number.
    params: {
      from,
      to,
      query: query || undefined,
      filters: filters.length > 0 ? filters.map(filterLine) : undefined,
    },
    run: async () => {
      const reply = await exportCsv(ctx, { zoneId: zone.zoneId, body });
      return reply && zone.fromDefault ? withDefaultNote(reply, 'shieldzone', zone.zoneId) : reply;
    },
  };
}
