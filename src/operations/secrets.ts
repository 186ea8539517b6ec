/**
 * Every one-time secret (a new pull-zone key, a database token, a library's API keys) reaches
 * the person who asked the same way: registered for redaction before it goes anywhere, sent once
 * by DM, and, when the DM fails, a notice that says so and what to do, never the secret itself.
 */
import type { Logger, SecretRegistry } from '../log.js';
import { type Markup, md, mention, nest, trusted } from '../reply/markup.js';
import type { Reply, ReplyBlock } from '../reply/model.js';
import type { Messenger, RunContext } from './types.js';

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
}

/** A request's registry, logger and correlation id. */
export const secretContext = (ctx: RunContext): SecretDeliveryContext => ({
  secrets: ctx.services.secrets,
  logger: ctx.logger,
  correlationId: ctx.correlationId,
});

function secretReply(input: SecretDeliveryInput): Reply {
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
    ],
  };
}

export async function deliverSecret(
  context: SecretDeliveryContext,
  messenger: Messenger,
  input: SecretDeliveryInput,
): Promise<SecretDelivery> {
  for (const secret of input.secrets) if (secret.value) context.secrets.add(secret.value);
  try {
    await messenger.sendDirect(input.to, secretReply(input));
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
