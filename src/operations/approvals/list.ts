/**
 * `/edge approvals`: the requests waiting (or, with --all, the latest of any state), each with
 * what it will run and the buttons its reader may press; never cut silently.
 */
import type { ApprovalRequest } from '../../approvals/machine.js';
import { md, trusted } from '../../reply/markup.js';
import { ephemeral, type Reply, type ReplyBlock, type ReplyButton } from '../../reply/model.js';
import type { RunContext } from '../engine/types.js';
import { decisionButtons, listedRequest, waitsFor } from './card.js';
import { type FlowState, mayApprove, requesterButtons, WAITING_READ_YOURS } from './flow-state.js';

/** Waiting requests `/edge approvals` reads; more are counted and said. */
const WAITING_READ = 50;

/** Whether a pending request is the user's business: theirs, or waiting for their decision. */
const concerns = async (state: FlowState, request: ApprovalRequest, userId: string): Promise<boolean> =>
  request.requester === userId ||
  (await waitsFor(request, userId, (waiting, user) => mayApprove(state, waiting, user)));

/**
 * Waiting requests (with `all`, the last 50 of any state). With scope `yours`, only those the
 * caller asked for or may decide now (the Home's "Show all", which takes no grant).
 */
export async function list(
  state: FlowState,
  ctx: RunContext,
  all: boolean,
  scope: 'everyone' | 'yours' = 'everyone',
): Promise<Reply> {
  const yours = scope === 'yours' && !all;
  const limit = all ? 50 : yours ? WAITING_READ_YOURS : WAITING_READ;
  const read = await state.service.list(all ? { all: true, limit } : { limit });
  // The Home's lists whole: what is the caller's, or waits for their decision.
  const requests: ApprovalRequest[] = [];
  for (const request of read)
    if (!yours || (await concerns(state, request, ctx.userId))) requests.push(request);
  // Never cut silently: beyond what is read, the listing says how many more wait.
  const waiting = all || read.length < limit ? read.length : await state.service.countWaiting();
  const more: ReplyBlock[] =
    waiting > read.length
      ? [
          {
            type: 'context',
            text: yours
              ? md`${waiting} requests are waiting, everyone's together; the newest ${read.length} are read here, and those that are yours or wait for you are listed. Open any other with \`/edge approvals REQUEST_ID\` (its card in the approvals channel shows the id).`
              : md`${waiting} requests are waiting; the newest ${read.length} are read here. Open any other with \`/edge approvals REQUEST_ID\` (its card in the approvals channel shows the id).`,
          },
        ]
      : [];
  if (requests.length === 0)
    return ephemeral('No approval requests', [
      {
        type: 'text',
        text: trusted(
          all
            ? '_No approval requests yet._'
            : more.length > 0
              ? yours
                ? '_None of those read here is yours or waits for your approval._'
                : '_None of those read here is still waiting._'
              : yours
                ? '_Nothing waits for your approval, and you have no request waiting._'
                : '_Nothing is waiting for approval._',
        ),
      },
      ...more,
    ]);
  const blocks: ReplyBlock[] = [
    {
      type: 'header',
      text: all
        ? 'Approval requests (latest 50)'
        : yours
          ? 'Waiting for you, and yours'
          : 'Waiting for approval',
    },
    ...more,
  ];
  const filename = 'approval-requests.txt';
  const fileSections: string[] = [];
  for (const request of requests) {
    const buttons: ReplyButton[] = [];
    if (request.state === 'pending' && request.requester === ctx.userId)
      buttons.push(...requesterButtons(request));
    else if (request.state === 'pending' && (await mayApprove(state, request, ctx.userId)))
      buttons.push(...decisionButtons(request.id, true));
    const listed = listedRequest(
      request,
      state.gated.get(request.operation),
      filename,
      buttons,
      new Date(state.now()),
    );
    blocks.push(...listed.blocks);
    if (listed.fileSection) fileSections.push(listed.fileSection);
  }
  const reply = ephemeral(`${requests.length} approval requests`, blocks);
  if (fileSections.length === 0) return reply;
  return {
    ...reply,
    files: [
      {
        filename,
        title: 'Approval requests: every parameter in full',
        content: fileSections.join(`\n${'-'.repeat(72)}\n\n`),
        about: 'every parameter of the requests listed, in full',
      },
    ],
  };
}
