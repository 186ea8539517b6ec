/**
 * What watches post: the watch message (updated in place after every poll), the note when one
 * ends, the alert of an episode (one message, updated with its peak and its end), and the list.
 * Pure: every instant is passed in.
 */

import { channelRef, joinMarkup, type Markup, md, mention, nest } from '../../reply/markup.js';
import { commandButton, ephemeral, inChannel, type Reply, type ReplyBlock } from '../../reply/model.js';
import { counted, number } from '../../reply/words.js';
import { formatDuration } from '../../time/duration.js';
import type { Episode, Sparkline } from '../../watches/progress.js';
import { sparkline } from '../../watches/progress.js';
import type { EndReason, Watch } from '../../watches/store.js';
import { formatSpan } from '../logs/window.js';
import { formatUtc } from '../shared/time-args.js';

export const SNOOZE_MS = 30 * 60_000;

/** `5xx, code dns_lookup` or `all statuses`. */
export function describeWatchFilters(watch: Pick<Watch, 'status' | 'code'>): string {
  const parts = [watch.status ? `status ${watch.status}` : '', watch.code ? `code ${watch.code}` : ''];
  return parts.filter(Boolean).join(', ') || 'every status';
}

const describeAlert = (alert: NonNullable<Watch['alert']>) =>
  `more than ${number(alert.count)} within ${formatDuration(alert.windowMs)}`;

/** The `/edge logs` command that breaks the watch's errors down, for its buttons. */
export function logsCommandOf(watch: Pick<Watch, 'pullZoneId' | 'status' | 'code'>, last: string): string {
  return [
    `logs ${watch.pullZoneId} --last ${last}`,
    watch.status ? `--status ${watch.status}` : '',
    watch.code ? `--code ${watch.code}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

const ENDINGS: Record<EndReason, (watch: Watch) => Markup> = {
  stopped: (watch) => (watch.endedBy ? md`stopped by ${nest(mention(watch.endedBy))}` : md`stopped`),
  finished: (watch) => md`its ${formatDuration(watch.endsAt - watch.startedAt)} are over`,
  policy: (watch) => md`the policy no longer lets ${nest(mention(watch.owner))} watch logs in this channel`,
  channel: () => md`its message can no longer be updated in this channel`,
  approval: () =>
    md`an approval rule now names watch.logs and this watch was not approved; ask for it again with \`/edge watch logs\`, and it starts once approved`,
};

function statusLine(watch: Watch, nowMs: number): Markup {
  const parts: Markup[] = [
    watch.lastPolledAt === null ? md`Not polled yet` : md`Last polled ${formatUtc(watch.lastPolledAt)}`,
    md`every ${formatDuration(watch.everyMs)}`,
  ];
  if (watch.state === 'running') parts.push(md`ends ${formatUtc(watch.endsAt)}`);
  if (watch.progress.slowed) parts.push(md`:hourglass: slowed: the platform asked us to wait`);
  if (watch.progress.failure) parts.push(md`:warning: the last poll failed: ${watch.progress.failure}`);
  if (watch.snoozedUntil !== null && watch.snoozedUntil > nowMs)
    parts.push(md`:zzz: alerts snoozed until ${formatUtc(watch.snoozedUntil)}`);
  return joinMarkup(parts, ' · ');
}

/** `last hour, 13:05–14:05 UTC: 41,667 errors, most in a minute: 695`, the hour as `/edge logs --last 1h` names it. */
function describeSparkline(spark: Sparkline): string {
  if (!spark.hour) return 'last hour: counted at the first poll';
  return `last hour, ${formatSpan(spark.hour.startMs, spark.hour.endMs)}: ${counted(spark.total, 'error')}, most in a minute: ${number(spark.peak)}`;
}

/** The watch message: what it watches, the last hour as a sparkline, the counts, and its buttons. */
export function watchMessage(watch: Watch, nowMs: number): Reply {
  const filters = describeWatchFilters(watch);
  const spark = sparkline(watch.progress);
  const title =
    watch.state === 'running'
      ? md`:eyes: *Watching origin errors of pull zone ${watch.pullZoneId}* (${filters}) for ${nest(mention(watch.owner))}`
      : md`:white_check_mark: *Watch of pull zone ${watch.pullZoneId} ended* (${filters}): ${nest(ENDINGS[watch.endedReason ?? 'stopped'](watch))}`;
  const blocks: ReplyBlock[] = [
    { type: 'text', text: title },
    {
      type: 'fields',
      fields: [
        { label: 'Since the start', value: md`${counted(watch.progress.total, 'error')}` },
        {
          label: 'Alert',
          value: watch.alert
            ? md`${describeAlert(watch.alert)} (${number(watch.progress.episodes)} so far)`
            : md`none`,
        },
      ],
    },
    { type: 'code', text: `${spark.line}  ${describeSparkline(spark)}` },
    { type: 'context', text: statusLine(watch, nowMs) },
  ];
  if (watch.state === 'running')
    blocks.push({
      type: 'actions',
      buttons: [
        { text: 'Stop', actionId: 'watch.logs:stop', value: watch.id, style: 'danger' },
        { text: 'Snooze 30m', actionId: 'watch.logs:snooze', value: watch.id },
      ],
    });
  const text =
    watch.state === 'running'
      ? `Watching origin errors of pull zone ${watch.pullZoneId} (${filters}): ${number(watch.progress.total)} since the start`
      : `Watch of pull zone ${watch.pullZoneId} ended: ${counted(watch.progress.total, 'error')} counted`;
  return inChannel(text, blocks);
}

/** Posted under the watch message when it ends, whatever ended it. */
export function endedNote(watch: Watch): Reply {
  const why = ENDINGS[watch.endedReason ?? 'stopped'](watch);
  return inChannel(`The watch of pull zone ${watch.pullZoneId} ended.`, [
    {
      type: 'text',
      text: md`:stop_sign: The watch of pull zone ${watch.pullZoneId} ended: ${nest(why)}. It counted ${counted(watch.progress.total, 'error')} (${describeWatchFilters(watch)}) and ${counted(watch.progress.episodes, 'alert episode')}.`,
    },
  ]);
}

/**
 * The one message of an alert episode: the headline when it trips, its peak as it rises, its
 * start, peak and end once it is over. The button asks for the incident-room summary.
 */
export function alertMessage(watch: Watch, episode: Episode, endMs?: number): Reply {
  const alert = watch.alert!;
  const filters = describeWatchFilters(watch);
  const window = formatDuration(alert.windowMs);
  const headline =
    endMs === undefined
      ? md`:rotating_light: *Pull zone ${watch.pullZoneId}: ${counted(episode.peak, 'origin error')} (${filters}) within ${window}*, over the alert of ${number(alert.count)}. Since ${formatUtc(episode.startMs)}.`
      : md`:white_check_mark: *Pull zone ${watch.pullZoneId}: the alert episode is over.* Started ${formatUtc(episode.startMs)}, peak ${number(episode.peak)} within ${window}, ended ${formatUtc(endMs)}.`;
  return inChannel(
    endMs === undefined
      ? `Pull zone ${watch.pullZoneId}: ${counted(episode.peak, 'origin error')} within ${window}`
      : `Pull zone ${watch.pullZoneId}: alert episode over`,
    [
      { type: 'text', text: headline },
      {
        type: 'actions',
        buttons: [commandButton('Summarise the last hour', logsCommandOf(watch, '1h'))],
      },
    ],
  );
}

/** The most watches one listing shows; the workspace cap may be higher. */
const LISTED = 20;

/** `/edge watches`: each running watch with its owner, where it posts, and a Stop button. */
export function watchList(watches: readonly Watch[], stopActionId: string, nowMs: number): Reply {
  if (watches.length === 0)
    return ephemeral('No watch is running.', [
      { type: 'text', text: md`No watch is running. Start one with \`/edge watch logs PULLZONE_ID\`.` },
    ]);
  const blocks: ReplyBlock[] = [{ type: 'header', text: `Running watches (${watches.length})` }];
  for (const watch of watches.slice(0, LISTED)) {
    blocks.push({
      type: 'text',
      text: md`*Pull zone ${watch.pullZoneId}* (${describeWatchFilters(watch)}) in ${nest(channelRef(watch.channelId))}, by ${nest(mention(watch.owner))}: ${counted(watch.progress.total, 'error')} since ${formatUtc(watch.startedAt)}, ends ${formatUtc(watch.endsAt)}${watch.snoozedUntil !== null && watch.snoozedUntil > nowMs ? ' (alerts snoozed)' : ''}`,
    });
    blocks.push({
      type: 'actions',
      buttons: [{ text: 'Stop', actionId: stopActionId, value: watch.id, style: 'danger' }],
    });
  }
  if (watches.length > LISTED)
    blocks.push({ type: 'context', text: md`…and ${watches.length - LISTED} more not shown.` });
  return ephemeral(counted(watches.length, 'running watch', 'running watches'), blocks);
}
