/**
 * `/edge approvals REQUEST_ID`: one request whole, with its timeline and the buttons its reader
 * may press.
 */
import { markupToPlain } from '../../reply/markup.js';
import type { Reply, ReplyButton } from '../../reply/model.js';
import { UserFacingError } from '../engine/errors.js';
import type { RunContext } from '../engine/types.js';
import { decisionButtons, requestDetail, TIMELINE_SHOWN } from './card.js';
import { type FlowState, mayApprove, requesterButtons } from './flow-state.js';
import { noSuchRequestText } from './refusal-text.js';

/** Audit rows read for one request's timeline: one more than shown, so the view can say there are more. */
const TIMELINE_READ = TIMELINE_SHOWN + 1;

/** One request whole: every parameter, the digest and the timeline of its audit rows. */
export async function show(state: FlowState, ctx: RunContext, requestId: string): Promise<Reply> {
  const request = await state.service.get(requestId);
  if (!request) throw new UserFacingError(markupToPlain(noSuchRequestText(requestId)));
  const rows = await ctx.services.audit.list({
    limit: TIMELINE_READ,
    filter: { approvalId: request.id },
  });
  const buttons: ReplyButton[] =
    request.state !== 'pending'
      ? []
      : request.requester === ctx.userId
        ? requesterButtons(request)
        : (await mayApprove(state, request, ctx.userId))
          ? decisionButtons(request.id, true)
          : [];
  return requestDetail(
    request,
    state.gated.get(request.operation),
    rows.reverse(),
    buttons,
    new Date(state.now()),
  );
}
