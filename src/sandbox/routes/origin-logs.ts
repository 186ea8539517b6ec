/**
 * GET {logging_url}/{pullZoneId}/{MM-dd-yyyy}: origin errors of one UTC day, streamed entry by entry.
 * Seeded zones have errors on today and the seven days before it (relative to the sandbox clock);
 * other dates are empty. No day, seeded or sized by a knob, serves an entry stamped after the
 * sandbox clock's now: today ends there, and later days are empty. The `logDaysKept` knob shortens what is kept, for every zone: an older day
 * answers `{"logs":[]}`, which is all the vendor's API says of a day it no longer has. A bad date answers 400 with ApiErrorData: the logging service's error body
 * is undocumented, and the core API's shape is the one clients already know how to show.
 * The `originLogBody` knob answers every day with one of the vendor-legal bodies without entries.
 */
import { pipeline } from 'node:stream';
import { hasAccountKey, sendApiError, sendEmpty, sendJson } from '../http.js';
import { addedOriginEntries, originLogDayStream, seededDayCount } from '../origin-logs.js';
import type { Route } from '../router.js';
import { ORIGIN_ERRORS_PER_DAY } from '../seed.js';
import type { SandboxState } from '../state.js';

const DAY_MS = 86_400_000;
const SEEDED_DAYS = 7;

/** The vendor's LogResponse requires no `logs`: each of these is a legal answer for a day. */
const BODIES_WITHOUT_ENTRIES = {
  'no-logs': {},
  'null-logs': { logs: null },
  'empty-logs': { logs: [] },
} as const;

/** UTC midnight of an MM-dd-yyyy date, or undefined when the text is not a real date. */
export function parseLogDate(text: string): number | undefined {
  const match = /^(\d{2})-(\d{2})-(\d{4})$/.exec(text);
  if (!match) return undefined;
  const [month, day, year] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const start = Date.UTC(year, month - 1, day);
  const check = new Date(start);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return undefined;
  }
  return start;
}

export function originLogRoutes(state: SandboxState): Route[] {
  /** Entries in the whole day; those after now are cut as the day streams. */
  const entriesFor = (pullZoneId: number, dayStart: number, now: number): number => {
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const kept = state.knobs.logDaysKept();
    if (kept !== undefined && dayStart < today - kept * DAY_MS) return 0;
    const knob = state.knobs.logDayEntries(pullZoneId);
    if (knob !== undefined) return knob;
    const perDay = ORIGIN_ERRORS_PER_DAY[pullZoneId] ?? 0;
    if (dayStart > today || dayStart < today - SEEDED_DAYS * DAY_MS) return 0;
    return seededDayCount(state.seed, pullZoneId, dayStart, perDay);
  };

  return [
    {
      id: 'logs.origin',
      listener: 'api',
      method: 'GET',
      path: /^\/logging\/(?<pullZoneId>[^/]+)\/(?<date>[^/]+)$/,
      handle({ req, res, params }) {
        if (!hasAccountKey(req, state.apiKey)) return sendEmpty(res, 401);
        const dayStart = parseLogDate(params.date ?? '');
        if (dayStart === undefined) {
          return sendApiError(
            res,
            'dateTime.invalid',
            'dateTime',
            'The date must be a real date written MM-dd-yyyy',
          );
        }
        const id = /^\d+$/.test(params.pullZoneId ?? '') ? Number(params.pullZoneId) : undefined;
        const known =
          id !== undefined &&
          (state.pullZones.has(id) ||
            state.knobs.logDayEntries(id) !== undefined ||
            state.knobs.addedLogEntries(id).length > 0);
        if (id === undefined || !known) return sendEmpty(res, 404);
        const shape = state.knobs.vendorShapes().originLogBody ?? 'entries';
        if (shape !== 'entries') return sendJson(res, 200, BODIES_WITHOUT_ENTRIES[shape]);
        const now = state.now();
        const count = entriesFor(id, dayStart, now);
        const added = state.knobs
          .addedLogEntries(id)
          .flatMap((burst, index) =>
            burst.at >= dayStart && burst.at < dayStart + DAY_MS && burst.at <= now
              ? addedOriginEntries(id, index, burst)
              : [],
          );
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        pipeline(
          originLogDayStream({ seed: state.seed, pullZoneId: id, dayStart, count, notAfter: now, added }),
          res,
          () => undefined,
        );
      },
    },
  ];
}
