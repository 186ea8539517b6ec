/**
 * Purging URLs one by one and saying how each ended: a URL the platform refused or failed on
 * never hides the others, and none is sent twice (a purge is a write: never retried).
 */
import { inlineCode } from '../../reply/escape.js';
import { joinMarkup, type Markup, md, mention, nest, trusted } from '../../reply/markup.js';
import { inChannel, type Reply, type ReplyBlock } from '../../reply/model.js';
import { counted } from '../../reply/words.js';
import { describeFailure } from '../engine/failure.js';
import type { RunContext } from '../engine/types.js';
import type { RefusedUrl } from './hosts.js';

/** Purges sent at once; the platform waits for each purge before it answers. */
const PURGES_AT_ONCE = 4;

/** How one URL's purge ended: accepted by the platform, or what it said. */
export interface UrlOutcome {
  url: string;
  ok: boolean;
  /** The user's words for a failure, with a correlation id when its cause is unknown to them. */
  error?: string;
}

/** Purges each URL once, a few at a time, in the order given. */
export async function purgeEach(ctx: RunContext, urls: readonly string[]): Promise<UrlOutcome[]> {
  const outcomes: UrlOutcome[] = new Array(urls.length);
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const index = next++;
      const url = urls[index]!;
      try {
        await ctx.services.platform.purgeUrl(url);
        outcomes[index] = { url, ok: true };
      } catch (error) {
        outcomes[index] = { url, ok: false, error: describeFailure(error, ctx).text };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PURGES_AT_ONCE, urls.length) }, worker));
  return outcomes;
}

export const code = (text: string): Markup => trusted(inlineCode(text));

/** `• ✓ URL purged` / `• ✗ URL not purged: why`, one a line. */
export const outcomeLines = (outcomes: readonly UrlOutcome[]): Markup =>
  joinMarkup(
    outcomes.map((outcome) =>
      outcome.ok
        ? md`• :white_check_mark: ${nest(code(outcome.url))} purged`
        : md`• :x: ${nest(code(outcome.url))} not purged: ${outcome.error ?? 'the platform failed'}`,
    ),
  );

/** The same, in plain words, for an approval card and an audit row. */
export const outcomeText = (outcomes: readonly UrlOutcome[]): string =>
  outcomes
    .map((outcome) => (outcome.ok ? `✓ ${outcome.url}` : `✗ ${outcome.url}: ${outcome.error ?? 'failed'}`))
    .join('\n');

/** How many the platform accepted, as a headline says it. */
export const acceptedWords = (outcomes: readonly UrlOutcome[]): string => {
  const accepted = outcomes.filter((outcome) => outcome.ok).length;
  return accepted === outcomes.length
    ? `${counted(accepted, 'URL')} purged`
    : `${accepted} of ${counted(outcomes.length, 'URL')} purged`;
};

/** The URLs refused for their host, each with the hostnames of the account close to it. */
export function refusedBlock(refused: readonly RefusedUrl[]): ReplyBlock[] {
  if (refused.length === 0) return [];
  const lines = refused.map((url) => {
    const close =
      url.close.length > 0
        ? md` Close: ${url.close.join(', ')}.`
        : md` No hostname of the account is close to it.`;
    return md`• :no_entry: ${nest(code(url.url))} refused: no pull zone of this account has the hostname ${url.host}.${nest(close)}`;
  });
  return [
    {
      type: 'text',
      text: md`*Not purged*, as its host is not served here (\`/edge pullzones\` lists the zones and their hostnames):\n${nest(joinMarkup(lines))}`,
    },
  ];
}

/** Hosts that could not be checked against the account's list, said so under the answer. */
export const uncheckedNote = (hosts: readonly string[]): ReplyBlock[] =>
  hosts.length === 0
    ? []
    : [
        {
          type: 'context',
          text: md`Not checked against this account's pull zones (the list could not be read whole for you): ${hosts.join(', ')}. The platform decided.`,
        },
      ];

/** The answer in the channel: what was purged, by whom, and how each URL ended. */
export function purgedReply(
  ctx: RunContext,
  outcomes: readonly UrlOutcome[],
  refused: readonly RefusedUrl[],
  unchecked: readonly string[],
): Reply {
  const headline = `${acceptedWords(outcomes)} from the edge cache`;
  return inChannel(headline, [
    { type: 'text', text: md`:broom: *${headline}*, by ${nest(mention(ctx.userId))}` },
    { type: 'text', text: outcomeLines(outcomes) },
    ...refusedBlock(refused),
    ...uncheckedNote(unchecked),
    {
      type: 'context',
      text: md`Each URL purged as it is (exactPath), not what is below it; the next request for it is fetched from the origin. Not retried: run the command again for a URL that failed.`,
    },
  ]);
}

/** A change's answer in the channel, with who asked under it (a purge run at once names its requester). */
export const withAskedBy = (reply: Reply | undefined, userId: string): Reply | undefined =>
  reply && reply.visibility === 'channel'
    ? {
        ...reply,
        blocks: [...reply.blocks, { type: 'context', text: md`Asked by ${nest(mention(userId))}` }],
      }
    : reply;
