/**
 * `/edge purge URL…` (`purge.url`): up to 20 URLs, each purged as it is, each host one the
 * account's pull zones serve. A URL for a host the account does not serve is refused with the
 * hostnames close to it, and the others still run: a purge of an exact URL only costs the next
 * request a trip to the origin, and the answer names what was refused, so holding back the
 * others for one typo would only slow an incident down. A URL that purges more than itself (`*`,
 * a path ending in `/`) makes the whole command a `purge.zone` for the policy: one command, one
 * decision, and the approver sees every URL it would purge.
 */
import type { z } from 'zod';
import { PlatformError } from '../../platform/errors.js';
import type { PullZoneDetail } from '../../platform/schemas.js';
import { md } from '../../reply/markup.js';
import { ephemeral, type Reply, type ReplyBlock } from '../../reply/model.js';
import type { JsonValue } from '../../state/canonical-json.js';
import { OperationFailedError, UserFacingError } from '../engine/errors.js';
import { defineOperation, type ParseResult, type RunContext } from '../engine/types.js';
import { targetNotFound } from '../shared/change-targets.js';
import { PurgeButtonValueSchema, purgeForm, readPurgeForm } from './form.js';
import { checkHosts } from './hosts.js';
import { purgedReply, purgeEach, refusedBlock, uncheckedNote, withAskedBy } from './run.js';
import { purgesMore, readPurgeUrls } from './targets.js';

/** What a purge is about, for its audit rows and locks: the hosts of its URLs. */
const hostsOf = (urls: readonly string[]) =>
  [...new Set(urls.map((url) => new URL(url).hostname))].sort().join(',');

/** A reply with more blocks under it. */
const withBlocks = (reply: Reply, blocks: ReplyBlock[]): Reply => ({
  ...reply,
  blocks: [...reply.blocks, ...blocks],
});

/**
 * The URLs that purge more than themselves take the whole command through `purge.zone`'s gate:
 * approval where a rule holds it, a refusal where the caller may not purge a zone, else run now.
 */
async function purgeAsZone(
  ctx: RunContext,
  served: Awaited<ReturnType<typeof checkHosts>>['served'],
  notes: ReplyBlock[],
): Promise<Reply | undefined> {
  const urls = served.map((url) => url.url);
  const zones = new Map<number, string | undefined>();
  for (const url of served) if (url.pullZoneId !== undefined) zones.set(url.pullZoneId, url.pullZoneName);
  const pullZones = [...zones].map(([id, name]) => ({ id, ...(name ? { name } : {}) }));
  const wide = urls.filter((url) => purgesMore(url) !== undefined);
  const reply = await ctx.services.approvals.submit(ctx, {
    operation: 'purge.zone',
    target: pullZones.length > 0 ? pullZones.map((zone) => zone.id).join(',') : hostsOf(urls),
    params: { purge: 'urls', urls, pullZones } satisfies Record<string, JsonValue>,
    reason: '',
  });
  if (!reply) return reply;
  const why: ReplyBlock = {
    type: 'context',
    text: md`${wide.join(', ')} purge${wide.length === 1 ? 's' : ''} more than ${wide.length === 1 ? 'itself' : 'themselves'} (a * or a path ending in /), so this purge counts as purge.zone, for every URL in it.`,
  };
  if (reply.visibility !== 'channel')
    // Asked for, or refused by the policy or an open request: said to the requester alone.
    return { ...withBlocks(reply, [why, ...notes]), ...(reply.requested ? {} : { refused: true }) };
  return withAskedBy(withBlocks(reply, [why, ...notes]), ctx.userId);
}

/** Checks each URL's host, then purges what the account serves, or asks for approval. */
export async function purgeUrls(ctx: RunContext, urls: readonly string[]): Promise<Reply | undefined> {
  const check = await checkHosts(ctx, urls);
  if (check.served.length === 0) {
    const text = `Nothing was purged: no pull zone of this account serves ${urls.length === 1 ? 'that URL’s host' : 'the hosts of those URLs'}.`;
    throw new UserFacingError(
      text,
      ephemeral(text, [{ type: 'text', text: md`:warning: ${text}` }, ...refusedBlock(check.refused)]),
    );
  }
  if (check.served.some((url) => purgesMore(url.url) !== undefined))
    return purgeAsZone(ctx, check.served, [
      ...refusedBlock(check.refused),
      ...uncheckedNote(check.unchecked),
    ]);
  const outcomes = await purgeEach(
    ctx,
    check.served.map((url) => url.url),
  );
  const reply = purgedReply(ctx, outcomes, check.refused, check.unchecked);
  // Audited as failed, and still every URL said.
  if (outcomes.every((outcome) => !outcome.ok)) throw new OperationFailedError(reply.text, false, reply);
  return reply;
}

/** The zone the Purge… button names, for its form; an unknown one is refused in the platform's words. */
async function zoneForForm(ctx: RunContext, pullZoneId: number): Promise<PullZoneDetail> {
  try {
    return await ctx.services.platform.getPullZone(pullZoneId);
  } catch (error) {
    if (error instanceof PlatformError && error.kind === 'not-found')
      throw targetNotFound(`pull zone ${pullZoneId}`, '/edge pullzones');
    throw error;
  }
}

interface PurgeArgs {
  /** Checked and whole; none when the form is to open. */
  urls: string[];
}

/** `/edge purge URL…`, and `/edge purge` alone for its form. */
export const purgeUrl = defineOperation({
  id: 'purge.url',
  words: ['purge'],
  usage: '/edge purge URL…',
  summary:
    'purge up to 20 URLs from the edge cache, each as it is; a URL with * or ending in / counts as purge zone',
  example: '/edge purge https://www.example.com/assets/app.js https://www.example.com/index.html',
  flags: {},
  changes: { command: true, interactions: ['urls'] },
  // The command alone and the Purge… button only open the form; its submission is what runs.
  outsideApproval: { command: (args: PurgeArgs) => args.urls.length === 0, interactions: ['form'] },
  parse(positionals): ParseResult<PurgeArgs> {
    const read = readPurgeUrls(positionals);
    return read.ok ? { ok: true, args: { urls: read.urls } } : read;
  },
  target: (args: PurgeArgs) => (args.urls.length === 0 ? undefined : hostsOf(args.urls)),
  async run(ctx, args: PurgeArgs) {
    if (args.urls.length > 0) return purgeUrls(ctx, args.urls);
    await ctx.surface.openModal(purgeForm());
    return undefined;
  },
  actions: {
    async form(ctx, value) {
      let asked: z.infer<typeof PurgeButtonValueSchema> | undefined;
      try {
        asked = PurgeButtonValueSchema.parse(JSON.parse(value));
      } catch {
        throw new UserFacingError('That Purge… button is no longer readable: type /edge purge URL… instead.');
      }
      const zone = await zoneForForm(ctx, asked.z);
      await ctx.surface.openModal(purgeForm({ zone, paths: asked.p }));
      return undefined;
    },
  },
  submissions: {
    async urls(ctx, values, privateMetadata) {
      const read = readPurgeForm(values, privateMetadata);
      if ('errors' in read) return read;
      return {
        run: () => purgeUrls(ctx, read.urls),
        target: hostsOf(read.urls),
        params: { urls: read.urls },
      };
    },
  },
});
