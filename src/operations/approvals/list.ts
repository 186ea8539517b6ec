/**
 * `/edge approvals`: the requests waiting, each with what it will run and the buttons its reader
 * may press (with --all, the latest of any state as a table); never cut silently.
 */
import type { ApprovalRequest } from '../../approvals/machine.js';
import { md, trusted } from '../../reply/markup.js';
import {
  ephemeral,
  type Reply,
  type ReplyBlock,
  type ReplyButton,
  type ReplyTable,
} from '../../reply/model.js';
import type { RunContext } from '../engine/types.js';
import { cardRef, decisionButtons, describeRequest, listedRequest, timingText, waitsFor } from './card.js';
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
  if (all) return history(state, ctx, requests);
  const blocks: ReplyBlock[] = [
    {
      type: 'header',
      text: yours ? 'Waiting for you, and yours' : 'Waiting for approval',
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

/**
 * `/edge approvals --all`: the latest requests of any state as a table, a waiting one's id linking
 * to its card (where it is decided: a table row has no buttons).
 */
async function history(
  state: FlowState,
  ctx: RunContext,
  requests: readonly ApprovalRequest[],
): Promise<Reply> {
  const now = new Date(state.now());
  const links = await Promise.all(
    requests.map((request) => {
      const ref = request.state === 'pending' ? cardRef(request) : undefined;
      // Without a link the id is text: `/edge approvals ID` still shows the request whole.
      return ref ? ctx.surface.permalink(ref).catch(() => undefined) : undefined;
    }),
  );
  const table: ReplyTable = {
    columns: [
      { header: 'Request', kind: 'text' },
      { header: 'What', kind: 'text' },
      { header: 'Operation', kind: 'text' },
      { header: 'Requester', kind: 'text' },
      { header: 'State', kind: 'text' },
      { header: 'Approvals', kind: 'number' },
      { header: 'Needed', kind: 'number' },
      { header: 'When', kind: 'text' },
    ],
    rows: requests.map((request, index) => {
      const link = links[index];
      return [
        link ? { text: request.id, url: link } : request.id,
        describeRequest(request, state.gated.get(request.operation)),
        request.operation,
        { user: request.requester },
        request.state,
        request.approvals.length,
        request.required,
        timingText(request, now),
      ];
    }),
  };
  return ephemeral(`${requests.length} approval requests`, [
    { type: 'header', text: 'Approval requests (latest 50)' },
    { type: 'table', table },
    {
      type: 'context',
      text: md`A waiting request's id links to its card, where it is approved or rejected. \`/edge approvals\` lists those waiting with their buttons; \`/edge approvals REQUEST_ID\` shows any request whole, with its timeline.`,
    },
  ]);
}
