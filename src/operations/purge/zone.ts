/**
 * `/edge purge zone PULLZONE_ID [--tag TAG]` (`purge.zone`): a pull zone's whole cache, or what
 * carries one cache tag, after approval where the policy says so (the built-in default does: a
 * full purge can send every request to the origin at once). The gate also carries URLs that purge
 * more than themselves (`*`, a path ending in `/`), which the policy reads as `purge.zone` too.
 */
import { z } from 'zod';
import { PlatformError } from '../../platform/errors.js';
import type { PullZoneDetail } from '../../platform/schemas.js';
import type { JsonValue } from '../../state/canonical-json.js';
import { failedExecution, type GatedOperation } from '../approvals/gate.js';
import { defineOperation, parseWith } from '../engine/types.js';
import { namedId, targetNotFound } from '../shared/change-targets.js';
import { PullZoneIdArg } from '../shared/ids.js';
import { outcomeText, purgeEach, withAskedBy } from './run.js';
import { purgesMore } from './targets.js';

const ZoneNamesSchema = z.object({
  name: z.string(),
  hostnames: z.array(z.string()),
  originUrl: z.string(),
});

/** What a request of `purge.zone` stores: a zone (whole, or one tag of it), or wide URLs. */
const ParamsSchema = z.discriminatedUnion('purge', [
  z.object({
    purge: z.literal('zone'),
    pullZoneId: z.number().int().positive(),
    cacheTag: z.string().optional(),
    pullZone: ZoneNamesSchema,
  }),
  z.object({
    purge: z.literal('urls'),
    urls: z.array(z.string()).min(1),
    /** The pull zones serving them, by id, as named when asked. */
    pullZones: z.array(z.object({ id: z.number(), name: z.string().optional() })),
  }),
]);
type PurgeParams = z.infer<typeof ParamsSchema>;

const ORIGIN_BURST =
  'every cached object of this zone is fetched from the origin again; expect a burst of origin traffic';

const zoneWords = (params: Extract<PurgeParams, { purge: 'zone' }>) =>
  `pull zone ${namedId(params.pullZoneId, params.pullZone.name)}`;

const urlWords = (urls: readonly string[]) =>
  urls.length === 1 ? `${urls[0]}` : `${urls.length} URLs, some of which purge more than themselves`;

export const purgeZoneGate: GatedOperation = {
  id: 'purge.zone',
  describe(params) {
    const purge = ParamsSchema.parse(params);
    if (purge.purge === 'urls') return `Purge ${urlWords(purge.urls)} from the edge cache`;
    return purge.cacheTag === undefined
      ? `Purge the whole cache of ${zoneWords(purge)}`
      : `Purge cache tag “${purge.cacheTag}” of ${zoneWords(purge)}`;
  },
  done(params) {
    const purge = ParamsSchema.parse(params);
    if (purge.purge === 'urls') return `Purged ${urlWords(purge.urls)}`;
    return purge.cacheTag === undefined
      ? `Whole cache purged for ${zoneWords(purge)}`
      : `Cache tag “${purge.cacheTag}” purged for ${zoneWords(purge)}`;
  },
  fields(params) {
    const purge = ParamsSchema.parse(params);
    if (purge.purge === 'urls')
      return [
        { label: 'URLs', value: purge.urls.join('\n'), code: true },
        {
          label: 'Purge more than themselves',
          value: purge.urls
            .flatMap((url) => (purgesMore(url) ? [`${url}: ${purgesMore(url)}`] : []))
            .join('\n'),
        },
        {
          label: 'Pull zones',
          value: purge.pullZones.map((zone) => namedId(zone.id, zone.name)).join(', ') || 'not checked',
        },
      ];
    return [
      { label: 'Pull zone', value: namedId(purge.pullZoneId, purge.pullZone.name) },
      { label: 'Hostnames', value: purge.pullZone.hostnames.join(', ') || 'none' },
      { label: 'Origin', value: purge.pullZone.originUrl || 'unknown' },
      {
        label: 'What is purged',
        value:
          purge.cacheTag === undefined
            ? 'everything: the whole cache of the zone'
            : `only what carries the cache tag “${purge.cacheTag}”`,
      },
    ];
  },
  warning(params) {
    const purge = ParamsSchema.parse(params);
    if (purge.purge === 'urls')
      return 'What these URLs purge is fetched from the origin again; a * or a path ending in / may reach every cached object below it.';
    const origin = purge.pullZone.originUrl ? ` (${purge.pullZone.originUrl})` : '';
    return purge.cacheTag === undefined
      ? `A full purge: ${ORIGIN_BURST}${origin}.`
      : `Every cached object tagged “${purge.cacheTag}” is fetched from the origin${origin} again.`;
  },
  async execute(params, ctx) {
    const purge = ParamsSchema.parse(params);
    if (purge.purge === 'urls') {
      const outcomes = await purgeEach(ctx, purge.urls);
      const accepted = outcomes.filter((outcome) => outcome.ok).length;
      return {
        ok: accepted > 0,
        detail: `${accepted} of ${purge.urls.length} accepted by the platform:\n${outcomeText(outcomes)}`,
      };
    }
    try {
      await ctx.services.platform.purgePullZoneCache(purge.pullZoneId, purge.cacheTag);
    } catch (error) {
      return failedExecution(ctx, error);
    }
    return {
      ok: true,
      detail:
        purge.cacheTag === undefined
          ? `The platform purged the whole cache of ${zoneWords(purge)}.`
          : `The platform purged what carries cache tag “${purge.cacheTag}” in ${zoneWords(purge)}.`,
    };
  },
};

const ArgsSchema = z.object({
  pullZoneId: PullZoneIdArg,
  tag: z
    .string()
    .trim()
    .min(1, { error: '--tag takes the cache tag to purge, e.g. --tag product-42' })
    .max(255, { error: '--tag is at most 255 characters' })
    .optional(),
});

/** The zone as the platform names it, for the card: an unknown id is refused before anyone is asked. */
async function zoneToPurge(ctx: Parameters<GatedOperation['execute']>[1], pullZoneId: number) {
  let zone: PullZoneDetail;
  try {
    zone = await ctx.services.platform.getPullZone(pullZoneId);
  } catch (error) {
    if (error instanceof PlatformError && error.kind === 'not-found')
      throw targetNotFound(`pull zone ${pullZoneId}`, '/edge pullzones');
    throw error;
  }
  return {
    name: zone.name,
    hostnames: zone.hostnames.map((hostname) => hostname.value),
    originUrl: zone.originUrl,
  };
}

/** `/edge purge zone PULLZONE_ID [--tag TAG]`. */
export const purgeZone = defineOperation({
  id: 'purge.zone',
  words: ['purge', 'zone'],
  usage: '/edge purge zone PULLZONE_ID [--tag TAG]',
  summary:
    'purge a pull zone’s whole edge cache, or only what carries a cache tag (needs approval by default: every object is fetched from the origin again)',
  example: '/edge purge zone 308006 --tag product-42',
  flags: { tag: { kind: 'string' } },
  changes: { command: true },
  parse(positionals, flags) {
    if (positionals.length === 0) return { ok: false, error: 'give the pull zone id, e.g. 308006' };
    if (positionals.length > 1) return { ok: false, error: `unexpected argument "${positionals[1]}"` };
    return parseWith(ArgsSchema, { pullZoneId: positionals[0], tag: flags.tag });
  },
  target: (args) => String(args.pullZoneId),
  async run(ctx, args) {
    const pullZone = await zoneToPurge(ctx, args.pullZoneId);
    const params: Record<string, JsonValue> = {
      purge: 'zone',
      pullZoneId: args.pullZoneId,
      ...(args.tag === undefined ? {} : { cacheTag: args.tag }),
      pullZone,
    };
    const reply = await ctx.services.approvals.submit(ctx, {
      operation: 'purge.zone',
      target: String(args.pullZoneId),
      params,
      reason: '',
    });
    return withAskedBy(reply, ctx.userId);
  },
});
