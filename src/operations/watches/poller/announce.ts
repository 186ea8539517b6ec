/**
 * What the channel sees of a poll: the watch message redrawn, an alert posted, raised or
 * cleared, and a watch ended (by the poller, or because the bot can no longer post there).
 */
import { channelRef, md, nest } from '../../../reply/markup.js';
import { ephemeral } from '../../../reply/model.js';
import type { PollOutcome } from '../../../watches/progress.js';
import type { EndReason, Watch, WatchHead } from '../../../watches/store.js';
import { deliveryErrorCode, goneFromChannel } from '../../shared/delivery-errors.js';
import { announceEnd, threadOf } from '../endings.js';
import { alertMessage, watchMessage } from '../render.js';
import { savePoll } from './save.js';
import type { PollerState } from './state.js';

/** Ends the watch and says so; false when it had ended already (another replica, another reason). */
export async function endWatch(state: PollerState, watch: WatchHead, reason: EndReason): Promise<boolean> {
  const { store, messenger, now, logger } = state;
  const ended = await store.end(watch.id, reason, null, now());
  // Ended in the store: no later pass sees it again, so a failed audit row is logged here and
  // whatever follows the end (its owner's message) still goes.
  if (ended && messenger)
    await announceEnd(ended, { messenger, audit: state.audit, logger, nowMs: now() }).catch(
      (error: unknown) => logger.error('the end of a watch could not be audited', { watch: watch.id, error }),
    );
  return ended !== null && ended !== undefined;
}

/** Redraws the watch's message; false when the channel is gone for the bot and the watch ended. */
export async function refreshMessage(state: PollerState, watch: Watch): Promise<boolean> {
  const { messenger, now, logger } = state;
  if (!messenger || !watch.messageTs) return true;
  try {
    await messenger.update({ channelId: watch.channelId, ts: watch.messageTs }, watchMessage(watch, now()));
    return true;
  } catch (error) {
    logger.warn('a watch message could not be updated', { watch: watch.id, error });
    return !(await endWhenGone(state, watch, error));
  }
}

/**
 * Archived, the bot removed, the message deleted, posting restricted: polling on would spend the
 * shared budget for nobody. The watch ends, and its owner is told privately.
 */
async function endWhenGone(state: PollerState, watch: Watch, error: unknown): Promise<boolean> {
  const { messenger, logger } = state;
  const gone = goneFromChannel(error);
  if (!gone || !messenger) return false;
  // Ended already (by another replica, or by this pass's redraw): its owner was told then.
  if (!(await endWatch(state, watch, 'channel'))) return true;
  await messenger
    .sendDirect(
      watch.owner,
      ephemeral(`Your watch of pull zone ${watch.pullZoneId} ended`, [
        {
          type: 'text',
          text: md`:stop_sign: Your watch of pull zone ${watch.pullZoneId} in ${nest(channelRef(watch.channelId))} ended: ${gone}. Start it again where the bot can post.`,
        },
      ]),
    )
    .catch((dmError: unknown) => logger.warn('the end of a watch could not be sent', { error: dmError }));
  return true;
}

export async function postAlerts(
  state: PollerState,
  watch: Watch,
  outcome: PollOutcome,
  nowMs: number,
): Promise<void> {
  const { messenger, logger } = state;
  if (!messenger || !watch.alert) return;
  try {
    await postOrUpdateAlert(state, watch, outcome, nowMs);
  } catch (error) {
    logger.warn('a watch alert could not be posted', { watch: watch.id, error });
    // A channel that takes no thread replies refuses the alerts alone: the watch ends all the
    // same. An alert someone deleted is only that: the watch goes on.
    if (deliveryErrorCode(error) !== 'message_not_found') await endWhenGone(state, watch, error);
  }
}

async function postOrUpdateAlert(
  state: PollerState,
  watch: Watch,
  outcome: PollOutcome,
  nowMs: number,
): Promise<void> {
  const messenger = state.messenger!;
  const episode = watch.progress.episode;
  if (outcome.change === 'tripped' && episode) {
    if (watch.snoozedUntil !== null && watch.snoozedUntil > nowMs) return;
    const ref = await messenger.postToChannel(watch.channelId, alertMessage(watch, episode), threadOf(watch));
    if (ref)
      await savePoll(
        state,
        watch,
        { ...watch.progress, episode: { ...episode, alertTs: ref.ts } },
        null,
        watch.nextPollAt,
      );
  } else if (outcome.change === 'peak' && episode?.alertTs) {
    await messenger.update({ channelId: watch.channelId, ts: episode.alertTs }, alertMessage(watch, episode));
  } else if (outcome.change === 'cleared' && outcome.ended?.alertTs) {
    await messenger.update(
      { channelId: watch.channelId, ts: outcome.ended.alertTs },
      alertMessage(watch, outcome.ended, outcome.ended.endMs),
    );
  }
}
