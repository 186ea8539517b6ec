/**
 * The pull zones and Shield zones by id and name, for type-ahead pickers and for checking an id
 * before it is stored. Read from the list endpoints, kept for at most a minute, and loaded once at
 * a time however many people type at once. A picker never waits past its budget: it answers with
 * what is known, and the load goes on so that the next keystroke finds it.
 */

import type { PlatformClient } from '../../platform/client.js';
import { readZoneId, type ZoneKind, type ZonePick } from '../../reply/form.js';
import type { Logger } from '../../telemetry/log.js';
import type { ZoneChoice, ZoneDirectory } from '../engine/ports.js';

/** How long a list is kept. */
export const ZONE_LIST_TTL_MS = 60_000;
/** The list endpoints' largest page, and how many pages are read at most. */
const PER_PAGE = 1000;
const MAX_PAGES = 5;

interface Kept {
  zones: ZoneChoice[];
  at: number;
}

/** A list as loaded, and whether it is the account's whole list. */
type Loaded = ZoneChoice[] & { partial?: boolean };

/** The pull zone one of whose hostnames is `host`, in any case. */
function servingZone(zones: readonly ZoneChoice[], host: string): ZoneChoice | undefined {
  const wanted = host.toLowerCase();
  return zones.find((zone) => zone.hostnames?.some((hostname) => hostname.toLowerCase() === wanted));
}

/** Every pull zone the list's pages give, with all of their hostnames. */
async function loadPullZones(platform: PlatformClient): Promise<ZoneChoice[]> {
  const zones: Loaded = [];
  zones.partial = false;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const list = await platform.listPullZones({ page, perPage: PER_PAGE });
    for (const zone of list.Items)
      if (zone.Id !== undefined)
        zones.push({
          kind: 'pullzone',
          id: zone.Id,
          ...(zone.Name ? { name: zone.Name } : {}),
          ...(zone.Hostnames[0] ? { hostname: zone.Hostnames[0], hostnames: zone.Hostnames } : {}),
        });
    const more = list.HasMoreItems ?? list.Items.length === PER_PAGE;
    if (!more) break;
    if (page === MAX_PAGES) zones.partial = true;
  }
  return zones;
}

export function createZoneDirectory(options: {
  platform: PlatformClient;
  now: () => number;
  logger: Logger;
  ttlMs?: number;
}): ZoneDirectory {
  const { platform, now, logger } = options;
  const ttlMs = options.ttlMs ?? ZONE_LIST_TTL_MS;
  const kept = new Map<ZoneKind, Kept>();
  const loading = new Map<ZoneKind, Promise<ZoneChoice[]>>();

  async function loadShieldZones(): Promise<ZoneChoice[]> {
    const [pulls, shields] = await Promise.all([
      // Names only: without them the Shield zones are still listed, by id.
      fresh('pullzone').catch(() => [] as ZoneChoice[]),
      (async () => {
        const all = [];
        let partial = false;
        for (let page = 1; page <= MAX_PAGES; page++) {
          const list = await platform.listShieldZones({ page, perPage: PER_PAGE });
          all.push(...list.data);
          const total = list.page?.totalCount;
          if (list.data.length < PER_PAGE || (total != null && page * PER_PAGE >= total)) break;
          if (page === MAX_PAGES) partial = true;
        }
        return Object.assign(all, { partial });
      })(),
    ]);
    const names = new Map(pulls.map((zone) => [zone.id, zone.name]));
    const zones: Loaded = shields.flatMap((zone) => {
      if (zone.shieldZoneId === undefined) return [];
      const name = zone.pullZoneId == null ? undefined : names.get(zone.pullZoneId);
      return [
        {
          kind: 'shieldzone' as const,
          id: zone.shieldZoneId,
          ...(name ? { name } : {}),
          ...(zone.pullZoneId != null ? { pullZoneId: zone.pullZoneId } : {}),
        },
      ];
    });
    zones.partial = shields.partial;
    return zones;
  }

  /** The kept list when it is young enough. */
  function young(kind: ZoneKind): ZoneChoice[] | undefined {
    const entry = kept.get(kind);
    return entry && now() - entry.at < ttlMs ? entry.zones : undefined;
  }

  /** A list at most `ttlMs` old: the kept one, or the one loading, or a new load. */
  function fresh(kind: ZoneKind, reload = false): Promise<ZoneChoice[]> {
    const known = reload ? undefined : young(kind);
    if (known) return Promise.resolve(known);
    const running = loading.get(kind);
    if (running) return running;
    const load = (kind === 'pullzone' ? loadPullZones(platform) : loadShieldZones())
      .then((zones) => {
        kept.set(kind, { zones, at: now() });
        return zones;
      })
      .finally(() => loading.delete(kind));
    loading.set(kind, load);
    return load;
  }

  /**
   * The zone `pick` finds in the list, and the list. Made in the last minute, perhaps: it is looked
   * for once more in a fresh list before it is missing (loads under way are shared, so misses at
   * once cost one load).
   */
  async function lookUp(kind: ZoneKind, pick: (zones: ZoneChoice[]) => ZoneChoice | undefined) {
    let list: Loaded = await fresh(kind);
    let zone = pick(list);
    if (!zone) {
      list = await fresh(kind, true);
      zone = pick(list);
    }
    return { zone, list };
  }

  /** The list, or nothing when it fails or takes longer than `waitMs` (the load goes on). */
  async function within(kind: ZoneKind, waitMs: number): Promise<ZoneChoice[]> {
    const load = fresh(kind);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), waitMs);
    });
    try {
      const zones = await Promise.race([load, late]);
      if (zones === undefined) {
        logger.info('zone list not loaded in time; the picker shows none for now', { kind, waitMs });
        load.catch(() => undefined);
        return young(kind) ?? [];
      }
      return zones;
    } catch (error) {
      logger.warn('zone list could not be loaded; the picker shows none', { kind, error });
      return [];
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async suggest(pick, typed, { waitMs, limit }) {
      const kinds: ZoneKind[] = pick === 'any' ? ['pullzone', 'shieldzone'] : [pick];
      const lists = await Promise.all(kinds.map((kind) => within(kind, waitMs)));
      const query = typed.trim().toLowerCase();
      const matches = (zone: ZoneChoice) =>
        query === '' || String(zone.id).startsWith(query) || zone.name?.toLowerCase().includes(query);
      // An id typed in full comes first; then the list's order.
      const ranked = lists.map((list) => {
        const matching = list.filter(matches);
        const exact = matching.filter((zone) => String(zone.id) === query);
        return [...exact, ...matching.filter((zone) => String(zone.id) !== query)];
      });
      // Both kinds share the bound: neither crowds the other out while it has room.
      const [first = [], second = []] = ranked;
      const firstShare = Math.max(Math.ceil(limit / 2), limit - second.length);
      const taken = first.slice(0, firstShare);
      return [...taken, ...second.slice(0, limit - taken.length)];
    },

    async find(kind, id) {
      const { zone, list } = await lookUp(kind, (zones) => zones.find((candidate) => candidate.id === id));
      if (zone) return { zone };
      return list.partial ? { unchecked: true } : { absent: true };
    },

    async findHostname(host) {
      const { zone, list } = await lookUp('pullzone', (zones) => servingZone(zones, host));
      if (zone) return { zone };
      if (list.partial) return { unchecked: true };
      return { absent: true, hostnames: list.flatMap((candidate) => candidate.hostnames ?? []) };
    },
  };
}

/**
 * The suggestions with the id typed offered as it is, first, for each kind the picker takes: a
 * list cannot hold every zone (no list grant, past the pages read, a slow platform), and the
 * command checks the id against the platform as a typed one. Where a listed zone has that id, it
 * is the offer, by name: Slack wants each option's value once.
 */
export function withTypedId(
  pick: ZonePick,
  typed: string,
  listed: ZoneChoice[],
  limit: number,
): ZoneChoice[] {
  const query = typed.trim();
  const id = readZoneId(query);
  if (id === undefined) return listed.slice(0, limit);
  const kinds: ZoneKind[] = pick === 'any' ? ['pullzone', 'shieldzone'] : [pick];
  const perKind = kinds.map((kind) => {
    const ofKind = listed.filter((zone) => zone.kind === kind);
    const exact = ofKind.filter((zone) => zone.id === id);
    const asTyped: ZoneChoice = { kind, id, typed: true };
    return { exact: exact.length > 0 ? exact : [asTyped], rest: ofKind.filter((zone) => zone.id !== id) };
  });
  // Room for what was typed: the longest list gives up its last zones first.
  let over = perKind.reduce((sum, part) => sum + part.exact.length + part.rest.length, 0) - limit;
  while (over > 0) {
    const longest = perKind.reduce((a, b) => (b.rest.length > a.rest.length ? b : a));
    if (longest.rest.length === 0) break;
    longest.rest.pop();
    over--;
  }
  return perKind.flatMap((part) => [...part.exact, ...part.rest]).slice(0, limit);
}
