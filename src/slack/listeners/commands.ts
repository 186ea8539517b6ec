import type { App } from '@slack/bolt';
import type { Deliveries } from '../deliveries.js';
import { responseUrlPoster } from '../response-url.js';
import { createSlackSurface } from '../surface.js';
import { type ListenerDeps, runCommandOnce, tablesOf } from './deps.js';

export const EDGE_COMMAND = '/edge';

/**
 * `/edge …`: acknowledged with no body (on arrival: ack-on-arrival.ts, which also times it),
 * then run through the engine (a change once its delivery is recorded).
 */
export function registerCommands(app: App, options: ListenerDeps, deliveries: Deliveries): void {
  app.command(EDGE_COMMAND, async ({ ack, command, client, context }) => {
    await ack();
    const text = command.text ?? '';
    const surface = createSlackSurface({
      client,
      respond: command.response_url ? responseUrlPoster(command.response_url) : undefined,
      userId: command.user_id,
      channelId: command.channel_id,
      triggerId: command.trigger_id,
      logger: options.logger,
      secrets: options.services.secrets,
      ...tablesOf(options, context.teamId),
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
