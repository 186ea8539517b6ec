/**
 * What an approver reads (PRODUCT §5): a request's card, and its entry in `/edge approvals`.
 *
 * The rule, for every gated operation: a parameter is shown in full or not at all. A value too
 * long for the card (a long SQL statement) goes, whole, into a text file posted with the card,
 * and the card says so in bold, naming the parameter, its length and the file. Nothing is ever
 * cut. The card also shows the first 12 hex digits of the parameters' SHA-256 digest, which the
 * execution's audit row carries in full.
 *
 * Everywhere an Approve button is offered (the card, `/edge approvals`, `/edge approvals ID`),
 * what will run is drawn by `whatWillRun`, so none of them shows less than the card. Places that
 * cannot show all of it (the Home, a reminder) offer no button: they point to the card.
 */

import { type ApprovalRequest, escalatesAt, isEscalated } from '../../approvals/machine.js';
import { MESSAGE_BUDGET } from '../../reply/budget.js';
import { codeBlock } from '../../reply/escape.js';
import {
  channelRef,
  joinMarkup,
  linkTo,
  type Markup,
  md,
  mention,
  nest,
  trusted,
} from '../../reply/markup.js';
import {
  ephemeral,
  inChannel,
  type MessageRef,
  type Reply,
  type ReplyBlock,
  type ReplyButton,
  type ReplyFile,
} from '../../reply/model.js';
import { canonicalJson } from '../../state/canonical-json.js';
import { formatAgo, formatClock, formatIsoTimesIn, formatSpan } from '../shared/time-args.js';
import type { GatedOperation, ParameterView } from './gate.js';

/** Escaped characters one card field may hold: Slack allows 2,000 per field, its label included. */
export const CARD_FIELD_MAX = 1_500;
/** Characters of one code block on a card, fences included: Slack allows 3,000 per section. */
export const CARD_CODE_MAX = 2_800;
/** What the parameters shown on one card may take together: a message holds about 12,000. */
export const CARD_PARAMETERS_BUDGET = 6_000;
/** The same limits for one request in `/edge approvals`, which lists up to 50. */
export const LIST_VALUE_MAX = 300;
export const LIST_PARAMETERS_BUDGET = 1_200;
/** Hex digits of the parameter digest a card shows. */
export const DIGEST_SHOWN = 12;

export const APPROVAL_ACTIONS = {
  approve: 'approvals:approve',
  reject: 'approvals:reject',
  cancel: 'approvals:cancel',
};

/** The bold line that replaces current values nobody could read. */
export const BEFORE_UNKNOWN = 'current settings unknown; these values replace them';

const STATE_LABEL: Record<string, string> = {
  pending: ':hourglass_flowing_sand: Waiting for approval',
  approved: ':white_check_mark: Approved, about to run',
  executing: ':gear: Running',
  succeeded: ':white_check_mark: Done',
  failed: ':x: Failed',
  rejected: ':no_entry: Rejected',
  expired: ':alarm_clock: Expired',
  cancelled: ':heavy_multiplication_x: Cancelled',
  unknown:
    ':warning: Outcome unknown: the bot stopped while this was running. Check the platform before asking again.',
};

/** `unknown` for a request approved but never started: it is certain that nothing ran. */
const NOT_STARTED_LABEL =
  ':warning: Not run: the bot stopped after the approval, before the change started. It will not run now; ask again if it is still needed.';

const count = (n: number) => n.toLocaleString('en-US');

/** One approver id as Slack links it: a user, a user group, or "*" for anyone. */
function approverMarkup(id: string): Markup {
  if (id === '*') return trusted('anyone here');
  if (id.startsWith('S')) return trusted(`<!subteam^${id.replace(/[^A-Z0-9]/gi, '')}>`);
  return mention(id);
}

/** "a, b or c". */
function orList(parts: Markup[]): Markup {
  if (parts.length <= 1) return joinMarkup(parts, '');
  return trusted(`${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`);
}

/**
 * Whether a pending request waits for this user: someone who has not acted and whose Approve
 * would be accepted now (an approver the policy in force still names, or a member of the
 * escalation role once it applies).
 */
export async function waitsFor(
  request: ApprovalRequest,
  userId: string,
  mayApprove: (request: ApprovalRequest, userId: string) => Promise<boolean>,
): Promise<boolean> {
  if (request.requester === userId) return false;
  if (request.approvals.some((vote) => vote.userId === userId)) return false;
  return mayApprove(request, userId);
}

/**
 * Who may still act on a pending request, as mentions: its approvers but the requester and
 * those who already approved, their roles, and how many of them are needed, e.g.
 * "<@U0LEAD> or <@U0LEAD2> (leads), 1 of them". Posting it notifies them; an update does not.
 */
export function approversWhoMayAct(request: ApprovalRequest): Markup {
  const acted = new Set([request.requester, ...request.approvals.map((vote) => vote.userId)]);
  const ids = request.approverIds.includes('*')
    ? ['*']
    : [...new Set(request.approverIds)].filter((id) => !acted.has(id));
  const roles = request.approverRoles.length > 0 ? ` (${request.approverRoles.join(', ')})` : '';
  const missing = Math.max(request.required - request.approvals.length, 1);
  if (ids.length === 0) return md`nobody left who may approve${roles}`;
  return md`${nest(orList(ids.map(approverMarkup)))}${roles}, ${missing} of them`;
}

/** The escalation role's members who may act, as mentions with the role: "<@U0CAROL> (oncall)". */
export function escalationMembers(request: ApprovalRequest): Markup | undefined {
  if (!request.escalation) return undefined;
  const acted = new Set([request.requester, ...request.approvals.map((vote) => vote.userId)]);
  const ids = request.escalation.ids.includes('*')
    ? ['*']
    : [...new Set(request.escalation.ids)].filter((id) => !acted.has(id));
  if (ids.length === 0) return undefined;
  return md`${nest(orList(ids.map(approverMarkup)))} (${request.escalation.role})`;
}

/**
 * The card's line about escalation while the request waits: who may approve too from half the
 * time to live, or since then. Words only; the machine decides who may approve.
 */
export function escalationLine(request: ApprovalRequest, now: Date): Markup | undefined {
  const members = escalationMembers(request);
  if (!members || request.state !== 'pending') return undefined;
  const at = formatClock(escalatesAt(request).getTime(), now.getTime());
  return isEscalated(request, now)
    ? md`:arrow_up: *Escalated at ${at}:* ${nest(members)} may approve too.`
    : md`:arrow_up: If it is still waiting at ${at}, it escalates to ${request.escalation?.role ?? ''}, whose members may approve from then on.`;
}

/** "asked 2 min ago · expires in 28 min, 14:32 UTC" while pending; when it was asked once closed. */
export function timingText(request: ApprovalRequest, now: Date): string {
  const nowMs = now.getTime();
  const asked = request.createdAt.getTime();
  const expires = request.expiresAt.getTime();
  if (request.state !== 'pending') {
    const closed = request.state === 'expired' ? ` · expired ${formatClock(expires, nowMs)}` : '';
    return `asked ${formatClock(asked, nowMs)}${closed}`;
  }
  const left = expires > nowMs ? `expires in ${formatSpan(expires - nowMs)}` : 'expired';
  return `asked ${formatAgo(asked, nowMs)} · ${left}, ${formatClock(expires, nowMs)}`;
}

/** What a request does, in words: the operation's own, or its id and target for one not registered. */
export const describeRequest = (request: ApprovalRequest, op: GatedOperation | undefined): string =>
  op?.describe(request.params) ?? `${request.operation} on ${request.target}`;

/** What a request that ended in success did, in the past tense. */
export const doneText = (request: ApprovalRequest, op: GatedOperation | undefined): string =>
  op?.done?.(request.params) ?? `Done: ${describeRequest(request, op)}`;

/**
 * The card's header (plain text, so no mention): what will happen while the request is open,
 * the outcome once it ended.
 */
function headerText(request: ApprovalRequest, op: GatedOperation | undefined, what: string): string {
  switch (request.state) {
    case 'succeeded':
      return `✓ ${doneText(request, op)}`;
    case 'failed':
      return '✗ Failed';
    case 'rejected':
      return '⛔ Rejected';
    case 'expired':
      return '⏰ Expired unanswered';
    case 'cancelled':
      return '✖ Cancelled';
    case 'unknown':
      return request.startedAt === null ? '⚠ Not run' : '⚠ Outcome unknown';
    default:
      return what;
  }
}

/** The line under an outcome header that says who and why, with mentions; none while open. */
function outcomeLine(request: ApprovalRequest, what: string, now: Date): Markup | undefined {
  const by = request.decidedBy ? nest(mention(request.decidedBy)) : nest(trusted('someone'));
  switch (request.state) {
    case 'succeeded':
      return md`*${what}*: done.`;
    case 'failed':
      return request.result ? md`*${what}* failed: ${request.result.detail}` : md`*${what}* failed.`;
    case 'rejected':
      return request.decisionReason
        ? md`Rejected by ${by}: ${request.decisionReason}\n*${what}*`
        : md`Rejected by ${by}, no reason given.\n*${what}*`;
    case 'expired':
      return md`Nobody approved *${what}* before it expired at ${formatClock(request.expiresAt.getTime(), now.getTime())}.`;
    case 'cancelled':
      return md`Cancelled by ${by}: *${what}*`;
    default:
      return undefined;
  }
}

/** What a request shows: where it is asked for, why, and every parameter of the operation. */
export function parameterViews(request: ApprovalRequest, op: GatedOperation | undefined): ParameterView[] {
  const params = op
    ? op.fields(request.params)
    : [{ label: 'Parameters', value: canonicalJson(request.params), code: true }];
  return [
    { label: 'Target', value: request.target },
    { label: 'Reason', value: request.reason || '(none given)' },
    ...params,
  ];
}

const changed = (view: ParameterView) =>
  view.before !== undefined && view.before !== null && view.before !== view.value;

/** A view as field markup: the value, or before → after with what changes marked. */
function fieldMarkup(view: ParameterView): Markup {
  if (view.before === undefined || view.before === null) return md`${view.value}`;
  return view.before === view.value ? md`${view.value} (unchanged)` : md`${view.before} → ${view.value}`;
}

interface Layout {
  fields: { label: string; value: Markup }[];
  /** Preformatted values that fit: a label and a code block each. */
  code: { label: string; text: string }[];
  /** Values too long to show here: they go to the file, whole. */
  inFile: ParameterView[];
  beforeUnknown: boolean;
}

/** Places each view on the card in full, or in the file; never shortened. */
function layOut(views: ParameterView[], limits: { value: number; code: number; budget: number }): Layout {
  const layout: Layout = { fields: [], code: [], inFile: [], beforeUnknown: false };
  let budget = limits.budget;
  for (const view of views) {
    if (view.before === null) layout.beforeUnknown = true;
    if (view.code) {
      const size = codeBlock(view.value, Number.MAX_SAFE_INTEGER).length;
      if (size <= limits.code && size <= budget) {
        layout.code.push({ label: view.label, text: view.value });
        budget -= size;
      } else layout.inFile.push(view);
      continue;
    }
    const value = fieldMarkup(view);
    if (value.length <= limits.value && value.length <= budget) {
      layout.fields.push({ label: changed(view) ? `${view.label} (changed)` : view.label, value });
      budget -= value.length;
    } else layout.inFile.push(view);
  }
  return layout;
}

/** The bold sentence that sends the approver to the file for what did not fit. */
function fileNotice(inFile: ParameterView[], filename: string, where: string): Markup {
  const list = inFile.map((view) => `${view.label} (${count(view.value.length)} characters)`).join(', ');
  return md`:page_facing_up: *Too long to show here: ${list}. ${inFile.length > 1 ? 'They are' : 'It is'} in full in the file ${filename} ${where}; read ${inFile.length > 1 ? 'them' : 'it'} before you decide.*`;
}

/** Every parameter in full, as plain text: the file that goes with a card. */
export function parametersText(request: ApprovalRequest, what: string, views: ParameterView[]): string {
  const lines = [
    `Approval request ${request.id}`,
    `What: ${what}`,
    `Operation: ${request.operation}`,
    `Requested by: ${request.requester}`,
    `Parameters sha256: ${request.paramsDigest}`,
    '',
  ];
  for (const view of views) {
    lines.push(`${view.label}:`);
    if (view.before !== undefined)
      lines.push(`  now:   ${view.before ?? '(unknown)'}`, `  after: ${view.value}`, '');
    else lines.push(view.value, '');
  }
  lines.push(
    'The parameters as stored and run (canonical JSON; its sha256 is above):',
    canonicalJson(request.params),
    '',
  );
  return lines.join('\n');
}

export const cardFilename = (request: Pick<ApprovalRequest, 'id'>) => `approval-${request.id}.txt`;

export interface ApprovalCard {
  card: Reply;
  /** The parameters that did not fit, whole: posted with the card, before it. */
  file?: ReplyFile;
}

/**
 * Approve and Reject for one request. `unique` suffixes the action ids with the request id, for
 * a message that lists several requests (Slack refuses repeated action ids in one message).
 */
export function decisionButtons(requestId: string, unique = false): ReplyButton[] {
  const suffix = unique ? `#${requestId}` : '';
  return [
    { text: 'Approve', actionId: `${APPROVAL_ACTIONS.approve}${suffix}`, value: requestId, style: 'primary' },
    { text: 'Reject', actionId: `${APPROVAL_ACTIONS.reject}${suffix}`, value: requestId, style: 'danger' },
  ];
}

/** How much of a message one request's parameters may take where they are shown. */
interface Room {
  value: number;
  code: number;
  budget: number;
}

const CARD_ROOM: Room = { value: CARD_FIELD_MAX, code: CARD_CODE_MAX, budget: CARD_PARAMETERS_BUDGET };
const LIST_ROOM: Room = { value: LIST_VALUE_MAX, code: LIST_VALUE_MAX, budget: LIST_PARAMETERS_BUDGET };

/** What will run, as every surface with an Approve button shows it. */
export interface WhatWillRun {
  what: string;
  /** Bold lines to read before the values: current settings unknown, values in the file. */
  notices: Markup[];
  /** Target, reason and each parameter that fits, before → after where a setting changes. */
  fields: { label: string; value: Markup }[];
  /** Preformatted values that fit (a SQL statement). */
  code: { label: string; text: string }[];
  /** The operation's own warning (No WHERE, the bot's own token), as the card shows it. */
  warning?: Markup;
  /** The parameters' digest, that the execution's audit row carries in full. */
  digest: Markup;
  /** Every parameter in full, for the file, when some did not fit. */
  fileText?: string;
}

/**
 * The parts of a request an approver must read before deciding: each parameter in full or the
 * bold pointer to the file `filename` (posted `where`), the warning and the digest.
 */
function whatWillRun(
  request: ApprovalRequest,
  op: GatedOperation | undefined,
  room: Room,
  file: { filename: string; where: string },
  digestDigits = DIGEST_SHOWN,
): WhatWillRun {
  const what = describeRequest(request, op);
  const views = parameterViews(request, op);
  const layout = layOut(views, room);
  const notices: Markup[] = [];
  if (layout.beforeUnknown) notices.push(md`:warning: *${BEFORE_UNKNOWN}.*`);
  if (layout.inFile.length > 0) notices.push(fileNotice(layout.inFile, file.filename, file.where));
  const warning = op?.warning?.(request.params);
  return {
    what,
    notices,
    fields: layout.fields,
    code: layout.code,
    ...(warning ? { warning: md`:warning: ${warning}` } : {}),
    digest: md`parameters sha256 \`${request.paramsDigest.slice(0, digestDigits)}\``,
    ...(layout.inFile.length > 0 ? { fileText: parametersText(request, what, views) } : {}),
  };
}

/** The file that holds every parameter of a card or a one-request view in full. */
function parametersFile(request: ApprovalRequest, content: string): ReplyFile {
  return {
    filename: cardFilename(request),
    title: `Approval request ${request.id}: every parameter in full`,
    content,
    about: 'every parameter of the request, in full',
  };
}

/** Where a request's card is, for the places that point to it instead of offering its buttons. */
export const cardRef = (request: ApprovalRequest): MessageRef | undefined =>
  request.card ? { channelId: request.card.channel, ts: request.card.ts } : undefined;

/**
 * Where to read a request whole and decide it, for places that cannot show all of it (the Home,
 * a reminder): a link to its card when the transport gave one, else where the card is and the
 * command that shows the request whole with its buttons.
 */
export function cardPointer(request: ApprovalRequest, link: string | undefined): Markup {
  const linked = link ? linkTo(link, 'Open its card') : undefined;
  if (linked) return md`${nest(linked)} to read everything that will run, and approve or reject it there.`;
  const command = md`\`/edge approvals ${request.id}\``;
  if (request.card)
    return md`Its card is in ${nest(channelRef(request.card.channel))}; ${nest(command)} shows everything that will run, with Approve and Reject.`;
  return md`${nest(command)} shows everything that will run, with Approve and Reject.`;
}

/** The card of a request as it stands now. */
export function approvalCard(
  request: ApprovalRequest,
  op: GatedOperation | undefined,
  now: Date,
): ApprovalCard {
  const shown = whatWillRun(request, op, CARD_ROOM, {
    filename: cardFilename(request),
    where: 'posted with this card',
  });
  const { what } = shown;
  const approvers = request.approvals.map((vote) => mention(vote.userId)).join(', ');
  const [target, reason, ...rest] = shown.fields;
  const fields = [
    ...(target ? [target] : []),
    { label: 'Requested by', value: mention(request.requester) },
    ...(reason ? [reason] : []),
    {
      label: 'Approvals',
      value: md`${request.approvals.length} of ${request.required}${request.approverRoles.length > 0 ? ` from ${request.approverRoles.join(', ')}` : ''}${nest(trusted(approvers ? ` (${approvers})` : ''))}`,
    },
    { label: 'When', value: md`${timingText(request, now)}` },
    ...rest,
  ];
  const header = headerText(request, op, what);
  const blocks: ReplyBlock[] = [{ type: 'header', text: header }];
  // Under an outcome header, who ended it and why; the change in bold wherever the header does not say it whole.
  const outcome = outcomeLine(request, what, now);
  if (outcome) blocks.push({ type: 'text', text: outcome });
  else if (header !== what || what.length > MESSAGE_BUDGET.headerChars)
    blocks.push({ type: 'text', text: md`*${what}*` });
  if (request.state === 'pending')
    blocks.push({
      type: 'text',
      text: md`:busts_in_silhouette: *Who may approve:* ${nest(approversWhoMayAct(request))}`,
    });
  const escalation = escalationLine(request, now);
  if (escalation) blocks.push({ type: 'context', text: escalation });
  for (const notice of shown.notices) blocks.push({ type: 'text', text: notice });
  blocks.push({ type: 'fields', fields });
  for (const code of shown.code) {
    blocks.push({ type: 'text', text: md`*${code.label}*` }, { type: 'code', text: code.text });
  }
  if (shown.warning) blocks.push({ type: 'text', text: shown.warning });
  const notStarted = request.state === 'unknown' && request.startedAt === null;
  let status = notStarted ? NOT_STARTED_LABEL : (STATE_LABEL[request.state] ?? request.state);
  if (request.decidedBy && request.state !== 'pending' && request.decidedAt)
    status += ` · by ${mention(request.decidedBy)} at ${request.decidedAt.toISOString().slice(11, 16)} UTC`;
  if (request.result && !notStarted) status += ` · ${md`${request.result.detail}`}`;
  blocks.push({ type: 'context', text: trusted(status) });
  if (request.state === 'pending') {
    blocks.push({ type: 'actions', buttons: decisionButtons(request.id) });
  }
  blocks.push({
    type: 'context',
    text: md`${request.operation} · request ${request.id} · ${nest(shown.digest)} · approvers are checked again at each click against the policy in force`,
  });
  const card = inChannel(`Approval ${request.state}: ${what}`, blocks);
  if (shown.fileText === undefined) return { card };
  return { card, file: parametersFile(request, shown.fileText) };
}

/** The message that carries a card's file: posted just before the card. */
export function cardFileMessage(request: ApprovalRequest, file: ReplyFile): Reply {
  return {
    ...inChannel(`Every parameter of approval request ${request.id}, in full`, [
      {
        type: 'text',
        text: md`:page_facing_up: Every parameter of approval request ${request.id}, in full, for the card that follows (parameters sha256 \`${request.paramsDigest.slice(0, DIGEST_SHOWN)}\`).`,
      },
    ]),
    files: [file],
  };
}

export interface ListedRequest {
  blocks: ReplyBlock[];
  /** The section of the list's file for values too long to show in the list. */
  fileSection?: string;
}

/** One request in `/edge approvals`: all the card shows of what will run, beside its buttons. */
export function listedRequest(
  request: ApprovalRequest,
  op: GatedOperation | undefined,
  filename: string,
  buttons: ReplyButton[],
  now: Date,
): ListedRequest {
  const shown = whatWillRun(request, op, LIST_ROOM, { filename, where: 'sent with this list' });
  const lines: Markup[] = [
    md`*${shown.what}* · ${request.state} · ${request.approvals.length} of ${request.required} approvals · asked by ${nest(mention(request.requester))} · ${request.id}`,
    md`When: ${timingText(request, now)}`,
    ...shown.notices,
  ];
  for (const field of shown.fields) lines.push(md`${field.label}: ${nest(field.value)}`);
  for (const code of shown.code) lines.push(md`${code.label}:`, trusted(codeBlock(code.text)));
  if (shown.warning) lines.push(shown.warning);
  lines.push(md`${request.operation} · ${nest(shown.digest)}`);
  const blocks: ReplyBlock[] = [{ type: 'text', text: joinMarkup(lines) }];
  if (buttons.length > 0) blocks.push({ type: 'actions', buttons });
  return { blocks, fileSection: shown.fileText };
}

/** One audit row of a request's timeline, as `/edge approvals ID` lists it. */
export interface TimelineEntry {
  time: string;
  userId: string;
  outcome: string;
  detail: string | null;
}

/** Rows of the timeline shown; a request has a handful, so more means `/edge audit` is the place. */
export const TIMELINE_SHOWN = 40;
/** Characters of one row's detail shown in the timeline; the audit log keeps it whole. */
export const TIMELINE_DETAIL_MAX = 300;

/**
 * `/edge approvals ID`: one request whole. Every parameter under the card's rule (in full, or
 * whole in the attached file, and said so), the full parameter digest, and the timeline of its
 * audit rows, oldest first.
 */
export function requestDetail(
  request: ApprovalRequest,
  op: GatedOperation | undefined,
  timeline: TimelineEntry[],
  buttons: ReplyButton[],
  now: Date,
): Reply {
  const shown = whatWillRun(
    request,
    op,
    CARD_ROOM,
    { filename: cardFilename(request), where: 'attached to this answer' },
    request.paramsDigest.length,
  );
  const { what } = shown;
  const blocks: ReplyBlock[] = [
    { type: 'header', text: `Request ${request.id}` },
    {
      type: 'text',
      text: md`*${what}* · ${STATE_LABEL[request.state] ?? request.state} · asked by ${nest(mention(request.requester))} · ${timingText(request, now)}`,
    },
  ];
  if (request.state === 'pending')
    blocks.push({
      type: 'text',
      text: md`:busts_in_silhouette: *Who may approve:* ${nest(approversWhoMayAct(request))}`,
    });
  for (const notice of shown.notices) blocks.push({ type: 'text', text: notice });
  blocks.push({
    type: 'fields',
    fields: [
      ...shown.fields,
      { label: 'Approvals', value: md`${request.approvals.length} of ${request.required}` },
    ],
  });
  for (const code of shown.code)
    blocks.push({ type: 'text', text: md`*${code.label}*` }, { type: 'code', text: code.text });
  if (shown.warning) blocks.push({ type: 'text', text: shown.warning });
  blocks.push({ type: 'context', text: md`${request.operation} · ${nest(shown.digest)}` });
  const rows = timeline.slice(-TIMELINE_SHOWN);
  const lines = rows.map((row) => {
    // Audit details keep ISO 8601 instants for machines; people read them as every message writes them.
    const said = row.detail === null ? null : formatIsoTimesIn(row.detail);
    const detail =
      said && said.length > TIMELINE_DETAIL_MAX
        ? `${said.slice(0, TIMELINE_DETAIL_MAX)}… (whole in /edge audit)`
        : said;
    return md`• ${formatClock(Date.parse(row.time), now.getTime())} · *${row.outcome}* · ${nest(mention(row.userId))}${detail ? ` · ${detail}` : ''}`;
  });
  // The caller reads one row more than is shown, so a longer timeline is known to be cut, not how long it is.
  const cut = timeline.length > rows.length;
  blocks.push({ type: 'text', text: md`*Timeline* (from the audit log)` });
  blocks.push({
    type: 'text',
    text:
      lines.length > 0
        ? joinMarkup(
            cut
              ? [
                  md`_The latest ${TIMELINE_SHOWN} rows; the earlier ones: /edge audit --request ${request.id}_`,
                  ...lines,
                ]
              : lines,
            '\n',
          )
        : md`_No audit rows for this request._`,
  });
  if (buttons.length > 0) blocks.push({ type: 'actions', buttons });
  const detail = ephemeral(`Approval request ${request.id}: ${what}`, blocks);
  if (shown.fileText === undefined) return detail;
  return { ...detail, files: [parametersFile(request, shown.fileText)] };
}
