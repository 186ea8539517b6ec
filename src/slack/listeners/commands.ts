import type { App } from '@slack/bolt';
import type { Deliveries } from '../deliveries.js';
import { responseUrlPoster } from '../response-url.js';
import { createSlackSurface } from '../surface.js';
import { type ListenerDeps, runCommandOnce } from './deps.js';

/** `/edge …`: acknowledge at once, then run through the engine (a change once its delivery is recorded). */
export function registerCommands(app: App, options: ListenerDeps, deliveries: Deliveries): void {
  app.command('/edge', async ({ ack, command, client, context }) => {
    const received = performance.now();
    await ack();
    options.metrics.ackObserved((performance.now() - received) / 1000);
    const text = command.text ?? '';
    const surface = createSlackSurface({
      client,
      respond: command.response_url ? responseUrlPoster(command.response_url) : undefined,
      userId: command.user_id,
      channelId: command.channel_id,
      triggerId: command.trigger_id,
      logger: options.logger,
      secrets: options.services.secrets,
    });
    const caller = { userId: command.user_id, channelId: command.channel_id, surface };
    await runCommandOnce(
      options,
      deliveries,
      { key: `command:${command.trigger_id}`, retryNum: context.retryNum, what: 'command' },
      caller,
      text,
    );
  });
}
