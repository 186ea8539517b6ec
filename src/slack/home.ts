/**
 * The Home tab: the HomePublisher the Home's redraws publish through. Operations draw the Home;
 * this publishes it as the person's view (views.publish), scrubbed of secrets, and again as plain
 * text when Slack refuses its blocks, as a refused message is sent.
 */
import type { types } from '@slack/bolt';
import type { HomePublisher } from '../operations/engine/ports.js';
import type { Reply } from '../reply/model.js';
import { scrubbed } from '../secrets/scrub.js';
import { renderHome, renderPlainHome } from './blocks/home.js';
import { withPlainFallback } from './fallback.js';
import { slackMessenger } from './messenger.js';
import { createOutgoing, type SlackMessengerOptions } from './outgoing.js';

export function createSlackHomePublisher(options: SlackMessengerOptions): HomePublisher {
  const { client, logger, secrets } = options;
  const { permalink } = slackMessenger(createOutgoing(options));
  return {
    permalink,
    publish(userId, home, current) {
      // Drawn under a policy no longer in force: nothing is published, the refresher draws it again.
      const publishAs = (render: (reply: Reply) => types.HomeView) => async () => {
        if (!current()) return false;
        await client.views.publish({ user_id: userId, view: scrubbed(secrets, render(home)) });
        return true;
      };
      return withPlainFallback(
        { rich: publishAs(renderHome), plain: publishAs(renderPlainHome) },
        {
          logger,
          message: 'Slack refused the Home; publishing it again as plain text',
          fields: { user: userId },
        },
      );
    },
  };
}
