/** A reply drawn as the Home tab: its blocks as a message would show them, in a `home` view. */
import type { types } from '@slack/bolt';
import { textSections } from '../../reply/fit.js';
import type { Reply } from '../../reply/model.js';
import { HOME_MAX_BLOCKS } from '../limits.js';
import { renderPlainReply, renderReply } from './reply.js';

export function renderHome(reply: Reply): types.HomeView {
  const { blocks } = renderReply(reply);
  // The Home content stays within a message's budget; this only guards Slack's own limit.
  return { type: 'home', blocks: blocks.slice(0, HOME_MAX_BLOCKS) as types.HomeView['blocks'] };
}

const RETYPE = 'Some of your Home did not fit here: type `/edge home` to see all of it.';

/**
 * The Home as plain text, for when Slack refuses the rich one: the same words in text sections,
 * without buttons. What does not fit (or would go in a file) is named, with the command that
 * shows it all.
 */
export function renderPlainHome(reply: Reply): types.HomeView {
  const cut = { value: false };
  const plain = renderPlainReply(reply);
  const sections = textSections(plain.text, cut);
  const shown = sections.length > HOME_MAX_BLOCKS ? sections.slice(0, HOME_MAX_BLOCKS - 1) : sections;
  // A Home carries no files: what a message would attach is a command away.
  if (shown.length < sections.length || cut.value || plain.files.length > 0 || plain.overflow !== undefined)
    shown.push(RETYPE);
  if (shown.length === 0) shown.push('Your Home is empty: type `/edge help` to see what you can run.');
  return {
    type: 'home',
    blocks: shown.map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })),
  };
}
