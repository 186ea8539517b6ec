/**
 * What the approval flow does on its timer, with no click behind it: expires stale requests and
 * tells their requesters, reminds approvers at half a request's time to live, marks executions a
 * crash cut off unknown and says so, reminds the readers of secret DMs to delete them; and, at
 * start-up, shows every pending card again.
 */
import { md } from '../../reply/markup.js';
import { inChannel } from '../../reply/model.js';
import type { Messenger } from '../engine/ports.js';
import { secretReminderReply } from '../shared/secret-delivery.js';
import { cardOf, type FlowState, tellRequester, updateCard } from './flow-state.js';
import { reminderReply } from './notices.js';

/**
 * Shows every pending request's card again, with its buttons (a console started on a state
 * database that outlived the last session); returns how many.
 */
export async function showPending(state: FlowState, surface: Messenger): Promise<number> {
  const pending = await state.service.list({ limit: 200 });
  for (const request of pending) {
    const { card } = cardOf(state, request);
    try {
      if (request.card) await surface.update({ channelId: request.card.channel, ts: request.card.ts }, card);
      else {
        const ref = await surface.postToChannel(request.channelId, card);
        if (ref) await state.service.setCard(request.id, ref.channelId, ref.ts);
      }
    } catch (error) {
      state.logger.warn('a pending approval card could not be shown again', {
        approvalId: request.id,
        error,
      });
    }
  }
  return pending.length;
}

/**
 * Expires stale requests and marks crashed executions unknown, updating their cards and telling
 * their requesters, and reminds the approvers of requests halfway to their expiry.
 */
export async function sweep(state: FlowState, surface: Messenger): Promise<void> {
  const expired = await state.service.expireStale();
  for (const request of expired) {
    await updateCard(state, surface, request);
    await tellRequester(state, surface, request);
  }
  const due = await state.service.claimReminders();
  for (const request of due) {
    if (!request.card) continue;
    const link = await surface
      .permalink({ channelId: request.card.channel, ts: request.card.ts })
      .catch(() => undefined);
    const reminder = reminderReply(request, state.gated.get(request.operation), new Date(state.now()), link);
    await surface
      .postToChannel(request.card.channel, reminder, request.card.ts)
      .catch((error: unknown) =>
        state.logger.warn('approval reminder could not be posted', { approvalId: request.id, error }),
      );
    // The card's age and time left, as of the reminder.
    await updateCard(state, surface, request);
  }
  const cutoff = new Date(state.now() - state.staleExecutionMs);
  const crashed = await state.service.recoverAfterCrash({
    startedBefore: cutoff,
    approvedBefore: cutoff,
  });
  for (const request of crashed) {
    await updateCard(state, surface, request);
    const told =
      request.startedAt === null
        ? md`:warning: Request ${request.id} (${request.operation} on ${request.target}) was approved, but the bot stopped before the change started: it did not run, and it will not run now. Ask again if it is still needed.`
        : md`:warning: The bot stopped while running request ${request.id} (${request.operation} on ${request.target}). Check the platform to see whether it happened; it will not be run again.`;
    await surface
      .sendDirect(request.requester, inChannel('Outcome unknown', [{ type: 'text', text: told }]))
      .catch(() => undefined);
  }
  const standing = (await state.secretMessages?.claimReminders(new Date(state.now()))) ?? [];
  for (const message of standing)
    await surface
      .postToChannel(message.channelId, secretReminderReply(message), message.ts)
      .catch((error: unknown) =>
        state.logger.warn('the reminder to delete a secret message could not be posted', {
          secretMessage: message.id,
          error,
        }),
      );
  if (expired.length + crashed.length + due.length > 0)
    state.logger.info('approval sweep', {
      expired: expired.length,
      unknown: crashed.length,
      reminded: due.length,
    });
}
