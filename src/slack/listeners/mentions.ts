import type { App } from '@slack/bolt';
import type { Deliveries } from '../deliveries.js';
import { commandAfterMention } from '../mention-text.js';
import { createSlackSurface } from '../surface.js';
import { type ListenerDeps, runCommandOnce, tablesOf } from './deps.js';

/** Subtypes of messages a person wrote: a reply also sent to the channel, a message with a file. */
const TYPED_SUBTYPES = new Set(['thread_broadcast', 'file_share']);

/**
 * `@edgeops logs 308006 --last 1h`, in a thread or not: the words after the mention run as after
 * `/edge`, and every answer goes in the thread (or starts one under a top-level message). Bolt
 * acknowledges events before this runs; a redelivered event (same event_id) runs nothing twice.
 * An author from another organisation never gets here (members-only.ts).
 */
export function registerMentions(app: App, options: ListenerDeps, deliveries: Deliveries): void {
  app.event('app_mention', async ({ event, body, client, context }) => {
    // Bots (this one included) and edits do not give commands: an edit would run one again.
    if (event.bot_id || event.edited || !event.user) return;
    if (event.subtype && !TYPED_SUBTYPES.has(event.subtype)) return;
    const botUserId = context.botUserId ?? body.authorizations?.[0]?.user_id;
    const text = commandAfterMention(event.text ?? '', botUserId);
    const threadTs = event.thread_ts ?? event.ts;
    const surface = createSlackSurface({
      client,
      userId: event.user,
      channelId: event.channel,
      threadTs,
      formCommand: text,
      logger: options.logger,
      secrets: options.services.secrets,
      ...tablesOf(options, context.teamId),
    });
    const caller = { userId: event.user, channelId: event.channel, threadTs, surface };
    await runCommandOnce(
      options,
      deliveries,
      { key: `event:${body.event_id}`, retryNum: context.retryNum, what: 'mention' },
      caller,
      text,
    );
  });
}
