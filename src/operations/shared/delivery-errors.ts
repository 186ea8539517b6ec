/**
 * What a failed post or update says about where it was going, read from the error the messenger
 * threw (Slack's Web API puts its code in `data.error`), without knowing the transport.
 */
import { z } from 'zod';

const DeliveryErrorSchema = z.object({ data: z.object({ error: z.string() }) });

/** The transport's own code for why a message was refused (`not_in_channel`), when it gave one. */
export function deliveryErrorCode(error: unknown): string | undefined {
  const parsed = DeliveryErrorSchema.safeParse(error);
  return parsed.success ? parsed.data.data.error : undefined;
}

/** Codes that say the channel or the message is gone for the bot: trying again cannot help. */
const GONE: Readonly<Record<string, string>> = {
  not_in_channel: 'the bot is not in that channel (invite it there)',
  channel_not_found: 'the bot cannot see that channel (invite it there)',
  is_archived: 'that channel is archived',
  // Slack's restrictions on who posts where and how (chat.postMessage's errors).
  restricted_action: 'the workspace does not let the bot post in that channel',
  restricted_action_read_only_channel: 'that channel is read-only',
  restricted_action_thread_only_channel: 'that channel takes messages in threads only',
  restricted_action_non_threadable_channel: 'that channel takes no thread replies',
  no_permission: 'the bot has no permission to post in that channel',
  message_not_found: 'its message was deleted',
};

/** Whether the code says the bot may not post there (a restriction of the channel or workspace). */
export const isPostingRestricted = (code: string | undefined): boolean =>
  code === 'no_permission' || (code?.startsWith('restricted_action') ?? false);

/** Why a message cannot be posted or updated there any more, in plain words; undefined when it may yet work. */
export function goneFromChannel(error: unknown): string | undefined {
  const code = deliveryErrorCode(error);
  return code === undefined ? undefined : GONE[code];
}
