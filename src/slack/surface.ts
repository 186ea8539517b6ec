/**
 * The Slack implementation of Surface and Messenger: every answer reaches the person who asked,
 * even when Slack refuses a message (PRODUCT §6). One verb a file, each handed its state:
 *
 * - respond.ts answers a request where its reply belongs (ephemeral, in the channel, by DM), and
 *   moves it another way when the channel or the response_url is the problem; request.ts holds
 *   the ways a request's answer can go;
 * - forms.ts opens forms and panels;
 * - deliver.ts sends a reply one way: its message, then its files (files.ts), then its thread;
 * - fallback.ts sends a message Slack refuses again as plain text;
 * - messenger.ts posts, updates and DMs outside any request;
 * - outgoing.ts holds what they share: the client, the secret scrub, the DM channels.
 *
 * Everything sent passes the secret registry, except the secrets a reply exists to deliver:
 * messages, views, file titles and comments, and the bytes of every file (upload.ts).
 */
import type { Messenger, Surface } from '../operations/engine/ports.js';
import { openModal, openPanel } from './forms.js';
import { slackMessenger } from './messenger.js';
import { createOutgoing, type SlackMessengerOptions } from './outgoing.js';
import type { SlackRequest, SlackSurfaceOptions } from './request.js';
import { respond } from './respond.js';

/** Posts, updates and DMs anywhere, outside any request (the approval sweep, a shown card). */
export function createSlackMessenger(options: SlackMessengerOptions): Messenger {
  return slackMessenger(createOutgoing(options));
}

/** Answers one request (a command, a click, a form) and can post anywhere, as the engine needs. */
export function createSlackSurface(options: SlackSurfaceOptions): Surface {
  const request: SlackRequest = { slack: createOutgoing(options), asked: options };
  const messenger = slackMessenger(request.slack);
  return {
    ...messenger,
    ...(options.clicked ? { clicked: options.clicked } : {}),
    // Posts in the channel asked in (progress, an approval card there) stay in the thread asked in.
    postToChannel: (channelId, reply, inThread) =>
      messenger.postToChannel(
        channelId,
        reply,
        inThread ?? (channelId === options.channelId ? options.threadTs : undefined),
      ),
    respond: (reply) => respond(request, reply),
    openModal: (modal) => openModal(request, modal),
    openPanel: (panel) => openPanel(request, panel),
  };
}
