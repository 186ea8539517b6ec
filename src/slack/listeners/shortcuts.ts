import type { App, MessageShortcut } from '@slack/bolt';
import { describeFailure, newCorrelationId } from '../../operations/engine/failure.js';
import { findAlertHints, MAX_SCANNED } from '../../operations/logs/alert-hints.js';
import { INVESTIGATE_SHORTCUT, investigateForm } from '../../operations/logs/investigate.js';
import { messageText } from '../message-text.js';
import { responseUrlPoster } from '../response-url.js';
import { createSlackSurface } from '../surface.js';
import { type ListenerDeps, tablesOf } from './deps.js';

/**
 * "Investigate with edgeops" on a message: acknowledge, then open the form pre-filled from the
 * message's text. The form's answer goes in that message's thread; what it runs is checked,
 * audited and answered when it is submitted, as a command would be.
 */
export function registerShortcuts(app: App, options: ListenerDeps): void {
  app.shortcut<MessageShortcut>(
    { type: 'message_action', callback_id: INVESTIGATE_SHORTCUT },
    async ({ ack, shortcut, client, context }) => {
      const received = performance.now();
      await ack();
      options.metrics.ackObserved((performance.now() - received) / 1000);
      const threadTs =
        typeof shortcut.message.thread_ts === 'string' ? shortcut.message.thread_ts : undefined;
      const surface = createSlackSurface({
        client,
        respond: shortcut.response_url ? responseUrlPoster(shortcut.response_url) : undefined,
        userId: shortcut.user.id,
        channelId: shortcut.channel.id,
        triggerId: shortcut.trigger_id,
        threadTs: threadTs ?? shortcut.message.ts,
        logger: options.logger,
        secrets: options.services.secrets,
        ...tablesOf(options, context.teamId),
      });
      const now = options.services.now();
      const hints = findAlertHints(messageText(shortcut.message, MAX_SCANNED), now);
      try {
        await surface.openModal(investigateForm(hints, now));
      } catch (error) {
        const logger = options.logger.child({ user: shortcut.user.id, channel: shortcut.channel.id });
        const failure = describeFailure(error, { logger, correlationId: newCorrelationId() });
        await surface.respond(failure.reply).catch((cause: unknown) => {
          logger.error('the shortcut’s failure could not be shown', { error: cause });
        });
      }
    },
  );
}
