/**
 * What a person's Home shows (the Slack Home tab, `/edge home` in the console): the requests
 * waiting for them, their own open requests, their recent actions, their running watches and
 * what they may run. Each list shows its first few and says how many more there are, with a
 * way to see them all, so the view stays within Slack's 100 blocks whatever the backlog. A
 * request waiting for the user points to its card, where everything that will run is shown
 * beside Approve and Reject: the Home has no room for all of it, so it offers no such button.
 */
import type { ApprovalRequest } from '../../approvals/machine.js';
import type { ApprovalService } from '../../approvals/service.js';
import { channelRef, joinMarkup, type Markup, md, mention, nest, trusted } from '../../reply/markup.js';
import { ephemeral, type Reply, type ReplyBlock } from '../../reply/model.js';
import { counted } from '../../reply/words.js';
import type { AuditLog } from '../../state/audit.js';
import type { DigestStore } from '../../state/digests.js';
import type { WatchStore } from '../../watches/store.js';
import {
  APPROVAL_ACTIONS,
  cardPointer,
  cardRef,
  describeRequest,
  timingText,
  waitsFor,
} from '../approvals/card.js';
import type { GatedOperation } from '../approvals/gate.js';
import { requestLines } from '../audit.js';
import { describeDigest, describeWhen, formatLocal } from '../digests/render.js';
import type { HomeViewer } from '../engine/types.js';
import { formatClock, formatUtc } from '../shared/time-args.js';
import { describeWatchFilters } from '../watches/render.js';

/*
 * How much each list shows. The whole Home is also answered as a message (`/edge home`), so it
 * stays within a message's budget (50 blocks, 12,000 characters), well inside a view's 100 blocks.
 */
/** Requests waiting for the user shown, each with a link to its card: one block each. */
export const HOME_WAITING_SHOWN = 6;
/** The user's own open requests shown with Cancel: two blocks each. */
export const HOME_OWN_SHOWN = 5;
/** Recent actions shown, one line each. */
export const HOME_ACTIONS_SHOWN = 10;
/** Running watches shown with their Stop buttons. */
export const HOME_WATCHES_SHOWN = 3;
/** Digests shown with their Stop buttons. */
export const HOME_DIGESTS_SHOWN = 3;
/** Characters of a request's description and reason in a list; its card shows them whole. */
const LINE_PART_MAX = 160;
/** Pending requests read at most: the approval service lists no more in one go. */
const PENDING_READ = 200;

export interface HomeContentOptions {
  approvals: ApprovalService;
  /** Whether the user may approve the request now: the check a click on Approve goes through. */
  mayApprove: (request: ApprovalRequest, userId: string) => Promise<boolean>;
  audit: AuditLog;
  watches: WatchStore;
  digests: DigestStore;
  gated: readonly GatedOperation[];
  now: () => number;
}

/** The Home's own buttons: `home:…`, so that they are allowed wherever the Home is. */
export const HOME_ACTIONS = {
  approvals: 'home:approvals',
  stop: 'home:stop',
  stopDigest: 'home:stop-digest',
} as const;

/** "3 more are not shown here", with a button that lists them all. */
function moreBlocks(hidden: number, atLeast: boolean, what: string): ReplyBlock[] {
  if (hidden <= 0) return [];
  return [
    {
      type: 'context',
      text: md`${atLeast ? 'At least ' : ''}${counted(hidden, 'more request')} ${what} ${hidden === 1 ? 'is' : 'are'} not shown here; \`/edge approvals\` lists them.`,
    },
    {
      type: 'actions',
      buttons: [{ text: `Show all ${what}`, actionId: HOME_ACTIONS.approvals, value: 'approvals' }],
    },
  ];
}

const shortened = (text: string) =>
  text.length > LINE_PART_MAX ? `${text.slice(0, LINE_PART_MAX - 1)}…` : text;

/** One request in a list, its description and reason shortened: the card and `/edge approvals` show them whole. */
function requestLine(request: ApprovalRequest, op: GatedOperation | undefined, now: Date, mine: boolean) {
  const who = mine ? trusted('') : md` · asked by ${nest(mention(request.requester))}`;
  const reason = request.reason ? md`\nReason: ${shortened(request.reason)}` : trusted('');
  return md`*${shortened(describeRequest(request, op))}*${nest(who)} · ${request.approvals.length} of ${request.required} approvals\n${timingText(request, now)} · ${request.id}${nest(reason)}`;
}

/** The viewer's own digests, with Stop, wherever they post. */
async function ownDigests(digests: DigestStore, userId: string): Promise<ReplyBlock[]> {
  const mine = (await digests.running()).filter((digest) => digest.owner === userId);
  const blocks: ReplyBlock[] = [{ type: 'header', text: `Your digests (${mine.length})` }];
  if (mine.length === 0) blocks.push({ type: 'text', text: trusted('_You have no digest set._') });
  for (const digest of mine.slice(0, HOME_DIGESTS_SHOWN))
    blocks.push(
      {
        type: 'text',
        text: md`${describeDigest(digest)}, ${describeWhen(digest)}, in ${nest(channelRef(digest.channelId))} · next ${formatLocal(digest.nextRunAt, digest.timeZone)}`,
      },
      {
        type: 'actions',
        buttons: [
          {
            text: 'Stop',
            actionId: `${HOME_ACTIONS.stopDigest}#${digest.id}`,
            value: digest.id,
            style: 'danger',
          },
        ],
      },
    );
  if (mine.length > HOME_DIGESTS_SHOWN)
    blocks.push({
      type: 'context',
      text: md`${counted(mine.length - HOME_DIGESTS_SHOWN, 'more digest')} not shown here; \`/edge digests\` in its channel lists it.`,
    });
  return blocks;
}

export function createHomeContent(options: HomeContentOptions) {
  const byId = new Map<string, GatedOperation>(options.gated.map((op) => [op.id, op]));

  async function requestSections(viewer: HomeViewer, now: Date): Promise<ReplyBlock[]> {
    const { userId } = viewer;
    const pending = await options.approvals.list({ limit: PENDING_READ });
    // The service lists at most 200: beyond that, the counts are "at least".
    const atLeast =
      pending.length >= PENDING_READ && (await options.approvals.countWaiting()) > pending.length;
    const plus = atLeast ? '+' : '';
    const waiting: ApprovalRequest[] = [];
    for (const request of pending)
      if (await waitsFor(request, userId, options.mayApprove)) waiting.push(request);
    const mine = pending.filter((request) => request.requester === userId);

    const blocks: ReplyBlock[] = [{ type: 'header', text: `Waiting for you (${waiting.length}${plus})` }];
    if (waiting.length === 0)
      blocks.push({ type: 'text', text: trusted('_Nothing is waiting for your approval._') });
    const shown = waiting.slice(0, HOME_WAITING_SHOWN);
    const links = await Promise.all(
      shown.map((request) => {
        const ref = cardRef(request);
        // Without a link the pointer names the card's channel and the command instead.
        return ref ? viewer.permalink(ref).catch(() => undefined) : undefined;
      }),
    );
    for (const [index, request] of shown.entries()) {
      const line = requestLine(request, byId.get(request.operation), now, false);
      const pointer = cardPointer(request, links[index]);
      blocks.push({ type: 'text', text: md`${nest(line)}\n:point_right: ${nest(pointer)}` });
    }
    blocks.push(...moreBlocks(waiting.length - HOME_WAITING_SHOWN, atLeast, 'waiting for you'));

    blocks.push({ type: 'header', text: `Your open requests (${mine.length}${plus})` });
    if (mine.length === 0) blocks.push({ type: 'text', text: trusted('_You have no request waiting._') });
    for (const request of mine.slice(0, HOME_OWN_SHOWN)) {
      blocks.push(
        { type: 'text', text: requestLine(request, byId.get(request.operation), now, true) },
        {
          type: 'actions',
          buttons: [
            {
              text: 'Cancel request',
              actionId: `${APPROVAL_ACTIONS.cancel}#${request.id}`,
              value: request.id,
              style: 'danger',
            },
          ],
        },
      );
    }
    blocks.push(...moreBlocks(mine.length - HOME_OWN_SHOWN, atLeast, 'of yours'));
    return blocks;
  }

  async function recentActions(userId: string): Promise<ReplyBlock[]> {
    // One line per request, as in /edge audit; extra rows leave room for a request's several.
    const requests = requestLines(
      await options.audit.list({ limit: HOME_ACTIONS_SHOWN * 4, filter: { userId } }),
    ).slice(0, HOME_ACTIONS_SHOWN);
    const lines = requests.map(
      ({ row, target, outcome }) =>
        md`${formatUtc(Date.parse(row.time))} · \`${row.operation}\`${target ? ` · ${target.slice(0, 80)}` : ''} · *${outcome}*`,
    );
    return [
      { type: 'header', text: 'Your recent actions' },
      {
        type: 'text',
        text: lines.length > 0 ? joinMarkup(lines) : trusted('_Nothing of yours in the audit log yet._'),
      },
      {
        type: 'context',
        text: md`The latest ${HOME_ACTIONS_SHOWN} at most; \`/edge audit --user\` with your member id shows them all.`,
      },
    ];
  }

  async function runningWatches(userId: string, nowMs: number): Promise<ReplyBlock[]> {
    const mine = (await options.watches.running()).filter((watch) => watch.owner === userId);
    const blocks: ReplyBlock[] = [{ type: 'header', text: `Your running watches (${mine.length})` }];
    if (mine.length === 0) blocks.push({ type: 'text', text: trusted('_You have no watch running._') });
    for (const watch of mine.slice(0, HOME_WATCHES_SHOWN))
      blocks.push(
        {
          type: 'text',
          text: md`Pull zone ${watch.pullZoneId}, ${describeWatchFilters(watch)}, in ${nest(channelRef(watch.channelId))} · ends ${formatClock(watch.endsAt, nowMs)}`,
        },
        {
          type: 'actions',
          buttons: [
            { text: 'Stop', actionId: `${HOME_ACTIONS.stop}#${watch.id}`, value: watch.id, style: 'danger' },
          ],
        },
      );
    if (mine.length > HOME_WATCHES_SHOWN)
      blocks.push({
        type: 'context',
        text: md`${counted(mine.length - HOME_WATCHES_SHOWN, 'more watch', 'more watches')} not shown here; \`/edge watches\` lists them.`,
      });
    return blocks;
  }

  async function mayRun(viewer: HomeViewer): Promise<ReplyBlock[]> {
    const [allowed, held] = await Promise.all([viewer.access.allowed(), viewer.access.held()]);
    const listed = viewer.access
      .operations()
      .filter((op) => allowed.has(op.id) && !['help', 'home'].includes(op.id));
    // The Home tab is in no channel: what it lists is what the policy allows in every channel.
    const where: Markup = viewer.channelId
      ? md`In ${nest(channelRef(viewer.channelId))}`
      : md`In every channel`;
    const names = [
      ...new Set(
        listed.map(
          (op) => `\`${op.words.join(' ')}\`${held.has(op.id) && !op.neverHeld ? ' (once approved)' : ''}`,
        ),
      ),
    ];
    return [
      { type: 'header', text: 'What you may run' },
      // whoami and context are always allowed, so the list is never empty.
      { type: 'text', text: md`${nest(where)}: ${nest(trusted(names.join(', ')))}` },
      {
        type: 'context',
        text: trusted(
          'What your grants allow only in some channels is not listed; `/edge whoami` in a channel says what you may run there, and `/edge` opens the menu.',
        ),
      },
    ];
  }

  return {
    /** The viewer's Home, as it stands now. */
    async show(viewer: HomeViewer): Promise<Reply> {
      const nowMs = options.now();
      const now = new Date(nowMs);
      const blocks: ReplyBlock[] = [
        ...(await requestSections(viewer, now)),
        ...(await recentActions(viewer.userId)),
        ...(await runningWatches(viewer.userId, nowMs)),
        ...(await ownDigests(options.digests, viewer.userId)),
        ...(await mayRun(viewer)),
        { type: 'context', text: md`As of ${formatClock(nowMs, nowMs)}.` },
      ];
      return ephemeral('Your edgeops Home', blocks);
    },
  };
}

export type HomeContent = ReturnType<typeof createHomeContent>;
