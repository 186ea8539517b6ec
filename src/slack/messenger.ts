/** Posts, updates and DMs anywhere, outside any request: what the engine's Messenger asks of Slack. */
import type { Messenger } from '../operations/engine/ports.js';
import { deliverWithThread } from './deliver.js';
import { slackErrorCode } from './fallback.js';
import { removeTemporaryFiles } from './files.js';
import { dmChannel, inConversation, type Outgoing, refOf } from './outgoing.js';

export function slackMessenger(slack: Outgoing): Messenger {
  const { client, logger } = slack;
  return {
    async postToChannel(channelId, reply, threadTs) {
      try {
        return refOf(
          await deliverWithThread(slack, reply, inConversation(slack, channelId, threadTs), { threadTs }),
        );
      } finally {
        await removeTemporaryFiles(reply);
      }
    },
    async update(ref, reply) {
      try {
        await deliverWithThread(slack, reply, {
          delivery: { place: 'below' },
          send: async (message) => {
            await client.chat.update({ channel: ref.channelId, ts: ref.ts, ...message });
            return { via: 'chat', ref };
          },
          filesTo: async () => ({ channelId: ref.channelId }),
        });
      } finally {
        await removeTemporaryFiles(reply);
      }
    },
    async sendDirect(userId, reply) {
      try {
        const channelId = await dmChannel(slack, userId);
        return refOf(await deliverWithThread(slack, reply, inConversation(slack, channelId)));
      } finally {
        await removeTemporaryFiles(reply);
      }
    },
    async deleteMessage(ref) {
      await client.chat.delete({ channel: ref.channelId, ts: ref.ts });
    },
    async permalink(ref) {
      try {
        const answer = await client.chat.getPermalink({ channel: ref.channelId, message_ts: ref.ts });
        return answer.permalink;
      } catch (error) {
        logger.warn('Slack gave no link to a message', { slackError: slackErrorCode(error) });
        return undefined;
      }
    },
  };
}
