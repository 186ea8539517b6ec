/** A reply drawn as the Home tab: its blocks as a message would show them, in a `home` view. */
import type { types } from '@slack/bolt';
import { escapeMrkdwn } from '../../reply/escape.js';
import { textSections } from '../../reply/fit.js';
import type { Reply } from '../../reply/model.js';
import { replyToPlainText } from '../../reply/plain.js';
import { HOME_MAX_BLOCKS } from '../limits.js';
import { renderReplyWithoutTables } from './reply.js';

export function renderHome(reply: Reply): types.HomeView {
  // Slack draws tables in messages only: a view shows them as aligned text.
  const { blocks } = renderReplyWithoutTables(reply);
  // The Home content stays within a message's budget; this only guards Slack's own limit.
  return { type: 'home', blocks: blocks.slice(0, HOME_MAX_BLOCKS) as types.HomeView['blocks'] };
}

const RETYPE = 'Some of your Home did not fit here: type `/edge home` to see all of it.';

/**
 * The Home as plain text, for when Slack refuses the rich one: every line of it in text sections
 * (a view holds up to 100 of 3,000 characters; a message's plain fallback is cut far shorter),
 * without buttons. What does not fit, or would go in a file a Home cannot carry, is named with
 * the command that shows it all.
 */
export function renderPlainHome(reply: Reply): types.HomeView {
  const cut = { value: false };
  const sections = textSections(escapeMrkdwn(replyToPlainText(reply)), cut);
  const retype = sections.length > HOME_MAX_BLOCKS || cut.value || (reply.files?.length ?? 0) > 0;
  // The line naming `/edge home` takes one of the view's blocks when it is needed.
  const shown = sections.slice(0, retype ? HOME_MAX_BLOCKS - 1 : HOME_MAX_BLOCKS);
  if (retype) shown.push(RETYPE);
  if (shown.length === 0) shown.push('Your Home is empty: type `/edge help` to see what you can run.');
  return {
    type: 'home',
    blocks: shown.map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })),
  };
}
