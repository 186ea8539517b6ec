/**
 * What people read when the approval service refuses something: the one place its reason codes
 * and facts become sentences. Mentions are built from ids the bot stored; every other value
 * (targets, role names) is escaped by `md`.
 */
import type { BeginRefusal } from '../../approvals/execution.js';
import type { ApprovalRequest, ClickRefusal, DecidedFacts } from '../../approvals/machine.js';
import { joinMarkup, type Markup, md, mention, nest } from '../../reply/markup.js';
import { ephemeral, type Reply, type ReplyBlock } from '../../reply/model.js';

const pad = (n: number) => String(n).padStart(2, '0');

/** `14:02 UTC`, with the date in front when it is not today (UTC) any more. */
export function formatUtc(at: Date, now: Date): string {
  const time = `${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())} UTC`;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return day(at) === day(now) ? time : `${day(at)} ${time}`;
}

/** `a`, `a and b`, `a, b and c`. */
function joinNames(names: Markup[]): Markup {
  if (names.length <= 1) return joinMarkup(names, '');
  return md`${nest(joinMarkup(names.slice(0, -1), ', '))} and ${nest(names.at(-1)!)}`;
}

const approverRoleText = (roles: readonly string[]): Markup =>
  roles.length > 0 ? md`members of ${nest(joinNames(roles.map((role) => md`${role}`)))}` : md`its approvers`;

/** The sentence a late clicker reads: who decided and when, and whether it ran. */
export function decidedText(request: DecidedFacts, now: Date): Markup {
  const when = (at: Date | null) => (at ? md` at ${formatUtc(at, now)}` : md``);
  const approvers = request.approvals.map((vote) => mention(vote.userId));
  const approved = md`This request was already approved by ${nest(approvers.length > 0 ? joinNames(approvers) : md`its approvers`)}${nest(when(request.decidedAt))}`;
  switch (request.state) {
    case 'pending':
      return md`This request is still waiting for approval.`;
    case 'approved':
      return md`${nest(approved)}.`;
    case 'executing':
      return md`${nest(approved)}; it is running now.`;
    case 'succeeded':
      return md`${nest(approved)}; it ran and succeeded${nest(when(request.finishedAt))}.`;
    case 'failed':
      return md`${nest(approved)}; it ran and failed${nest(when(request.finishedAt))}.`;
    case 'unknown':
      return md`${nest(approved)}; the bot stopped while it ran, so check the platform for its result.`;
    case 'rejected':
      return md`This request was already rejected by ${nest(request.decidedBy ? mention(request.decidedBy) : md`an approver`)}${nest(when(request.decidedAt))}.`;
    case 'expired':
      return md`This request already expired at ${formatUtc(request.expiresAt, now)}.`;
    case 'cancelled':
      return md`This request was already cancelled by the requester${nest(when(request.decidedAt))}.`;
  }
}

/**
 * An id the store has no request under. Requests are kept once closed (decided, expired,
 * cancelled), so such an id was never made here: nothing expired away.
 */
export function noSuchRequestText(requestId?: string): Markup {
  const which = requestId ? md`approval request ${requestId}` : md`such approval request`;
  return md`There is no ${nest(which)}: none was ever made with that id (closed and expired requests are kept). Type /edge approvals --all to see the latest ones.`;
}

/** Why an Approve, Reject or Cancel click did not count, for the clicker. */
export function clickRefusalText(refusal: ClickRefusal | { reason: 'not-found' }, now: Date): Markup {
  switch (refusal.reason) {
    case 'not-found':
      return noSuchRequestText();
    case 'not-pending':
      return decidedText(refusal.decided, now);
    case 'expired':
      return md`This request expired at ${formatUtc(refusal.expiresAt, now)}.`;
    case 'not-requester':
      return md`Only the requester (${nest(mention(refusal.requester))}) can cancel this request.`;
    case 'own-request':
      return refusal.action === 'approve'
        ? md`You requested this, so you cannot approve it; another approver must.`
        : md`You requested this; use Cancel to withdraw it.`;
    case 'not-yet-escalated':
      return md`This request is escalated to members of ${refusal.role} only if it is still waiting at half its time to live: members of ${refusal.role} may ${refusal.action} it only from ${formatUtc(refusal.from, now)}. Until then, its approvers decide.`;
    case 'not-approver': {
      const who = approverRoleText(refusal.approverRoles);
      return refusal.noLongerNamed
        ? md`You were among the approvers when this request was made, but the policy in force now does not name you, so your click does not count. Only ${nest(who)} who are still approvers can ${refusal.action} it.`
        : md`Only ${nest(who)} can ${refusal.action} this request: approvers are those named when this request was made who are still approvers under the policy in force now.`;
    }
    case 'duplicate-approval':
      return md`You already approved this at ${formatUtc(refusal.approvedAt, now)}; each approver counts once, and it needs ${refusal.missing} more from someone else.`;
    case 'confirmation-mismatch':
      return refusal.typed
        ? md`What you typed is not the target id; type \`${refusal.target}\` exactly to approve.`
        : md`Type the target id \`${refusal.target}\` to approve.`;
  }
}

/** Why a new request was refused: the open request holding the same lock, the asker's own or not. */
export function openRequestText(existing: ApprovalRequest, now: Date, asker?: string): Markup {
  if (existing.requester === asker)
    return md`You already have an open request for ${existing.operation} on \`${existing.target}\`: ${existing.id}, asked at ${formatUtc(existing.createdAt, now)} (${existing.state}). ${nest(existing.state === 'pending' ? md`Wait for its decision, or cancel it with \`/edge approvals cancel ${existing.id}\`.` : md`Wait until it has finished.`)}`;
  return md`There is already an open request for ${existing.operation} on \`${existing.target}\`: ${existing.id}, asked by ${nest(mention(existing.requester))} at ${formatUtc(existing.createdAt, now)} (${existing.state}). Decide or cancel that one first.`;
}

/** Why an approved request was not run by this click. */
export function notRunText(refusal: BeginRefusal, now: Date): Markup {
  switch (refusal.reason) {
    case 'not-found':
      return noSuchRequestText();
    case 'not-approved':
      return decidedText(refusal.request, now);
    case 'digest-mismatch':
      return md`This request was not run: its stored parameters no longer match what was approved.`;
    case 'not-audited':
      return md`This request was not run because the audit log could not be written; ask again later.`;
  }
}

/** The same sentence as plain notification text: the adapters escape that text themselves. */
const plainText = (sentence: Markup): string =>
  sentence
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/@\u2060/g, '@')
    .replace(/&amp;/g, '&');

/** A refusal as the requester or clicker reads it, with any blocks that say more. */
export function refusalReply(sentence: Markup, more: ReplyBlock[] = []): Reply {
  return {
    ...ephemeral(plainText(sentence), [{ type: 'text', text: md`:no_entry: ${nest(sentence)}` }, ...more]),
    refused: true,
  };
}
