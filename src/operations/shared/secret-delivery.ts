/**
 * Every one-time secret (a new pull-zone key, a database token, a library's API keys) reaches
 * the person who asked the same way: registered for redaction before it goes anywhere, sent once
 * by DM, and, when the DM fails, a notice that says so and what to do, never the secret itself.
 */
import { z } from 'zod';
import { type Markup, md, mention, nest, trusted } from '../../reply/markup.js';
import { ephemeral, inChannel, type Reply, type ReplyBlock } from '../../reply/model.js';
import type { SecretRegistry } from '../../secrets/registry.js';
import {
  createSecretMessages,
  newSecretMessageId,
  type SecretMessage,
  type SecretMessages,
} from '../../state/secret-messages.js';
import type { Logger } from '../../telemetry/log.js';
import type { Messenger } from '../engine/ports.js';
import type { RunContext } from '../engine/types.js';

/**
 * The "Saved it, delete this" button of a secret's DM. It is handled by the approvals command,
 * which checks its own clicks (most secrets come out of an approved change); the handler lets
 * only the person the secret went to delete it.
 */
export const DELETE_SECRET_ACTION = 'approvals:forget';

export interface OneTimeSecret {
  label: string;
  /** Undefined when the platform did not return it: shown as such. */
  value: string | undefined;
  /** A short qualifier, such as an expiry. */
  note?: string;
}

export interface SecretDeliveryInput {
  /** The user who asked, and who alone receives it. */
  to: string;
  /** The DM's header, e.g. "Your new video library keys". */
  title: string;
  /** One line above the secrets: what they belong to. */
  about: Markup;
  secrets: OneTimeSecret[];
  /** What to do when the DM failed, e.g. "reset the key again"; the notice ends with it. */
  ifLost: string;
}

export type SecretDelivery =
  | { delivered: true }
  /**
   * `notice`: one sentence for the requester (and the channel): the DM failed, and what to do;
   * `plain`: the same without mentions, for audit rows and cards.
   */
  | { delivered: false; notice: Markup; plain: string };

/** What a change's result says of its secret, after delivery: never "sent" unless it was. */
export function deliveryWords(delivery: SecretDelivery, count: number): string {
  const it = count === 1 ? 'It' : 'They';
  return delivery.delivered ? `${it} went to the requester by direct message, once.` : delivery.plain;
}

export interface SecretDeliveryContext {
  secrets: SecretRegistry;
  logger: Logger;
  correlationId: string;
  /** Where delivered messages are remembered, for their delete button and its reminder. */
  trail: SecretMessages;
  now: () => Date;
}

/** A request's registry, logger, correlation id and the state database's secret trail. */
export const secretContext = (ctx: RunContext): SecretDeliveryContext => ({
  secrets: ctx.services.secrets,
  logger: ctx.logger,
  correlationId: ctx.correlationId,
  trail: createSecretMessages(ctx.services.state),
  now: () => new Date(ctx.services.now()),
});

function secretReply(input: SecretDeliveryInput, messageId: string): Reply {
  const shown = input.secrets.flatMap((secret) => (secret.value ? [secret.value] : []));
  const lines: ReplyBlock[] = input.secrets.map((secret) => ({
    type: 'text',
    text: md`*${secret.label}*${secret.note ? ` (${secret.note})` : ''}:\n${nest(secret.value ? md`\`${secret.value}\`` : trusted('_(none returned)_'))}`,
  }));
  return {
    visibility: 'dm',
    text: input.title,
    reveals: shown,
    blocks: [
      { type: 'header', text: input.title },
      { type: 'text', text: input.about },
      ...lines,
      {
        type: 'context',
        text: trusted('Shown once: store it now. edgeops does not keep it; it is not shown again.'),
      },
      {
        type: 'actions',
        buttons: [
          {
            text: 'Saved it, delete this',
            actionId: DELETE_SECRET_ACTION,
            value: messageId,
            style: 'danger',
          },
        ],
      },
    ],
  };
}

export async function deliverSecret(
  context: SecretDeliveryContext,
  messenger: Messenger,
  input: SecretDeliveryInput,
): Promise<SecretDelivery> {
  for (const secret of input.secrets) if (secret.value) context.secrets.add(secret.value);
  const messageId = newSecretMessageId();
  try {
    const ref = await messenger.sendDirect(input.to, secretReply(input, messageId));
    if (ref)
      await context.trail
        .record({
          id: messageId,
          userId: input.to,
          channelId: ref.channelId,
          ts: ref.ts,
          deliveredAt: context.now(),
        })
        .catch((error: unknown) =>
          // Delivered all the same; only its delete button and reminder will not know it.
          context.logger.warn('a delivered secret message could not be remembered', {
            error,
            correlationId: context.correlationId,
          }),
        );
    return { delivered: true };
  } catch (error) {
    context.logger.error('a one-time secret could not be sent by direct message', {
      error,
      title: input.title,
      correlationId: context.correlationId,
    });
    const what = input.secrets.length === 1 ? 'it' : 'them';
    const tail = `by direct message, and edgeops does not keep ${what}: ${input.ifLost} (correlation id ${context.correlationId}).`;
    return {
      delivered: false,
      notice: md`:warning: ${input.title} could not be sent to ${nest(mention(input.to))} ${tail}`,
      plain: `${input.title} could not be sent to the requester ${tail}`,
    };
  }
}

/** Slack's word for why it refused, when the error carries one. */
const RefusalSchema = z.object({ data: z.object({ error: z.string() }) });

/** The "Saved it, delete this" click: deletes the DM that delivered a secret, for its reader only. */
export async function deleteSecretMessage(ctx: RunContext, messageId: string): Promise<Reply> {
  const trail = createSecretMessages(ctx.services.state);
  const message = await trail.get(messageId);
  // Delivered, but its record was never written (the state database failed just then): the
  // button is only ever on the DM itself, so the message to delete is the one clicked, in the
  // clicker's own DM with the app (never a modal, the Home, a group DM or a channel).
  const clicked = ctx.surface.clicked;
  const unrecorded =
    !message && clicked?.channelId.startsWith('D')
      ? { id: messageId, userId: ctx.userId, channelId: clicked.channelId, ts: clicked.ts, deletedAt: null }
      : undefined;
  const found = message ?? unrecorded;
  if (!found)
    return ephemeral('I have no record of that message', [
      { type: 'text', text: trusted(':warning: I have no record of that message, so I cannot delete it.') },
    ]);
  if (found.userId !== ctx.userId)
    return {
      ...ephemeral('Only its reader can delete it', [
        {
          type: 'text',
          text: md`Only ${nest(mention(found.userId))}, who received it, can delete that message.`,
        },
      ]),
      refused: true,
    };
  if (found.deletedAt)
    return ephemeral('Already deleted', [
      { type: 'text', text: trusted('That message is already deleted.') },
    ]);
  try {
    await ctx.surface.deleteMessage({ channelId: found.channelId, ts: found.ts });
  } catch (error) {
    const parsed = RefusalSchema.safeParse(error);
    const code = parsed.success ? parsed.data.data.error : 'unexpected';
    if (code === 'message_not_found') {
      await trail.markDeleted(found.id, new Date(ctx.services.now()));
      return ephemeral('That message is already gone', [
        {
          type: 'text',
          text: trusted(
            ':information_source: Slack says that message is already gone, so there was nothing left to delete.',
          ),
        },
      ]);
    }
    ctx.logger.warn('a secret message could not be deleted', { slackError: code, error });
    return ephemeral('Slack did not delete the message', [
      {
        type: 'text',
        text: md`:warning: Slack did not delete the message (${code}); it is still there. Press the button again in a minute.`,
      },
    ]);
  }
  // The message is gone whatever the trail says: a failure to record it is logged, not shown
  // as a failure (the reminder then asks once about a message that is already gone).
  await trail.markDeleted(found.id, new Date(ctx.services.now())).catch((error: unknown) => {
    ctx.logger.warn('a deleted secret message could not be recorded as deleted', { error });
  });
  return ephemeral('Deleted', [
    {
      type: 'text',
      text: trusted(
        ':wastebasket: Deleted: the secret is gone from this conversation. edgeops never kept it.',
      ),
    },
  ]);
}

/** The reminder, in the secret DM's thread, to delete it once saved; it never holds the secret. */
export function secretReminderReply(message: SecretMessage): Reply {
  return inChannel('Reminder: delete the message with your secret once you have saved it', [
    {
      type: 'text',
      text: md`:broom: Reminder for ${nest(mention(message.userId))}: the message above delivered a secret. Once you have stored it, press *Saved it, delete this* on it, so that it does not stay in this conversation.`,
    },
  ]);
}
