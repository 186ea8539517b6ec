/**
 * `/edge watch logs PULLZONE_ID …` starts a watch; `/edge watches` lists them. Both answer to the
 * policy's `watch.logs`: whoever is granted it in a watch's channel may stop or snooze that watch.
 */
import { z } from 'zod';
import { formatDuration, parseDuration } from '../../time/duration.js';
import { UserFacingError } from '../engine/errors.js';
import { defineOperation, parseWith, type WatchRequest } from '../engine/types.js';
import { CodeFlag, checkCode, StatusFlag } from '../logs/logs.js';
import { PullZoneIdArg } from '../shared/ids.js';
import { noDefaultError } from '../zones/context.js';

const DEFAULT_EVERY = '1m';
/** How long a watch runs when `--for` is not given. */
export const DEFAULT_FOR = '2h';
const MAX_FOR_MS = 24 * 60 * 60_000;
const MAX_ALERT_WINDOW_MS = 60 * 60_000;
const MIN_ALERT_WINDOW_MS = 10_000;

type DurationField = { ok: true; ms: number } | { ok: false; error: string };

function durationFlag(flag: string, text: string | undefined, fallback: string): DurationField {
  const parsed = parseDuration(text ?? fallback);
  return parsed.ok ? parsed : { ok: false, error: `--${flag}: ${parsed.error}` };
}

/** `--alert 50/5m`: more than 50 matching entries within any 5 minutes. */
function parseAlert(text: string): { ok: true; alert: WatchRequest['alert'] } | { ok: false; error: string } {
  const match = /^(\d{1,6})\/(\S+)$/.exec(text.trim());
  const hint = '--alert takes a count and a window, e.g. --alert 50/5m (more than 50 within any 5 minutes)';
  if (!match) return { ok: false, error: hint };
  const count = Number(match[1]);
  const window = parseDuration(match[2]!);
  if (!window.ok) return { ok: false, error: `${hint}: ${window.error}` };
  if (count < 1) return { ok: false, error: `${hint}: the count must be at least 1` };
  if (window.ms < MIN_ALERT_WINDOW_MS || window.ms > MAX_ALERT_WINDOW_MS)
    return { ok: false, error: `--alert: the window must be between 10s and 1h, e.g. --alert ${count}/5m` };
  return { ok: true, alert: { count, windowMs: window.ms } };
}

const WatchIdSchema = z.string().min(1).max(40);

/** A watch as typed: the pull zone may be left to the channel's default. */
type AskedWatch = Omit<WatchRequest, 'pullZoneId'> & { pullZoneId?: number };

export const watchLogs = defineOperation({
  id: 'watch.logs',
  words: ['watch', 'logs'],
  usage:
    '/edge watch logs [PULLZONE_ID] [--status 5xx] [--code CODE] [--every 1m] [--for 2h] [--alert 50/5m]',
  summary: `follow a pull zone's origin errors live: a message updated every --every (for --for, ${DEFAULT_FOR} unless given, at most 24h), with an alert in its thread when --alert trips`,
  example: '/edge watch logs 308006 --status 5xx --alert 50/5m',
  flags: {
    status: { kind: 'string' },
    code: { kind: 'string' },
    every: { kind: 'string' },
    for: { kind: 'string' },
    alert: { kind: 'string' },
  },
  changes: { command: true, interactions: ['stop', 'snooze'] },
  // Stop and Snooze only quieten a watch already running.
  outsideApproval: { interactions: ['stop', 'snooze'] },
  parse(positionals, flags) {
    if (positionals.length > 1) return { ok: false, error: `unexpected argument "${positionals[1]}"` };
    const every = durationFlag('every', flags.every, DEFAULT_EVERY);
    if (!every.ok) return every;
    const length = durationFlag('for', flags.for, DEFAULT_FOR);
    if (!length.ok) return length;
    if (length.ms > MAX_FOR_MS)
      return { ok: false, error: `--for ${flags.for} is too long: a watch runs at most 24h, e.g. --for 24h` };
    if (length.ms < every.ms)
      return { ok: false, error: `--for must be at least --every (${formatDuration(every.ms)})` };
    const alert = flags.alert === undefined ? undefined : parseAlert(flags.alert);
    if (alert && !alert.ok) return alert;
    const parsed = parseWith(
      z.object({
        pullZoneId: PullZoneIdArg.optional(),
        status: StatusFlag.optional(),
        code: CodeFlag.optional(),
      }),
      { pullZoneId: positionals[0], status: flags.status, code: flags.code },
    );
    if (!parsed.ok) return parsed;
    const codeError = checkCode(parsed.args.code);
    if (codeError) return { ok: false, error: codeError };
    const request: AskedWatch = {
      ...parsed.args,
      everyMs: every.ms,
      forMs: length.ms,
      ...(alert?.ok && alert.alert ? { alert: alert.alert } : {}),
    };
    return { ok: true, args: request };
  },
  // Without an id, the channel's default pull zone (/edge context), named in the answer's footer.
  channelDefault: {
    kind: 'pullzone',
    missing: (args) => args.pullZoneId === undefined,
    fill: (args, id) => ({ ...args, pullZoneId: id }),
    absent: noDefaultError('pullzone', '/edge watch logs 308006'),
  },
  target: (args) => (args.pullZoneId === undefined ? undefined : String(args.pullZoneId)),
  run: (ctx, { pullZoneId, ...rest }) => {
    if (pullZoneId === undefined)
      throw new UserFacingError(noDefaultError('pullzone', '/edge watch logs 308006'));
    return ctx.services.watches.start(ctx, { ...rest, pullZoneId });
  },
  actions: {
    stop: (ctx, value) =>
      ctx.services.watches.stop(ctx, WatchIdSchema.parse(value), { fromItsMessage: true }),
    snooze: (ctx, value) =>
      ctx.services.watches.snooze(ctx, WatchIdSchema.parse(value), { fromItsMessage: true }),
  },
});

/** `/edge watches`: the running watches, their owners, and a Stop button each. */
export const watches = defineOperation({
  id: 'watch.logs',
  words: ['watches'],
  usage: '/edge watches',
  summary: 'list the running watches with their owners, and stop one',
  example: '/edge watches',
  flags: {},
  changes: { interactions: ['stop'] },
  outsideApproval: { interactions: ['stop'] },
  parse: (positionals) =>
    positionals.length > 0
      ? { ok: false, error: `unexpected argument "${positionals[0]}"` }
      : { ok: true, args: {} },
  run: (ctx) => ctx.services.watches.list(ctx, 'watches:stop'),
  actions: {
    stop: (ctx, value) => ctx.services.watches.stop(ctx, WatchIdSchema.parse(value)),
  },
});
