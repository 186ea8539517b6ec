import { z } from 'zod';
import { APPROVAL_ID_PATTERN } from '../approvals/machine.js';
import { OPERATION_IDS } from '../policy/operation-ids.js';
import { closeNames } from '../policy/suggest.js';
import { joinMarkup, type Markup, md, mention, nest, trusted } from '../reply/markup.js';
import { ephemeral, type ReplyBlock, type ReplyTable } from '../reply/model.js';
import { counted } from '../reply/words.js';
import { csvRecord } from '../reports/csv/safety.js';
import type { AuditLog, AuditRow } from '../state/audit.js';
import { parseDuration } from '../time/duration.js';
import { type AuditExportArgs, exportAudit } from './audit-export.js';
import type { FlagValues } from './engine/tokenize.js';
import { defineOperation, type ParseResult, parseWith } from './engine/types.js';
import { cancelJob } from './shared/long-job.js';
import { tableWithCsv } from './shared/table-csv.js';
import { parseInstant } from './shared/time-args.js';

const AuditArgsSchema = z.object({
  limit: z
    .number()
    .int({ error: '--limit must be a whole number' })
    .min(1, { error: '--limit must be between 1 and 200' })
    .max(200, { error: '--limit must be between 1 and 200' })
    .default(20),
  verify: z.boolean(),
  all: z.boolean(),
  csv: z.boolean(),
  filter: z.object({
    userIds: z.array(z.string()).optional(),
    operation: z.string().optional(),
    target: z.string().max(200, { error: '--target is too long (200 characters at most)' }).optional(),
    approvalId: z.string().optional(),
    since: z.string().optional(),
  }),
});
type AuditArgs = z.infer<typeof AuditArgsSchema> & { export?: AuditExportArgs };

/** Operations whose rows `--op` may name: every policy id, and the approvals steps. */
const KNOWN_OPERATIONS: readonly string[] = [...OPERATION_IDS, 'help', 'whoami'];

/** Who has a hash-chain check running, per audit log (one a runtime): one check per person at a time. */
const verifying = new WeakMap<AuditLog, Set<string>>();

/** The verify line of the answer; a second check from someone whose first still runs is not started. */
async function verifyChain(audit: AuditLog, userId: string): Promise<ReplyBlock> {
  const running = verifying.get(audit) ?? new Set<string>();
  verifying.set(audit, running);
  if (running.has(userId))
    return {
      type: 'text',
      text: md`:hourglass_flowing_sand: Your earlier check of the hash chain is still running, so this one was not started: its result comes in that answer. Ask again with --verify once it has.`,
    };
  running.add(userId);
  try {
    const result = await audit.verify();
    return {
      type: 'text',
      text: result.ok
        ? md`:white_check_mark: The hash chain verifies: ${counted(result.count, 'row')}, no link broken.`
        : md`:rotating_light: The hash chain is broken at row ${result.brokenAt}: ${result.reason}. ${counted(result.count, 'row')} checked before it.`,
    };
  } finally {
    running.delete(userId);
  }
}

/** The filter in words, for the answer's footer; undefined when there is none. */
function describeFilter(filter: AuditArgs['filter']): Markup | undefined {
  const parts = [
    filter.userIds?.length
      ? md`${filter.userIds.length === 1 ? 'user' : 'users'} ${nest(joinMarkup(filter.userIds.map(mention), ', '))}`
      : undefined,
    filter.operation ? md`operation ${filter.operation}` : undefined,
    filter.target ? md`target ${filter.target}` : undefined,
    filter.approvalId ? md`request ${filter.approvalId}` : undefined,
    filter.since ? md`since ${filter.since.slice(0, 16).replace('T', ' ')} UTC` : undefined,
  ].filter((part): part is Markup => part !== undefined);
  return parts.length > 0 ? joinMarkup(parts, ', ') : undefined;
}

/** `U0ABC`, or a mention as Slack delivers one typed in a command (`<@U0ABC|ann>`, escaped or not). */
function readUser(text: string): string | undefined {
  return /^(?:<@|&lt;@)?([UW][A-Z0-9]{2,})(?:\|[^>&]*)?(?:>|&gt;)?$/.exec(text.trim())?.[1];
}

/** `--since 2h` (the last two hours) or any instant `parseInstant` reads (`-2h`, `09:00`, ISO). */
function readSince(text: string, now: number): { ok: true; iso: string } | { ok: false; error: string } {
  const value = text.trim();
  if (/^\d+[smhd]$/.test(value)) {
    const duration = parseDuration(value);
    if (!duration.ok) return { ok: false, error: `--since: ${duration.error}` };
    return { ok: true, iso: new Date(now - duration.ms).toISOString() };
  }
  const instant = parseInstant(value, now);
  return instant.ok
    ? { ok: true, iso: new Date(instant.ms).toISOString() }
    : { ok: false, error: `--since: ${instant.error}, or a duration such as 2h` };
}

/** Every --user given, as member ids; an error saying how to type one that is not. */
function readUsers(typed: readonly string[]): { ok: true; ids: string[] } | { ok: false; error: string } {
  const ids: string[] = [];
  for (const text of typed) {
    const user = readUser(text);
    if (!user)
      return {
        ok: false,
        error: `--user takes a Slack member id, e.g. --user U0ABC123 (in Slack: their profile, ⋮, Copy member ID); "${text.slice(0, 40)}" is not one, and a name such as @ann cannot be looked up`,
      };
    if (!ids.includes(user)) ids.push(user);
  }
  return { ok: true, ids };
}

/** An operation id of --op; an unknown one is refused with the ids close to it. */
function readOperation(typed: string): { ok: true; id: string } | { ok: false; error: string } {
  if (KNOWN_OPERATIONS.includes(typed)) return { ok: true, id: typed };
  const area = typed.split('.')[0]?.toLowerCase();
  const close = closeNames(typed, KNOWN_OPERATIONS, 4);
  const sameArea = KNOWN_OPERATIONS.filter((id) => id.split('.')[0] === area && !close.includes(id));
  const near = [...close, ...sameArea].slice(0, 5);
  const named = near.map((id) => `--op ${id}`);
  const guess = named.length > 1 ? `${named.slice(0, -1).join(', ')} or ${named.at(-1)}` : named[0];
  return {
    ok: false,
    error: `--op takes an operation id such as logs.origin or db.exec${guess ? ` (did you mean ${guess}?)` : ''}`,
  };
}

/** Flags of the listing that an export does not take. */
const LISTING_ONLY = ['limit', 'verify', 'all', 'csv', 'target', 'request'] as const;
const EXPORT_USAGE = '/edge audit --export [--since 30d] [--user MEMBER_ID]… [--op OPERATION]';

function parseExport(flags: FlagValues<typeof AUDIT_FLAGS>, now: number): ParseResult<AuditArgs> {
  const extra = LISTING_ONLY.find((name) => flags[name] !== undefined && flags[name] !== false);
  if (extra) return { ok: false, error: `--export does not take --${extra}: type ${EXPORT_USAGE}` };
  const users = readUsers(flags.user);
  if (!users.ok) return users;
  const operation = flags.op === undefined ? undefined : readOperation(flags.op);
  if (operation && !operation.ok) return operation;
  const sinceText = flags.since ?? '30d';
  const since = readSince(sinceText, now);
  if (!since.ok) return { ok: false, error: `${since.error}; e.g. --since 30d or --since 12h` };
  if (Date.parse(since.iso) > now)
    return {
      ok: false,
      error: '--since is in the future: type how far back, e.g. --since 30d or --since 12h',
    };
  return {
    ok: true,
    args: {
      limit: 20,
      verify: false,
      all: false,
      csv: false,
      filter: {},
      export: {
        since: since.iso,
        sinceText,
        userIds: users.ids,
        ...(operation ? { operation: operation.id } : {}),
      },
    },
  };
}

function parseAudit(
  positionals: string[],
  flags: FlagValues<typeof AUDIT_FLAGS>,
  now: number,
): ParseResult<AuditArgs> {
  if (positionals.length > 0) return { ok: false, error: `unexpected argument "${positionals[0]}"` };
  if (flags.export) return parseExport(flags, now);
  const filter: AuditArgs['filter'] = {};
  if (flags.user.length > 0) {
    const users = readUsers(flags.user);
    if (!users.ok) return users;
    filter.userIds = users.ids;
  }
  if (flags.op !== undefined) {
    const operation = readOperation(flags.op);
    if (!operation.ok) return operation;
    filter.operation = operation.id;
  }
  if (flags.target !== undefined) filter.target = flags.target;
  if (flags.request !== undefined) {
    if (!APPROVAL_ID_PATTERN.test(flags.request))
      return {
        ok: false,
        error: '--request takes an approval request id, e.g. --request ap_3f2c9a1b7d4e6f80',
      };
    filter.approvalId = flags.request;
  }
  if (flags.since !== undefined) {
    const since = readSince(flags.since, now);
    if (!since.ok) return since;
    filter.since = since.iso;
  }
  return parseWith(AuditArgsSchema, {
    limit: flags.limit,
    verify: flags.verify,
    all: flags.all,
    csv: flags.csv,
    filter,
  });
}

/** One request as the listing shows it: its newest row, what became of it, and all its rows. */
export interface AuditLine {
  /** The newest row: its id, time, user and correlation id head the line. */
  row: AuditRow;
  target: string | null;
  /** Its steps, oldest first: `approval-requested`, `approved → succeeded`, `succeeded`. */
  outcome: string;
  rows: AuditRow[];
}

/** Steps that only say something is under way: folded into the step that followed them. */
const UNDER_WAY = new Set(['started', 'executing']);
/** How the engine closes a request; a step the request recorded itself says more. */
const CLOSING = new Set([
  'succeeded',
  'requested',
  'held',
  'clicked',
  'submitted',
  'typed',
  'done',
  'refused',
]);

/**
 * One line per request, newest first: the rows of one request (same correlation id, operation
 * and approval request, whoever they name: an approved change runs as its requester) become one
 * line of its steps. A started or executing row is folded into what followed it, and the engine's
 * closing row into a step of the request's own, so a request filed for approval reads
 * `approval-requested`, never `succeeded`. A request still running shows `started`.
 */
export function requestLines(rows: readonly AuditRow[]): AuditLine[] {
  // One step may close several requests under one correlation id (an expiry sweep, the recovery
  // after a crash, a new request closing the expired one it replaces): their approval ids keep
  // them apart. A row with none (the started row of the command that filed a request, its held
  // row) goes with the request its correlation id ended with: that of its newest row that has one.
  const endedWith = new Map<string, string>();
  for (const row of rows) {
    const base = `${row.correlationId}|${row.operation}`;
    if (row.approvalId && !endedWith.has(base)) endedWith.set(base, row.approvalId);
  }
  const requests = new Map<string, AuditRow[]>();
  for (const row of rows) {
    const base = `${row.correlationId}|${row.operation}`;
    const key = `${base}|${row.approvalId ?? endedWith.get(base) ?? ''}`;
    const rowsOf = requests.get(key);
    if (rowsOf) rowsOf.push(row);
    else requests.set(key, [row]);
  }
  return [...requests.values()].map((newestFirst) => {
    const oldestFirst = [...newestFirst].reverse();
    let steps = oldestFirst.filter(
      (row, index) => !UNDER_WAY.has(row.outcome) || index === oldestFirst.length - 1,
    );
    if (steps.length > 1 && CLOSING.has(steps.at(-1)!.outcome)) steps = steps.slice(0, -1);
    return {
      row: newestFirst[0]!,
      target: newestFirst.find((row) => row.target)?.target ?? null,
      outcome: steps.map((row) => row.outcome).join(' → '),
      rows: newestFirst,
    };
  });
}

/** One row a request: its newest row's id and time, who, what, on what, its steps, its correlation id. */
function requestsTable(lines: readonly AuditLine[]): ReplyTable {
  return {
    columns: [
      { header: 'Id', kind: 'text' },
      { header: 'Time (UTC)', kind: 'text' },
      { header: 'User', kind: 'text' },
      { header: 'Operation', kind: 'text' },
      { header: 'Target', kind: 'text' },
      { header: 'Steps', kind: 'text' },
      { header: 'Correlation', kind: 'text' },
    ],
    rows: lines.map(({ row, target, outcome }) => [
      String(row.id),
      row.time.replace('T', ' ').slice(0, 19),
      { user: row.userId },
      row.operation,
      target ?? '',
      outcome,
      row.correlationId,
    ]),
  };
}

const AUDIT_FLAGS = {
  limit: { kind: 'number' },
  verify: { kind: 'boolean' },
  user: { kind: 'repeatable' },
  op: { kind: 'string' },
  target: { kind: 'string' },
  request: { kind: 'string' },
  since: { kind: 'string', value: 'instant' },
  all: { kind: 'boolean' },
  csv: { kind: 'boolean' },
  export: { kind: 'boolean' },
} as const;

/**
 * `/edge audit [--user U] [--op OP] [--target T] [--request ID] [--since 2h] [--limit N] [--all]
 * [--csv] [--verify]`: the newest audit rows, one line per request; its own reads are left out
 * unless --all; --csv attaches the selection; --verify checks the whole hash chain. With
 * `--export [--since 30d] [--user U]… [--op OP]`, the period's rows as a CSV by DM (audit-export.ts).
 */
export const audit = defineOperation({
  id: 'audit.list',
  words: ['audit'],
  usage:
    '/edge audit [--user MEMBER_ID]… [--op OPERATION] [--target T] [--request ID] [--since 2h] [--limit N] [--all] [--csv] [--verify] | --export [--since 30d] [--user MEMBER_ID]… [--op OPERATION]',
  summary: 'show the newest audit entries, filtered, verify the hash chain, or export a period as CSV by DM',
  example: '/edge audit --op db.exec --since 24h',
  flags: AUDIT_FLAGS,
  parse: (positionals, flags, input) => parseAudit(positionals, flags, input.now),
  outsideApproval: { interactions: ['cancel'] },
  // Its one button is an export's Cancel, in the requester's DM (where no grant may name the
  // channel): cancelJob lets only the one who started the export cancel it.
  ownAccessForInteractions: true,
  actions: {
    cancel: async (ctx, value) => cancelJob(ctx, value),
  },
  async run(ctx, { limit, verify, all, csv, filter, export: exported }) {
    if (exported) return exportAudit(ctx, exported);
    // Four rows a line: a request's started row, its steps and its closing row become one line.
    const fetched = await ctx.services.audit.list({
      limit: Math.min(limit * 4, 1000),
      filter: { ...filter, ...(all || filter.operation ? {} : { excludeOperations: ['audit.list'] }) },
    });
    const lines = requestLines(fetched).slice(0, limit);
    const rows = lines.flatMap((line) => line.rows);
    const shown = tableWithCsv(requestsTable(lines), {
      filename: `audit-requests-${lines.length}.csv`,
      title: `Audit log, newest ${counted(lines.length, 'request')}, one row each`,
    });
    const narrowed = describeFilter(filter);
    const blocks: ReplyBlock[] = [
      { type: 'header' as const, text: `Audit log (newest ${counted(lines.length, 'request')})` },
      // The verdict on the whole chain comes before the rows it vouches for.
      ...(verify ? [await verifyChain(ctx.services.audit, ctx.userId)] : []),
      ...(lines.length > 0
        ? [{ type: 'table' as const, table: shown.table }]
        : [
            {
              type: 'text' as const,
              text: narrowed ? trusted('_No entries match._') : trusted('_No entries yet._'),
            },
          ]),
      {
        type: 'context',
        text: md`${nest(narrowed ? md`Showing ${nest(narrowed)}. ` : trusted(''))}One row per request, with its steps in order.${all ? '' : ' /edge audit’s own reads are left out; --all shows them.'}`,
      },
    ];
    // Parameters and details never fit a table row: the file has every field of every row.
    const withFile = csv || rows.some((row) => Object.keys(row.params).length > 0 || row.detail);
    if (withFile && !csv)
      blocks.push({
        type: 'context',
        text: trusted(
          'Parameters and details are not shown here; the file has every row of each request, with every field in full.',
        ),
      });
    const reply = ephemeral(`Audit log: ${counted(lines.length, 'request')}`, blocks);
    if (!withFile) return shown.files.length > 0 ? { ...reply, files: shown.files } : reply;
    const header = [
      'id',
      'time',
      'user',
      'channel',
      'operation',
      'target',
      'params',
      'outcome',
      'approval',
      'correlation',
      'detail',
    ];
    const records = rows.map((row) => [
      String(row.id),
      row.time,
      row.userId,
      row.channelId,
      row.operation,
      row.target ?? '',
      JSON.stringify(row.params),
      row.outcome,
      row.approvalId ?? '',
      row.correlationId,
      row.detail ?? '',
    ]);
    return {
      ...reply,
      files: [
        {
          filename: `audit-newest-${rows.length}.csv`,
          title: `Audit log, newest ${counted(rows.length, 'row')}${narrowed ? ', filtered' : ''}`,
          content: [header, ...records].map(csvRecord).join(''),
          about: `the newest ${counted(rows.length, 'row')} with every field`,
        },
        ...shown.files,
      ],
    };
  },
});
