/**
 * Each URL's host against the account's pull zones, read as the pickers read them (the list of
 * `GET /pullzone`, kept for a minute): a host no zone serves is refused, with the hostnames
 * close to it. Where the list cannot settle it (an account larger than the bot reads, or a rule
 * that holds the listing for this caller), the URL goes on unchecked and the platform decides.
 */
import { closeNames } from '../../policy/suggest.js';
import type { RunContext } from '../engine/types.js';

/** A URL the account serves, with the pull zone that serves it when that is known. */
export interface ServedUrl {
  url: string;
  pullZoneId?: number;
  pullZoneName?: string;
}

/** A URL refused because no pull zone of the account has its host. */
export interface RefusedUrl {
  url: string;
  host: string;
  /** Hostnames of the account close to it, closest first. */
  close: string[];
}

export interface HostCheck {
  served: ServedUrl[];
  refused: RefusedUrl[];
  /** Hosts that could not be checked against the account's list. */
  unchecked: string[];
}

export async function checkHosts(ctx: RunContext, urls: readonly string[]): Promise<HostCheck> {
  const hosts = [...new Set(urls.map((url) => new URL(url).hostname))];
  // Reading the list would answer what a rule on the listing holds back (which hostnames exist).
  const listingHeld = (await ctx.access.held()).has('pullzone.list');
  // At once, so that hosts missing from the kept list share one load of it afresh.
  const found = new Map(
    await Promise.all(
      hosts.map(
        async (host) =>
          [
            host,
            listingHeld ? ({ unchecked: true } as const) : await ctx.services.zones.findHostname(host),
          ] as const,
      ),
    ),
  );
  const check: HostCheck = { served: [], refused: [], unchecked: [] };
  for (const url of urls) {
    const host = new URL(url).hostname;
    const answer = found.get(host)!;
    if ('absent' in answer) check.refused.push({ url, host, close: closeNames(host, answer.hostnames) });
    else if ('unchecked' in answer) check.served.push({ url });
    else
      check.served.push({
        url,
        pullZoneId: answer.zone.id,
        ...(answer.zone.name ? { pullZoneName: answer.zone.name } : {}),
      });
  }
  check.unchecked = hosts.filter((host) => 'unchecked' in found.get(host)!);
  return check;
}
