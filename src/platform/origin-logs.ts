import { UTCDate } from '@date-fns/utc';
import { z } from 'zod';
import { format, isValid } from '../time/date-fns.js';
import { endpoint, type PlatformContext } from './context.js';
import { invalidRequest } from './errors.js';
import type { PlatformStream } from './http.js';
import { ORIGIN_LOG_DATE_FORMAT } from './schemas.js';

const PullZoneIdSchema = z
  .number()
  .int()
  .positive({ error: 'the pull zone id must be a positive whole number' });

/** The path segment for a day: MM-dd-yyyy of the UTC calendar date of `day`. */
export function originLogDate(day: Date): string {
  return format(new UTCDate(day.getTime()), ORIGIN_LOG_DATE_FORMAT);
}

/**
 * GET {logging_url}/{pullZoneId}/{MM-dd-yyyy}. The body ({"logs":[…]}) is returned as a
 * stream, to be parsed entry by entry (see json-entries.ts): a million-entry day never
 * sits in memory. Error responses are not shown in the spec; they map like the others.
 */
export async function getOriginErrorLogs(
  ctx: PlatformContext,
  pullZoneId: number,
  day: Date,
  options: { signal?: AbortSignal } = {},
): Promise<PlatformStream> {
  const id = PullZoneIdSchema.safeParse(pullZoneId);
  if (!id.success) throw invalidRequest('logs.origin', id.error);
  if (!isValid(day))
    throw invalidRequest(
      'logs.origin',
      new z.ZodError([
        { code: 'custom', path: ['date'], message: 'the date is not a valid day', input: day },
      ]),
    );
  return ctx.http.stream({
    operation: 'logs.origin',
    subject: `pull zone ${id.data}`,
    lookup: '/edge pullzones',
    method: 'GET',
    url: endpoint(ctx.loggingUrl, `/${id.data}/${originLogDate(day)}`),
    read: true,
    expect: [200],
    signal: options.signal,
  });
}
