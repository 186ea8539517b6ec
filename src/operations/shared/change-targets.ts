/**
 * The object a change is about, looked up on the platform before anyone is asked to approve it
 * (PRODUCT §5): an unknown id is refused at once, in the words the platform's own 404 uses, and
 * the card names what was found. Any other platform failure is thrown as it is, so nothing is
 * asked for that could not be checked.
 */
import { PlatformError } from '../../platform/errors.js';
import type { ZoneKind } from '../../reply/form.js';
import type { JsonValue } from '../../state/canonical-json.js';
import { UserFacingError } from '../engine/errors.js';
import type { RunContext } from '../engine/types.js';

/** The refusal of an id the platform does not know, in the words of its own 404. */
export const targetNotFound = (subject: string, lookup?: string) =>
  new UserFacingError(
    `No ${subject} was found on the platform, so nobody was asked to approve anything. Check the id${lookup ? `, or find it with ${lookup}` : ''}.`,
  );

/** The listing each kind of zone is found in. */
const LISTING: Record<ZoneKind, 'pullzone.list' | 'shieldzone.list'> = {
  pullzone: 'pullzone.list',
  shieldzone: 'shieldzone.list',
};

/**
 * A zone as the account's list has it, read for the caller: not while an approval rule holds that
 * listing for them, since reading it would answer what the rule holds back (whether an id exists,
 * what it is called). The id then goes on unchecked, as for an account too large to list whole.
 */
export async function findZone(
  ctx: RunContext,
  kind: ZoneKind,
  id: number,
): ReturnType<RunContext['services']['zones']['find']> {
  if ((await ctx.access.held()).has(LISTING[kind])) return { unchecked: true };
  return ctx.services.zones.find(kind, id);
}

/** How the platform names a pull zone; either may be missing. Stored with the request, for its card. */
export interface PullZoneNames extends Record<string, JsonValue> {
  name: string | null;
  hostname: string | null;
}

export async function pullZoneToChange(ctx: RunContext, pullZoneId: number): Promise<PullZoneNames> {
  const found = await findZone(ctx, 'pullzone', pullZoneId);
  if ('absent' in found) throw targetNotFound(`pull zone ${pullZoneId}`, '/edge pullzones');
  // An account with more zones than the bot reads: not found there is not proof of absence.
  if ('unchecked' in found) return { name: null, hostname: null };
  return { name: found.zone.name ?? null, hostname: found.zone.hostname ?? null };
}

/** The pull zone a Shield zone guards, as the platform names it. */
export interface ShieldZoneNames extends Record<string, JsonValue> {
  pullZoneId: number | null;
  pullZoneName: string | null;
}

export async function shieldZoneToChange(ctx: RunContext, shieldZoneId: number): Promise<ShieldZoneNames> {
  const found = await findZone(ctx, 'shieldzone', shieldZoneId);
  if ('absent' in found) throw targetNotFound(`Shield zone ${shieldZoneId}`, '/edge shield zones');
  if ('unchecked' in found) return { pullZoneId: null, pullZoneName: null };
  return { pullZoneId: found.zone.pullZoneId ?? null, pullZoneName: found.zone.name ?? null };
}

/** A database's name on the platform; null when the platform gives none. */
export async function databaseToChange(
  ctx: RunContext,
  databaseId: string,
  options: { signal?: AbortSignal } = {},
): Promise<string | null> {
  try {
    const record = await ctx.services.platform.getDatabase(databaseId, options);
    return record.db?.name || null;
  } catch (error) {
    if (error instanceof PlatformError && error.kind === 'not-found')
      throw targetNotFound(`database ${databaseId}`);
    throw error;
  }
}

/** `308006 · www-example · www-example.b-cdn.net`: an id and the names found for it, for a card. */
export const namedId = (id: string | number, ...names: (string | null | undefined)[]): string =>
  [String(id), ...names.filter((name): name is string => Boolean(name))].join(' · ');
