import type { App, types } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { scrubbed } from '../../secrets/scrub.js';
import { renderHome, renderPlainHome } from '../blocks/home.js';
import { isContentRefusal, slackErrorCode } from '../fallback.js';
import { createSlackSurface } from '../surface.js';
import type { ListenerDeps } from './deps.js';

/**
 * Draws one person's Home tab: `/edge home` run for them, its answer published as the view
 * (views.publish) unless `current` says the policy changed while it was drawn. Failures are
 * logged by the engine, never thrown.
 */
export async function publishHome(
  client: WebClient,
  options: ListenerDeps,
  userId: string,
  current: () => boolean,
): Promise<void> {
  const base = createSlackSurface({
    client,
    userId,
    channelId: '',
    logger: options.logger,
    secrets: options.services.secrets,
  });
  await options.engine.command({
    userId,
    channelId: '',
    text: 'home',
    surface: {
      ...base,
      async respond(reply) {
        const publish = (view: types.HomeView) =>
          client.views.publish({ user_id: userId, view: scrubbed(options.services.secrets, view) });
        // Drawn under a policy no longer in force: the refresher draws it again.
        if (!current()) return undefined;
        try {
          await publish(renderHome(reply));
        } catch (error) {
          // The Home's words still reach its owner: as plain text, as a refused message does.
          if (!isContentRefusal(error)) throw error;
          options.logger.warn('Slack refused the Home; publishing it again as plain text', {
            user: userId,
            slackError: slackErrorCode(error),
          });
          if (!current()) return undefined;
          await publish(renderPlainHome(reply));
        }
        options.services.home.refresher.drawn(userId);
        return undefined;
      },
    },
  });
}

/** The Home tab, drawn whenever it is opened; changes redraw it through the refresher. */
export function registerHome(app: App, options: ListenerDeps, client: WebClient): void {
  const { refresher } = options.services.home;
  refresher.publishWith((userId, current) => publishHome(client, options, userId, current));
  app.event('app_home_opened', async ({ event }) => {
    if (event.tab !== 'home') return;
    await refresher.publish(event.user);
  });
}
