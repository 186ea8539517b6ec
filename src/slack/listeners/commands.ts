import type { App } from '@slack/bolt';
import type { SlackAppOptions } from '../app.js';
import { type Deliveries, DeliveryUnrecordedError } from '../deliveries.js';
import { responseUrlPoster } from '../response-url.js';
import { createSlackSurface } from '../surface.js';

/** `/edge …`: acknowledge at once, then run through the engine (a change once its delivery is recorded). */
export function registerCommands(app: App, options: SlackAppOptions, deliveries: Deliveries): void {
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
    let fresh: boolean;
    try {
      fresh = await deliveries.firstTime(`command:${command.trigger_id}`, context.retryNum, {
        changes: options.engine.changes({ text }),
      });
    } catch (error) {
      if (!(error instanceof DeliveryUnrecordedError)) throw error;
      await options.engine.refuseUnrecorded(caller);
      return;
    }
    if (!fresh) {
      options.logger.info('duplicate command delivery ignored', { user: command.user_id });
      return;
    }
    await options.engine.command({ ...caller, text });
  });
}
