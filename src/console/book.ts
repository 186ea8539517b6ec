/**
 * The messages a console session has shown and the buttons on them. Buttons are numbered
 * across the session, so a number printed once keeps meaning the same button; a message that
 * is replaced or updated retires its old buttons, as Slack removes them from the screen.
 */

import type { MessageRef } from '../operations/engine/types.js';
import type { ReplyButton } from '../reply/model.js';

export interface ShownMessage {
  /** Its number on screen (`#3`). */
  id: number;
  /** Where it appeared, as shown in its heading: `posted in #C0APPROVALS`. */
  where: string;
  /** The channel (or DM) it is in: clicks on its buttons come from there. */
  channelId: string;
  /** Set for posted messages, which operations may update later. */
  ref?: MessageRef;
  /** Set for ephemeral messages and DMs: only this user sees them, so only they can click. */
  visibleTo?: string;
}

export interface ShownButton {
  number: number;
  button: ReplyButton;
  message: ShownMessage;
}

export type ButtonLookup =
  | { kind: 'found'; shown: ShownButton }
  | { kind: 'retired'; message: ShownMessage }
  | { kind: 'unknown' };

export interface MessageBook {
  /** Records a message; posted ones get a ref (given, or a new one) so they can be updated. */
  add(message: {
    where: string;
    channelId: string;
    visibleTo?: string;
    posted: boolean;
    ref?: MessageRef;
  }): ShownMessage;
  byRef(ref: MessageRef): ShownMessage | undefined;
  /** Numbers a button shown on `message`. */
  number(message: ShownMessage, button: ReplyButton): number;
  /** The message's buttons are off the screen (replaced or updated). */
  retire(message: ShownMessage): void;
  button(number: number): ButtonLookup;
  /** Buttons still on screen, oldest first. */
  live(): ShownButton[];
}

export function createMessageBook(options: { now: () => number }): MessageBook {
  const messages: ShownMessage[] = [];
  const buttons = new Map<number, ShownButton>();
  const retired = new Map<number, ShownMessage>();
  let nextButton = 1;

  return {
    add({ where, channelId, visibleTo, posted, ref }) {
      const id = messages.length + 1;
      const message: ShownMessage = { id, where, channelId, visibleTo };
      // Slack-shaped timestamps: unique per session and across sessions of one state database.
      if (posted)
        message.ref = ref ?? {
          channelId,
          ts: `${Math.floor(options.now() / 1000)}.${String(id).padStart(6, '0')}`,
        };
      messages.push(message);
      return message;
    },
    byRef(ref) {
      return messages.find((m) => m.ref?.channelId === ref.channelId && m.ref.ts === ref.ts);
    },
    number(message, button) {
      const number = nextButton++;
      buttons.set(number, { number, button, message });
      return number;
    },
    retire(message) {
      for (const [number, shown] of buttons)
        if (shown.message === message) {
          buttons.delete(number);
          retired.set(number, message);
        }
    },
    button(number) {
      const shown = buttons.get(number);
      if (shown) return { kind: 'found', shown };
      const message = retired.get(number);
      return message ? { kind: 'retired', message } : { kind: 'unknown' };
    },
    live: () => [...buttons.values()],
  };
}
