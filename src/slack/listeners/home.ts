import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { createSlackHomePublisher } from '../home.js';
import type { ListenerDeps } from './deps.js';

/**
 * The Home tab, drawn whenever it is opened; changes redraw it through the refresher, which
 * publishes every Home through this app's HomePublisher.
 */
export function registerHome(app: App, options: ListenerDeps, client: WebClient): void {
  const { refresher } = options.services.home;
  refresher.publishTo(
    createSlackHomePublisher({ client, logger: options.logger, secrets: options.services.secrets }),
  );
  app.event('app_home_opened', async ({ event }) => {
    if (event.tab !== 'home') return;
    await refresher.publish(event.user);
  });
}
