import type { App, types } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Reply } from '../../reply/model.js';
import { scrubbed } from '../../secrets/scrub.js';
import { renderHome, renderPlainHome } from '../blocks/home.js';
import { withPlainFallback } from '../fallback.js';
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
  const home = options.engine.plan({
    userId,
    channelId: '',
    text: 'home',
    surface: {
      ...base,
      async respond(reply) {
        // Drawn under a policy no longer in force: nothing is published, the refresher draws it again.
        const publishAs = (render: (reply: Reply) => types.HomeView) => async () => {
          if (!current()) return false;
          await client.views.publish({
            user_id: userId,
            view: scrubbed(options.services.secrets, render(reply)),
          });
          return true;
        };
        // The Home's words still reach its owner: as plain text, as a refused message does.
        const published = await withPlainFallback(
          { rich: publishAs(renderHome), plain: publishAs(renderPlainHome) },
          {
            logger: options.logger,
            message: 'Slack refused the Home; publishing it again as plain text',
            fields: { user: userId },
          },
        );
        if (published) options.services.home.refresher.drawn(userId);
        return undefined;
      },
    },
  });
  await home.run();
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
