/**
 * `/edge digest logs PULLZONE_ID --at HH:MM …` and `/edge digest shield SHIELD_ZONE_ID --at HH:MM …`
 * set a digest (`digest.set`); `/edge digests` lists this channel's (`digest.list`), with Stop for
 * their owners and whoever holds digest.set there.
 */
import { z } from 'zod';
import { closestName } from '../../policy/suggest.js';
import { canonicalTimeZone, knownTimeZones } from '../../time/zones.js';
import { type DigestRequest, defineOperation, type ParseResult, parseWith } from '../engine/types.js';
import { PullZoneIdArg, ShieldZoneIdArg } from '../shared/ids.js';
import { parseFilter } from '../shield/export.js';
import { DIGEST_EVERY, type DigestEvery, parseAtMinute } from './schedule.js';

const DigestIdSchema = z.string().min(1).max(40);

/** The zone a name most likely means: `Berlin` → `Europe/Berlin`, `Europe/Berln` → `Europe/Berlin`. */
function suggestTimeZone(typed: string): string | undefined {
  const zones = knownTimeZones();
  const city = typed.trim().replace(/\s+/g, '_').toLowerCase();
  return zones.find((zone) => zone.toLowerCase().split('/').at(-1) === city) ?? closestName(typed, zones);
}

type TimeFlags = { at?: string; tz?: string; every?: string };
type Schedule = Pick<DigestRequest, 'atMinute' | 'timeZone' | 'every'>;

/** `--at`, `--tz` and `--every`, checked; each error says what to type instead. */
export function parseScheduleFlags(flags: TimeFlags): ParseResult<Schedule> {
  if (flags.at === undefined)
    return { ok: false, error: '--at is required: the local time the digest is posted, e.g. --at 09:00' };
  const atMinute = parseAtMinute(flags.at);
  if (atMinute === undefined)
    return {
      ok: false,
      error: `--at "${flags.at.slice(0, 20)}" is not a time of day: give hours and minutes on a 24-hour clock, e.g. --at 09:00 or --at 17:30`,
    };
  const typedZone = flags.tz ?? 'UTC';
  const timeZone = canonicalTimeZone(typedZone.trim());
  if (timeZone === undefined) {
    const suggestion = suggestTimeZone(typedZone);
    return {
      ok: false,
      error: `--tz "${typedZone.slice(0, 40)}" is not a time zone: give an IANA name, Area/City, ${suggestion ? `e.g. --tz ${suggestion}` : 'e.g. --tz Europe/Berlin or --tz America/New_York'} (UTC when left out)`,
    };
  }
  const every = (flags.every ?? 'day').toLowerCase();
  if (!(DIGEST_EVERY as readonly string[]).includes(every))
    return {
      ok: false,
      error: `--every takes day, weekday (Monday to Friday) or week (the weekday of the first one), e.g. --every weekday`,
    };
  return { ok: true, args: { atMinute, timeZone, every: every as DigestEvery } };
}

const scheduleFlags = {
  at: { kind: 'string' },
  tz: { kind: 'string' },
  every: { kind: 'string', choices: DIGEST_EVERY },
} as const;

export const digestLogs = defineOperation({
  id: 'digest.set',
  words: ['digest', 'logs'],
  usage: '/edge digest logs PULLZONE_ID --at HH:MM [--tz Europe/Berlin] [--every day|weekday|week]',
  summary:
    'post a summary of a pull zone’s origin errors in this channel at a local time every day, weekday or week, covering the time since the one before',
  example: '/edge digest logs 308006 --at 09:00 --tz Europe/Berlin --every weekday',
  flags: scheduleFlags,
  changes: { command: true },
  parse(positionals, flags): ParseResult<DigestRequest> {
    if (positionals.length !== 1)
      return positionals.length === 0
        ? { ok: false, error: 'give the pull zone id, e.g. /edge digest logs 308006 --at 09:00' }
        : { ok: false, error: `unexpected argument "${positionals[1]!.slice(0, 40)}"` };
    const zone = parseWith(z.object({ zoneId: PullZoneIdArg }), { zoneId: positionals[0] });
    if (!zone.ok) return zone;
    const schedule = parseScheduleFlags(flags);
    if (!schedule.ok) return schedule;
    return { ok: true, args: { kind: 'logs', zoneId: zone.args.zoneId, ...schedule.args, filters: [] } };
  },
  target: (args) => String(args.zoneId),
  run: (ctx, args) => ctx.services.digests.set(ctx, args),
});

export const digestShield = defineOperation({
  id: 'digest.set',
  words: ['digest', 'shield'],
  usage:
    '/edge digest shield SHIELD_ZONE_ID --at HH:MM [--tz Europe/Berlin] [--every day|weekday|week] [--query TEXT] [--filter FIELD:OP:V1,V2]…',
  summary:
    'post a summary of a Shield zone’s events in this channel at a local time every day, weekday or week, with the CSV (the last 71 hours at most)',
  example: '/edge digest shield 5101 --at 08:30 --tz America/New_York --filter action:eq:block',
  flags: { ...scheduleFlags, query: { kind: 'string' }, filter: { kind: 'repeatable' } },
  changes: { command: true },
  parse(positionals, flags): ParseResult<DigestRequest> {
    if (positionals.length !== 1)
      return positionals.length === 0
        ? { ok: false, error: 'give the Shield zone id, e.g. /edge digest shield 5101 --at 09:00' }
        : { ok: false, error: `unexpected argument "${positionals[1]!.slice(0, 40)}"` };
    const zone = parseWith(z.object({ zoneId: ShieldZoneIdArg }), { zoneId: positionals[0] });
    if (!zone.ok) return zone;
    for (const raw of flags.filter) {
      const filter = parseFilter(raw);
      if (!filter.ok) return { ok: false, error: filter.error };
    }
    const schedule = parseScheduleFlags(flags);
    if (!schedule.ok) return schedule;
    return {
      ok: true,
      args: {
        kind: 'shield',
        zoneId: zone.args.zoneId,
        ...schedule.args,
        ...(flags.query ? { query: flags.query } : {}),
        filters: flags.filter,
      },
    };
  },
  target: (args) => String(args.zoneId),
  run: (ctx, args) => ctx.services.digests.set(ctx, args),
});

/** `/edge digests`: this channel's digests, what each sends and when, and who set it. */
export const digests = defineOperation({
  id: 'digest.list',
  words: ['digests'],
  usage: '/edge digests',
  summary: 'list this channel’s digests, when each comes next and who set it, and stop one',
  example: '/edge digests',
  flags: {},
  changes: { interactions: ['stop'] },
  // Stop only winds down what already runs.
  outsideApproval: { interactions: ['stop'] },
  parse: (positionals) =>
    positionals.length > 0
      ? { ok: false, error: `unexpected argument "${positionals[0]!.slice(0, 40)}"` }
      : { ok: true, args: {} },
  run: (ctx) => ctx.services.digests.list(ctx, 'digests:stop'),
  actions: {
    stop: (ctx, value) => ctx.services.digests.stop(ctx, DigestIdSchema.parse(value)),
  },
});
