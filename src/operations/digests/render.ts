/**
 * What digests say: what a digest summarises and when, the period of an occurrence in local words
 * ("09:00 yesterday"), the note a digest's post opens with, a quiet period's one line, the
 * listing, and the notes when a digest is set or ends. Pure: every instant is passed in.
 */
import { channelRef, joinMarkup, type Markup, md, mention, nest } from '../../reply/markup.js';
import { ephemeral, inChannel, type Reply, type ReplyBlock } from '../../reply/model.js';
import type { Digest, DigestEndReason } from '../../state/digests.js';
import { localDayOf, wallClockOf } from '../../time/zones.js';
import { describeEvery, formatAtMinute, WEEKDAY_NAMES } from './schedule.js';

const DAY_MS = 86_400_000;

/** The operation a digest runs, as the policy names it. */
export const runOperationOf = (digest: Pick<Digest, 'kind'>): 'logs.origin' | 'shield.export' =>
  digest.kind === 'logs' ? 'logs.origin' : 'shield.export';

/** `pull zone 308006` or `Shield zone 5101`. */
export const zoneWords = (digest: Pick<Digest, 'kind' | 'zoneId'>): string =>
  digest.kind === 'logs' ? `pull zone ${digest.zoneId}` : `Shield zone ${digest.zoneId}`;

/** `origin errors of pull zone 308006`, `Shield events of zone 5101 (query "x", filter country:in:DE)`. */
export function describeDigest(digest: Pick<Digest, 'kind' | 'zoneId' | 'query' | 'filters'>): string {
  if (digest.kind === 'logs') return `origin errors of pull zone ${digest.zoneId}`;
  const extras = [
    digest.query ? `query "${digest.query}"` : '',
    ...digest.filters.map((filter) => `filter ${filter}`),
  ].filter(Boolean);
  return `Shield events of zone ${digest.zoneId}${extras.length > 0 ? ` (${extras.join(', ')})` : ''}`;
}

/** `every day at 09:00 Europe/Berlin`. */
export const describeWhen = (digest: Pick<Digest, 'every' | 'weekday' | 'atMinute' | 'timeZone'>): string =>
  `${describeEvery(digest)} at ${formatAtMinute(digest.atMinute)} ${digest.timeZone}`;

const hhmm = (ms: number, timeZone: string) =>
  new Date(wallClockOf(ms, timeZone)).toISOString().slice(11, 16);

/** `Mon 2026-11-23 09:00 Europe/Berlin`. */
export function formatLocal(ms: number, timeZone: string): string {
  const wall = new Date(wallClockOf(ms, timeZone));
  const weekday = WEEKDAY_NAMES[wall.getUTCDay()]!.slice(0, 3);
  return `${weekday} ${wall.toISOString().slice(0, 10)} ${wall.toISOString().slice(11, 16)} ${timeZone}`;
}

/** `09:00 today`, `09:00 yesterday`, `09:00 on Friday`, `09:00 on 2026-11-14`, seen on `nowMs`'s local day. */
function localMoment(ms: number, timeZone: string, nowMs: number): string {
  const days = Math.round((localDayOf(nowMs, timeZone) - localDayOf(ms, timeZone)) / DAY_MS);
  const day =
    days === 0
      ? 'today'
      : days === 1
        ? 'yesterday'
        : days > 1 && days < 7
          ? `on ${WEEKDAY_NAMES[new Date(localDayOf(ms, timeZone)).getUTCDay()]}`
          : `on ${new Date(localDayOf(ms, timeZone)).toISOString().slice(0, 10)}`;
  return `${hhmm(ms, timeZone)} ${day}`;
}

/** An occurrence's period in words: `between 09:00 yesterday and 09:00 today (Europe/Berlin)`. */
export const describePeriod = (period: Period, timeZone: string, nowMs: number): string =>
  `between ${localMoment(period.startMs, timeZone, nowMs)} and ${localMoment(period.endMs, timeZone, nowMs)} (${timeZone})`;

/** The same, as a title: `09:00 yesterday – 09:00 today (Europe/Berlin)`. */
export const periodTitle = (period: Period, timeZone: string, nowMs: number): string =>
  `${localMoment(period.startMs, timeZone, nowMs)} – ${localMoment(period.endMs, timeZone, nowMs)} (${timeZone})`;

export interface Period {
  startMs: number;
  endMs: number;
}

/** What an occurrence knows of itself when it is posted: on time or late, and what was missed. */
export interface OccurrenceNote {
  occurrenceAt: number;
  postedAt: number;
  late: boolean;
  /** Earlier occurrences that came and went while no replica ran: not posted. */
  missed: number;
  nextAt: number;
}

/** The line a digest's post opens with: whose digest, how often, and whether it is late. */
export function digestContext(digest: Digest, note: OccurrenceNote): ReplyBlock {
  const parts: Markup[] = [
    md`:calendar: Digest of ${describeDigest(digest)}, ${describeWhen(digest)}, set by ${nest(mention(digest.owner))}. Next: ${formatLocal(note.nextAt, digest.timeZone)}.`,
  ];
  if (note.late)
    parts.push(
      md`:hourglass: Posted late: it was due at ${formatLocal(note.occurrenceAt, digest.timeZone)}.${note.missed > 0 ? ` ${note.missed} earlier ${note.missed === 1 ? 'one was' : 'ones were'} missed while the bot was not running, and ${note.missed === 1 ? 'is' : 'are'} not posted.` : ''}`,
    );
  return { type: 'context', text: joinMarkup(parts) };
}

/** A period with nothing to report, in one line, so that silence never stands for a broken digest. */
export function quietLine(digest: Digest, text: string, note: OccurrenceNote, caveat?: string): Reply {
  const missed =
    note.missed > 0
      ? `; ${note.missed} earlier ${note.missed === 1 ? 'one was' : 'ones were'} missed while the bot was not running, and not posted`
      : '';
  const late = note.late
    ? ` (posted late: it was due at ${formatLocal(note.occurrenceAt, digest.timeZone)}${missed})`
    : '';
  const line = `${text}${late}.${caveat ? ` ${caveat}` : ''}`;
  return inChannel(line, [{ type: 'text', text: md`:calendar: ${line}` }]);
}

/** Posted in the channel when a digest is set there: everyone sees what will arrive, and when. */
export function setMessage(digest: Digest): Reply {
  const text = `${describeDigest(digest)}, ${describeWhen(digest)}`;
  return inChannel(`Digest set: ${text}`, [
    {
      type: 'text',
      text: md`:calendar: ${nest(mention(digest.owner))} set a digest here: ${text}. The first arrives ${formatLocal(digest.nextRunAt, digest.timeZone)}; each covers the time since the one before.`,
    },
    { type: 'context', text: md`${digest.id} · \`/edge digests\` lists this channel's digests, with Stop.` },
  ]);
}

/** This channel's digests, with a Stop button on those the caller may stop. */
export function digestList(
  digests: readonly { digest: Digest; mayStop: boolean }[],
  channelId: string,
  stopActionId: string,
): Reply {
  if (digests.length === 0)
    return ephemeral('No digest is set in this channel.', [
      {
        type: 'text',
        text: md`No digest is set in ${nest(channelRef(channelId))}. Set one with \`/edge digest logs PULLZONE_ID --at 09:00\`.`,
      },
    ]);
  const blocks: ReplyBlock[] = [{ type: 'header', text: `Digests in this channel (${digests.length})` }];
  for (const { digest, mayStop } of digests) {
    blocks.push({
      type: 'text',
      text: md`*${describeDigest(digest)}*, ${describeWhen(digest)}, set by ${nest(mention(digest.owner))}. Next: ${formatLocal(digest.nextRunAt, digest.timeZone)} · ${digest.id}`,
    });
    if (mayStop)
      blocks.push({
        type: 'actions',
        buttons: [
          { text: 'Stop', actionId: `${stopActionId}#${digest.id}`, value: digest.id, style: 'danger' },
        ],
      });
  }
  return ephemeral(`${digests.length} digest${digests.length === 1 ? '' : 's'} in this channel`, blocks);
}

/** Why a digest ended, as a clause. */
export function endingWords(digest: Digest): Markup {
  const reasons: Record<DigestEndReason, () => Markup> = {
    stopped: () => (digest.endedBy ? md`stopped by ${nest(mention(digest.endedBy))}` : md`stopped`),
    policy: () =>
      md`the policy no longer lets ${nest(mention(digest.owner))} run ${runOperationOf(digest)} in this channel`,
    approval: () =>
      md`the policy now holds ${runOperationOf(digest)} in this channel for approval, and a digest never runs what waits for approval`,
    channel: () => md`the bot can no longer post in this channel`,
  };
  return reasons[digest.endedReason ?? 'stopped']();
}

/** The note in the channel when a digest ends. */
export const endedNote = (digest: Digest): Reply =>
  inChannel(`The digest of ${describeDigest(digest)} has stopped`, [
    {
      type: 'text',
      text: md`:stop_sign: The digest of ${describeDigest(digest)} (${describeWhen(digest)}) has stopped: ${nest(endingWords(digest))}.`,
    },
  ]);

/** The owner's DM when a digest stops for a reason other than their own Stop. */
export const endedDirect = (digest: Digest, why: Markup): Reply =>
  ephemeral(`Your digest of ${describeDigest(digest)} has stopped`, [
    {
      type: 'text',
      text: md`:stop_sign: Your digest of ${describeDigest(digest)} in ${nest(channelRef(digest.channelId))} (${describeWhen(digest)}) has stopped: ${nest(why)}. Set it again with \`/edge digest\` once that is sorted out.`,
    },
  ]);
