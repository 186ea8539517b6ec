import type { App } from '@slack/bolt';
import { md } from '../../reply/markup.js';
import { ephemeral } from '../../reply/model.js';
import type { Deliveries } from '../deliveries.js';
import { commandAfterMention } from '../mention-text.js';
import { createSlackSurface } from '../surface.js';
import { type ListenerDeps, runCommandOnce } from './deps.js';

/** Subtypes of messages a person wrote: a reply also sent to the channel, a message with a file. */
const TYPED_SUBTYPES = new Set(['thread_broadcast', 'file_share']);

/**
 * True for an author from another organisation, in a channel shared with it: `/edge` and the
 * shortcut reach only the workspace the app is installed in, so a mention must not open a way
 * round that. Members of an Enterprise Grid org's other workspaces share its install and pass.
 */
function fromAnotherOrganisation(
  event: { user_team?: string; user_profile?: { team: string } },
  body: { team_id?: string; enterprise_id?: string },
): boolean {
  const authorTeam = event.user_team ?? event.user_profile?.team;
  if (!authorTeam || !body.team_id || authorTeam === body.team_id) return false;
  return !body.enterprise_id;
}

/**
 * `@edgeops logs 308006 --last 1h`, in a thread or not: the words after the mention run as after
 * `/edge`, and every answer goes in the thread (or starts one under a top-level message). Bolt
 * acknowledges events before this runs; a redelivered event (same event_id) runs nothing twice.
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
    });
    const caller = { userId: event.user, channelId: event.channel, threadTs, surface };
    if (fromAnotherOrganisation(event, body)) {
      options.logger.warn('a mention from another organisation was refused', {
        user: event.user,
        team: event.user_team,
      });
      await surface.respond(
        ephemeral(
          'edgeops answers members of this workspace only; ask someone in it to run the command for you.',
          [
            {
              type: 'text',
              text: md`:no_entry: edgeops answers members of this workspace only; ask someone in it to run the command for you.`,
            },
          ],
        ),
      );
      return;
    }
    await runCommandOnce(
      options,
      deliveries,
      { key: `event:${body.event_id}`, retryNum: context.retryNum, what: 'mention' },
      caller,
      text,
    );
  });
}
