import type { App, BlockAction, ButtonAction, StaticSelectAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { unwrapMetadata } from '../blocks/metadata.js';
import { pickedButton } from '../blocks/reply.js';
import type { Deliveries } from '../deliveries.js';
import { responseUrlPoster } from '../response-url.js';
import { createSlackSurface } from '../surface.js';
import { type ListenerDeps, tablesOf } from './deps.js';

/**
 * The thread a clicked message is a reply in (an approval card or a form button posted in a
 * thread), so that what the click posts goes there too. A thread's first message is not in one.
 */
function threadOfClick(body: BlockAction): string | undefined {
  const container: { thread_ts?: unknown; message_ts?: unknown } = body.container ?? {};
  const threadTs = body.message?.thread_ts ?? container.thread_ts;
  const messageTs = body.message?.ts ?? container.message_ts;
  return typeof threadTs === 'string' && threadTs !== messageTs ? threadTs : undefined;
}

/** The app's DM with a user, where answers to clicks on their Home go; undefined when Slack will not open it. */
async function homeChannel(
  client: WebClient,
  userId: string,
  options: ListenerDeps,
): Promise<string | undefined> {
  try {
    return (await client.conversations.open({ users: userId })).channel?.id;
  } catch (error) {
    options.logger.warn('the DM for an answer to a Home click could not be opened', { error });
    return undefined;
  }
}

/** What was clicked: a button, or the button a menu's picked option stands for. */
function clickedButton(action: ButtonAction | StaticSelectAction): { actionId: string; value: string } {
  if (action.type !== 'static_select') return { actionId: action.action_id, value: action.value ?? '' };
  // A value no menu of ours made routes nowhere, and the engine answers that it is not supported.
  return pickedButton(action.selected_option?.value ?? '') ?? { actionId: action.action_id, value: '' };
}

/** Buttons and menus: action ids are `${operation key}:${name}`; the engine routes them. */
export function registerActions(app: App, options: ListenerDeps, deliveries: Deliveries): void {
  app.action<BlockAction<ButtonAction | StaticSelectAction>>(
    /^[a-z0-9.-]+:[a-z0-9-]+(#[\w-]+)?$/,
    async ({ ack, body, action, client, context }) => {
      // Acknowledged on arrival already (ack-thread-messages.ts), and timed there: a no-op.
      await ack();
      // A button in a modal (the menu): the channel it was opened from is in its metadata.
      const fromHome = body.view?.type === 'home';
      const inView = body.view && !fromHome ? unwrapMetadata(body.view.private_metadata) : undefined;
      let channelId = inView?.channelId || body.channel?.id || body.container?.channel_id || '';
      // The Home tab is in no channel: what a click there answers goes to the app's DM with the clicker.
      if (fromHome) channelId = (await homeChannel(client, body.user.id, options)) ?? '';
      const threadTs = inView ? inView.threadTs : threadOfClick(body);
      const clickedTs = body.message?.ts ?? body.container?.message_ts;
      const clicked =
        !body.view && typeof clickedTs === 'string' && channelId ? { channelId, ts: clickedTs } : undefined;
      const surface = createSlackSurface({
        client,
        respond: body.response_url ? responseUrlPoster(body.response_url) : undefined,
        userId: body.user.id,
        channelId,
        triggerId: body.trigger_id,
        // A form a click opens takes the place of the modal it came from; never of the Home tab.
        ...(body.view && !fromHome ? { viewId: body.view.id } : {}),
        threadTs,
        ...(clicked ? { clicked } : {}),
        logger: options.logger,
        secrets: options.services.secrets,
        ...tablesOf(options, context.teamId),
      });
      const caller = { userId: body.user.id, channelId, ...(threadTs ? { threadTs } : {}), surface };
      const clickedAs = clickedButton(action);
      const plan = options.engine.plan({ ...caller, ...clickedAs });
      await deliveries.once(
        {
          key: `action:${action.action_ts}:${body.user.id}:${clickedAs.actionId}`,
          retryNum: context.retryNum,
          changes: plan.changes,
        },
        () => plan.run(),
        {
          what: 'action delivery',
          userId: body.user.id,
          unrecorded: () => options.engine.refuseUnrecorded(caller),
        },
      );
    },
  );
}
