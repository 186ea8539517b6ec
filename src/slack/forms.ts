/**
 * Windows a request opens: a form (a Slack modal) or a panel (a reply in a window of its own,
 * the menu). Slack opens one only within 3 seconds of a click or a command (its trigger_id); a
 * form asked for without one is offered behind a button, a panel is answered as a reply.
 */
import { OperationFailedError } from '../operations/engine/errors.js';
import type { ModalSpec } from '../reply/form.js';
import { md } from '../reply/markup.js';
import { commandButton, ephemeral, type Reply } from '../reply/model.js';
import { wrapMetadata } from './blocks/metadata.js';
import { renderModal, renderPanel } from './blocks/modal.js';
import { slackErrorCode } from './fallback.js';
import { BUTTON_VALUE_MAX } from './limits.js';
import { scrub } from './outgoing.js';
import type { SlackRequest } from './request.js';
import { answerPrivately, respond } from './respond.js';

/**
 * A form asked for where Slack gave no trigger_id (a mention): a button that runs the command
 * again opens it, since a click comes with one.
 */
function formBehindButton(title: string, command: string): Reply {
  const text = `“${title}” is a form, and Slack opens forms only from a click.`;
  if (command.length > BUTTON_VALUE_MAX)
    return ephemeral(`${text} Type the same command after /edge in the channel instead.`, [
      {
        type: 'text',
        text: md`:memo: ${text} Type the same command after \`/edge\` in the channel instead.`,
      },
    ]);
  return ephemeral(`${text} Click “Open the form” to fill it in.`, [
    { type: 'text', text: md`:memo: ${text} Click *Open the form* to fill it in.` },
    { type: 'actions', buttons: [commandButton('Open the form', command, 'primary')] },
  ]);
}

/** Opens a form, in place of the modal the click came from when there is one. */
export async function openModal(request: SlackRequest, modal: ModalSpec): Promise<void> {
  const { slack, asked } = request;
  if (!asked.triggerId) {
    if (asked.formCommand === undefined)
      throw new Error('a form can only be opened from a command or a button');
    await answerPrivately(request, formBehindButton(modal.title, asked.formCommand));
    return;
  }
  const view = scrub(
    slack,
    renderModal({
      ...modal,
      privateMetadata: wrapMetadata(asked.channelId, modal.privateMetadata, asked.threadTs),
    }),
  );
  try {
    if (asked.viewId) await slack.client.views.update({ view_id: asked.viewId, view });
    else await slack.client.views.open({ trigger_id: asked.triggerId, view });
  } catch (error) {
    const code = slackErrorCode(error);
    if (code === 'expired_trigger_id' || code === 'exchanged_trigger_id' || code === 'invalid_trigger_id')
      throw new OperationFailedError(
        `The form “${modal.title}” could not be opened in time (Slack allows 3 seconds); run the command again.`,
      );
    throw error;
  }
}

/** Shows a reply in a window of its own; without a trigger_id, or too late for one, answers with it. */
export async function openPanel(
  request: SlackRequest,
  panel: { title: string; reply: Reply },
): Promise<void> {
  const { slack, asked } = request;
  if (!asked.triggerId) {
    await respond(request, panel.reply);
    return;
  }
  const view = scrub(
    slack,
    renderPanel(panel.title, panel.reply, wrapMetadata(asked.channelId, '', asked.threadTs)),
  );
  try {
    await slack.client.views.open({ trigger_id: asked.triggerId, view });
  } catch (error) {
    // Too late for a window (Slack's 3 seconds): the same panel as an answer.
    slack.logger.warn('a panel could not be opened; answering with it instead', {
      slackError: slackErrorCode(error),
    });
    await respond(request, panel.reply);
  }
}
