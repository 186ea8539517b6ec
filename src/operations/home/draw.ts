/**
 * A Home drawn for a redraw (a change that concerns its person, or the tab opened), outside any
 * request: it lists what the person may run in every channel, and a failure to draw it is drawn
 * as `/edge home` would answer it, with a correlation id, rather than leaving the old Home up
 * unexplained.
 */
import type { Authorizer } from '../../policy/authorizer.js';
import type { Reply } from '../../reply/model.js';
import type { Logger } from '../../telemetry/log.js';
import { accessView } from '../engine/access.js';
import { describeFailure, newCorrelationId } from '../engine/failure.js';
import type { HomePublisher } from '../engine/ports.js';
import type { AnyOperation, HomeDesk } from '../engine/types.js';

export function homeDrawer(options: {
  show: HomeDesk['show'];
  operations: readonly AnyOperation[];
  authorizer: Authorizer;
  logger: Logger;
}): (userId: string, links: Pick<HomePublisher, 'permalink'>) => Promise<Reply> {
  return async (userId, links) => {
    // The Home tab is in no channel.
    const caller = { userId, channelId: '' };
    try {
      return await options.show({
        ...caller,
        access: accessView(options.operations, options.authorizer, caller),
        permalink: (ref) => links.permalink(ref),
      });
    } catch (error) {
      const correlationId = newCorrelationId();
      const logger = options.logger.child({ correlationId, operation: 'home', user: userId });
      return describeFailure(error, { correlationId, logger }).reply;
    }
  };
}
