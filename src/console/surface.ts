/**
 * The console implementation of Surface: every message is printed with a heading that says
 * who sees it and where it went, buttons get numbers for `:click`, files land in the out
 * folder, and forms wait for the session to ask them field by field after the command.
 */

import type { Messenger, Surface } from '../operations/engine/ports.js';
import type { MessageRef } from '../operations/engine/types.js';
import type { ModalSpec } from '../reply/form.js';
import type { Reply, ReplyFile } from '../reply/model.js';
import { overflowFile } from '../reply/plain.js';
import { byteSize } from '../reply/words.js';
import { commentWithMaskedNote, createFileScrub } from '../secrets/file-scrub.js';
import type { SecretRegistry } from '../secrets/registry.js';
import { scrubbed } from '../secrets/scrub.js';
import type { Logger } from '../telemetry/log.js';
import type { MessageBook, ShownMessage } from './book.js';
import type { OutFiles } from './out-files.js';
import { renderReplyForTerminal } from './render.js';
import { type Style, safeForTerminal } from './style.js';
import type { Terminal } from './terminal.js';

/** A form an operation opened; the session fills it once the current command is done. */
export interface PendingForm {
  modal: ModalSpec;
  userId: string;
  channelId: string;
}

/** What every console surface of one session shares. */
export interface ConsoleScreen {
  terminal: Terminal;
  style: Style;
  book: MessageBook;
  files: OutFiles;
  logger: Logger;
  /** Everything printed passes it, as everything sent to Slack does. */
  secrets: SecretRegistry;
  forms: PendingForm[];
}

export interface ConsoleCaller {
  userId: string;
  channelId: string;
  /** The message whose button was clicked: a reply with replaceOriginal replaces it. */
  origin?: ShownMessage;
}

/** The console's id for a user's direct-message channel. */
export const directChannelId = (userId: string): string => `D${userId}`;

interface Placement {
  where: string;
  channelId: string;
  visibleTo?: string;
  posted: boolean;
  /** An existing message shown again with new content (update). */
  again?: ShownMessage;
  /** A ref from an earlier session, for an update of a message this screen never showed. */
  ref?: MessageRef;
  note?: string;
}

const fileSize = byteSize;

/** A terminal shows a picture as its text form (render.ts); the PNG itself is saved beside the other files. */
const pictureFiles = (reply: Reply): ReplyFile[] =>
  reply.blocks.flatMap((block) =>
    block.type === 'image'
      ? [
          {
            filename: block.image.filename,
            title: block.image.title,
            content: block.image.png,
            about: 'the picture of the text chart above',
          },
        ]
      : [],
  );

/** Printing and the messages anyone can post: no caller involved. */
function consoleDelivery(screen: ConsoleScreen) {
  const { terminal, style, book, files, logger } = screen;

  async function saveFiles(list: ReplyFile[], reply: Reply): Promise<string[]> {
    const lines: string[] = [];
    for (const file of list) {
      try {
        // The one place the bytes of the console's files pass the secret registry.
        const saved = await files.save(file, createFileScrub(screen.secrets, reply.reveals ?? []));
        const about = file.about ? `: ${safeForTerminal(file.about)}` : '';
        const said = commentWithMaskedNote(file.comment, saved.masked);
        const comment = said ? ` — ${safeForTerminal(said)}` : '';
        lines.push(
          style.yellow(`📎 ${saved.shown}`) +
            ` (${safeForTerminal(file.title)}, ${fileSize(saved.bytes)})${about}${comment}`,
        );
      } catch (error) {
        logger.error('a reply file could not be written', { error, filename: file.filename });
        lines.push(
          style.red(`✗ The file ${safeForTerminal(file.filename)} could not be written to ${files.dir}.`),
        );
      }
    }
    return lines;
  }

  async function show(reply: Reply, placement: Placement): Promise<ShownMessage> {
    let message: ShownMessage;
    if (placement.again) {
      message = placement.again;
      book.retire(message);
    } else
      message = book.add({
        where: placement.where,
        channelId: placement.channelId,
        visibleTo: placement.visibleTo,
        posted: placement.posted,
        ref: placement.ref,
      });
    const rendered = renderReplyForTerminal(reply, {
      style,
      width: terminal.width,
      numberButton: (button) => book.number(message, button),
    });
    const attached: ReplyFile[] = [...(reply.files ?? []), ...pictureFiles(reply)];
    if (rendered.overflow !== undefined) attached.unshift(overflowFile(rendered.overflow));
    const fileLines = await saveFiles(attached, reply);
    const title = placement.again ? `updated message #${message.id}` : `#${message.id}`;
    const heading = `── ${title} · ${placement.note ? `${placement.note} · ` : ''}${placement.where} ──`;
    // The one place console output passes the secret registry (a DM may reveal its own secret).
    const text = ['', style.cyan(heading), ...rendered.lines, ...fileLines].join('\n');
    terminal.print(scrubbed(screen.secrets, text, reply.reveals ?? []));
    return message;
  }

  /** A reply, then its follow-ups printed after it, each marked as in its thread. */
  async function showWithThread(reply: Reply, placement: Placement): Promise<ShownMessage> {
    const message = await show(reply, placement);
    for (const followUp of reply.thread ?? [])
      await show(followUp, {
        where: `${placement.where}, in the thread of #${message.id}`,
        channelId: placement.channelId,
        visibleTo: placement.visibleTo,
        posted: placement.posted,
      });
    return message;
  }

  /** An earlier message shown again with new content; one this screen never showed is named by its ref. */
  const placeUpdate = (ref: MessageRef): Placement => {
    const known = book.byRef(ref);
    return known
      ? { where: known.where, channelId: known.channelId, posted: true, again: known }
      : {
          where: `in #${ref.channelId}`,
          channelId: ref.channelId,
          posted: true,
          ref,
          note: 'updated a message from an earlier session',
        };
  };

  /** A thread by its first message's number, as every heading names messages; never by its ts. */
  const threadName = (channelId: string, ts: string): string => {
    const known = book.byRef({ channelId, ts });
    return known ? `#${known.id}` : 'a message from an earlier session';
  };

  const messenger: Messenger = {
    async postToChannel(channelId, reply, threadTs) {
      const where = `posted in #${channelId}${threadTs ? `, in the thread of ${threadName(channelId, threadTs)}` : ''}`;
      return (await showWithThread(reply, { where, channelId, posted: true })).ref;
    },
    async update(ref, reply) {
      await showWithThread(reply, placeUpdate(ref));
    },
    async sendDirect(userId, reply) {
      const shown = await showWithThread(reply, {
        where: `DM to ${userId}`,
        channelId: directChannelId(userId),
        visibleTo: userId,
        posted: true,
      });
      return shown.ref;
    },
    async deleteMessage(ref) {
      // A terminal cannot take back what it printed: it says the message is gone and retires its buttons.
      const known = book.byRef(ref);
      if (known) book.retire(known);
      terminal.print(style.cyan(`── ${known ? `message #${known.id}` : 'a message'} deleted ──`));
    },
    // A terminal has no links to messages: answers name them by their number instead.
    permalink: async () => undefined,
  };
  return { show: showWithThread, placeUpdate, messenger };
}

/** Posts, updates and DMs outside any request (the approval sweep, pending cards shown again). */
export function createConsoleMessenger(screen: ConsoleScreen): Messenger {
  return consoleDelivery(screen).messenger;
}

/** Answers one request typed at the prompt, and posts anywhere as the engine needs. */
export function createConsoleSurface(screen: ConsoleScreen, caller: ConsoleCaller): Surface {
  const { book } = screen;
  const { show, placeUpdate, messenger } = consoleDelivery(screen);

  const placeReply = (reply: Reply): Placement => {
    // The progress message of a long job becomes its answer.
    if (reply.inPlaceOf && reply.visibility === 'channel') return placeUpdate(reply.inPlaceOf);
    const replaces = reply.replaceOriginal ? caller.origin : undefined;
    if (replaces) book.retire(replaces);
    const note = replaces ? `replaces #${replaces.id}` : undefined;
    switch (reply.visibility) {
      case 'ephemeral':
        return {
          where: `only you (${caller.userId}) see this`,
          channelId: caller.channelId,
          visibleTo: caller.userId,
          posted: false,
          note,
        };
      case 'channel':
        return { where: `posted in #${caller.channelId}`, channelId: caller.channelId, posted: true, note };
      case 'dm':
        return {
          where: `DM to ${caller.userId}`,
          channelId: directChannelId(caller.userId),
          visibleTo: caller.userId,
          posted: true,
          note,
        };
    }
  };

  return {
    ...messenger,
    async respond(reply) {
      return (await show(reply, placeReply(reply))).ref;
    },
    async openModal(modal) {
      screen.forms.push({ modal, userId: caller.userId, channelId: caller.channelId });
    },
    // A terminal has no windows: the panel is an answer, its buttons numbered for :click.
    async openPanel(panel) {
      await show(panel.reply, placeReply(panel.reply));
    },
  };
}
