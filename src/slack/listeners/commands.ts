import type { App } from '@slack/bolt';
import type { SlackAppOptions } from '../app.js';
import type { Deliveries } from '../deliveries.js';
import { responseUrlPoster } from '../response-url.js';
import { createSlackSurface } from '../surface.js';

/** `/edge …`: acknowledge at once, then run through the engine. */
export function registerCommands(app: App, options: SlackAppOptions, deliveries: Deliveries): void {
  app.command('/edge', async ({ ack, command, client, context }) => {
    const received = performance.now();
    await ack();
    options.metrics.ackObserved((performance.now() - received) / 1000);
    const fresh = await deliveries.firstTime(`command:${command.trigger_id}`, context.retryNum);
    if (!fresh) {
      options.logger.info('duplicate command delivery ignored', { user: command.user_id });
      return;
    }
    const surface = createSlackSurface({
      client,
      respond: command.response_url ? responseUrlPoster(command.response_url) : undefined,
      userId: command.user_id,
      channelId: command.channel_id,
      triggerId: command.trigger_id,
      logger: options.logger,
      secrets: options.services.secrets,
    });
    await options.engine.command({
      text: command.text ?? '',
      userId: command.user_id,
      channelId: command.channel_id,
      surface,
    });
  });
}
