/**
 * What the people around a request are told besides its card: the reminder in the card's thread
 * at half its time to live, and the requester's direct message when the request ends. None of
 * them ever holds a secret: keys and tokens reach the requester in a message of their own.
 */
import type { ApprovalRequest } from '../../approvals/machine.js';
import { md, mention, nest } from '../../reply/markup.js';
import { inChannel, type Reply } from '../../reply/model.js';
import { formatClock, formatSpan } from '../shared/time-args.js';
import { approversWhoMayAct, cardPointer, describeRequest, doneText, escalationMembers } from './card.js';
import type { GatedOperation } from './gate.js';

/** Text ending in a full stop, so another sentence can follow. */
export const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

/**
 * The reply in the card's thread at half the time to live, mentioning who has not acted yet. It
 * has no Approve of its own: it links to the card (`link`, when the transport gave one), where
 * everything that will run is shown beside the buttons.
 */
export function reminderReply(
  request: ApprovalRequest,
  op: GatedOperation | undefined,
  now: Date,
  link?: string,
): Reply {
  const what = describeRequest(request, op);
  const nowMs = now.getTime();
  const expires = request.expiresAt.getTime();
  // The reminder goes out at half the time to live, the moment the escalation role may act.
  const escalated = escalationMembers(request);
  return inChannel(`Reminder: ${what} is waiting for approval`, [
    {
      type: 'text',
      text: md`:alarm_clock: Reminder for ${nest(approversWhoMayAct(request))}: *${what}*, asked by ${nest(mention(request.requester))}, is still waiting. It expires in ${formatSpan(expires - nowMs)}, ${formatClock(expires, nowMs)}.`,
    },
    ...(escalated
      ? [
          {
            type: 'text' as const,
            text: md`:arrow_up: Escalated to ${nest(escalated)}: you may approve or reject it from now on.`,
          },
        ]
      : []),
    { type: 'context', text: md`Request ${request.id}. ${nest(cardPointer(request, link))}` },
  ]);
}

/**
 * The requester's direct message about how their request ended; undefined for the ends they
 * caused or were already told of (a cancel, an outcome unknown has its own message).
 */
export function outcomeNotice(
  request: ApprovalRequest,
  op: GatedOperation | undefined,
  now: Date,
): Reply | undefined {
  const what = describeRequest(request, op);
  const by = request.decidedBy ? mention(request.decidedBy) : undefined;
  const context = { type: 'context' as const, text: md`Your request ${request.id}` };
  switch (request.state) {
    case 'succeeded':
      return inChannel(`Done: ${what}`, [
        {
          type: 'text',
          text: md`:white_check_mark: ${doneText(request, op)}: your request was approved${nest(by ? md` by ${nest(by)}` : md``)} and it ran. ${request.result ? sentence(request.result.detail) : ''}`,
        },
        context,
      ]);
    case 'failed':
      return inChannel(`Your approved change failed: ${what}`, [
        {
          type: 'text',
          text: md`:x: ${what}: failed. ${sentence(request.result?.detail ?? 'no detail was recorded')} It was not retried.`,
        },
        context,
      ]);
    case 'rejected':
      return inChannel(`Your request was rejected: ${what}`, [
        {
          type: 'text',
          text: request.decisionReason
            ? md`:no_entry: ${nest(by ?? md`An approver`)} rejected your request: *${what}*. Reason: ${request.decisionReason}`
            : md`:no_entry: ${nest(by ?? md`An approver`)} rejected your request: *${what}*. No reason was given.`,
        },
        context,
      ]);
    case 'expired':
      return inChannel(`Your request expired unanswered: ${what}`, [
        {
          type: 'text',
          text: md`:alarm_clock: Your request expired unanswered at ${formatClock(request.expiresAt.getTime(), now.getTime())}: ${what}. Nobody approved it within ${formatSpan(request.expiresAt.getTime() - request.createdAt.getTime())}; ask again if it is still needed.`,
        },
        context,
      ]);
    default:
      return undefined;
  }
}
