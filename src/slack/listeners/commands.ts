import type { App } from '@slack/bolt';
import type { SlackAppOptions } from '../app.js';
import { responseUrlPoster } from '../response-url.js';
import { createSlackSurface } from '../surface.js';

/** Slack retries a command it thinks was lost; the trigger id is the same on every try. */
const RETRY_WINDOW_MS = 10 * 60_000;

/** `/edge …`: acknowledge at once, then run through the engine. */
export function registerCommands(app: App, options: SlackAppOptions): void {
  app.command('/edge', async ({ ack, command, client }) => {
    const received = performance.now();
    await ack();
    options.metrics.ackObserved((performance.now() - received) / 1000);
    const fresh = await options.services.state
      .claimOnce(`command:${command.trigger_id}`, RETRY_WINDOW_MS)
      .catch(() => true);
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
    });
    await options.engine.command({
      text: command.text ?? '',
      userId: command.user_id,
      channelId: command.channel_id,
      surface,
    });
  });
}
