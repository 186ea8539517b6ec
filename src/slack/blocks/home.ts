/** A reply drawn as the Home tab: its blocks as a message would show them, in a `home` view. */
import type { types } from '@slack/bolt';
import type { Reply } from '../../reply/model.js';
import { HOME_MAX_BLOCKS } from '../limits.js';
import { renderReply } from './reply.js';

export function renderHome(reply: Reply): types.HomeView {
  const { blocks } = renderReply(reply);
  // The Home content stays within a message's budget; this only guards Slack's own limit.
  return { type: 'home', blocks: blocks.slice(0, HOME_MAX_BLOCKS) as types.HomeView['blocks'] };
}
