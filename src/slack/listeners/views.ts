import type { App } from '@slack/bolt';
import { scrubbed } from '../../secrets/scrub.js';
import { unwrapMetadata } from '../blocks/metadata.js';
import { readViewValues } from '../blocks/modal.js';
import type { Deliveries } from '../deliveries.js';
import { createSlackSurface } from '../surface.js';
import { type ListenerDeps, tablesOf } from './deps.js';

/**
 * Form submissions: validation answers inside the acknowledgement (errors on the fields);
 * the operation itself runs after it, once a form that changes something has its delivery
 * recorded (one submission of a view, whichever replica it reached).
 */
export function registerViews(app: App, options: ListenerDeps, deliveries: Deliveries): void {
  app.view(/^[a-z0-9.-]+:[a-z0-9-]+$/, async ({ ack, body, view, client, context }) => {
    const { channelId, metadata, threadTs } = unwrapMetadata(view.private_metadata);
    const surface = createSlackSurface({
      client,
      userId: body.user.id,
      channelId,
      // A command a form stands for may open a form of its own (a window to pick).
      ...('trigger_id' in body ? { triggerId: body.trigger_id } : {}),
      threadTs,
      logger: options.logger,
      secrets: options.services.secrets,
      ...tablesOf(options, context.teamId),
    });
    const caller = { userId: body.user.id, channelId, ...(threadTs ? { threadTs } : {}), surface };
    const result = await options.engine.submit({
      ...caller,
      callbackId: view.callback_id,
      privateMetadata: metadata,
      values: readViewValues(view.state.values),
    });
    if ('errors' in result) {
      // Field errors can quote platform text: they pass the secret registry like every reply.
      await ack({ response_action: 'errors', errors: scrubbed(options.services.secrets, result.errors) });
      return;
    }
    await ack();
    await deliveries.once(
      {
        // A view is submitted once: it closes when the submission is accepted.
        key: `view:${view.id}:${view.hash}`,
        retryNum: context.retryNum,
        changes: result.changes,
      },
      () => result.run(),
      {
        what: 'form submission',
        userId: body.user.id,
        unrecorded: () => options.engine.refuseUnrecorded(caller),
      },
    );
  });
}
