/**
 * Only members of the workspace the app is installed in act: one check, in Bolt's global
 * middleware, of every request Slack sends, before any listener sees it. The home is what
 * auth.test answered at start (bot-token.ts); on Enterprise Grid the whole org counts as home.
 *
 * Whose team a request is from, field by field as Slack documents it:
 * - slash commands: `team_id` (the user's workspace) or `enterprise_id` (their Grid org);
 * - interactions (buttons, forms, pickers, shortcuts): `user.team_id`, which on Grid is the org's E… id;
 *   a message shortcut's user has none, and `team` (where it was used, and its Grid org) stands in;
 * - events: `event.user_team`, else `event.user_profile.team`; a workspace of the home org other
 *   than the home counts only in a conversation shared with no other organisation
 *   (`is_ext_shared_channel: false`), and an event naming no team is placed by that flag alone.
 * Whatever the payload cannot place is refused, as is everything until auth.test has answered.
 */
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { z } from 'zod';
import { newCorrelationId } from '../operations/engine/failure.js';
import { truncate } from '../reply/escape.js';
import { revealHiddenCharacters } from '../reply/hidden-characters.js';
import { md } from '../reply/markup.js';
import { ephemeral, MENU_ACTION, type Reply } from '../reply/model.js';
import type { SecretRegistry } from '../secrets/registry.js';
import type { AuditLog } from '../state/audit.js';
import type { Logger } from '../telemetry/log.js';
import { renderPanel } from './blocks/modal.js';
import { pickedButton } from './blocks/reply.js';
import { responseUrlPoster } from './response-url.js';
import { createSlackSurface } from './surface.js';

/** The workspace the app is installed in, and its Enterprise Grid org when it is in one. */
export interface HomeWorkspace {
  teamId?: string;
  enterpriseId?: string;
}

/** A request from a person, as far as this check needs to know it. */
export interface Requester {
  source: 'command' | 'interaction' | 'event' | 'unreadable';
  /** Slack's name for what arrived: slash_command, block_actions, view_submission, app_mention… */
  kind: string;
  userId: string;
  /** The requester's own workspace (or Grid org), as the payload names it. */
  team?: string;
  /** A slash command's Grid org, or a message shortcut's. */
  enterpriseId?: string;
  /** An event's conversation is shared with another organisation. */
  extShared?: boolean;
  /** Where a refusal can be shown: none for forms, pickers and the Home. */
  place: { channelId?: string; threadTs?: string; responseUrl?: string };
  /** What was asked (the button, form, picker or typed text), for the audit row. */
  asked: Record<string, string>;
  target?: string;
}

/** Why a request is refused: its user is of another organisation, or the payload cannot tell, or nothing can yet. */
type Refusal = 'another organisation' | 'not named' | 'home not known';

export type Placement = { member: true } | { member: false; why: Refusal };

/** Typed text kept in an audit row of a refusal: enough to see what was tried. */
const ASKED_TEXT_MAX = 500;

const optionalString = z.string().optional().catch(undefined);

const CommandBodySchema = z.object({
  command: z.string(),
  user_id: z.string(),
  team_id: optionalString,
  enterprise_id: optionalString,
  channel_id: optionalString,
  response_url: optionalString,
  text: optionalString,
});

const EventBodySchema = z.object({
  type: z.literal('event_callback'),
  is_ext_shared_channel: z.boolean().optional().catch(undefined),
  event: z.object({
    type: z.string(),
    // Some events carry a user object, or none: only a user id string is a person here.
    user: optionalString,
    user_team: optionalString,
    user_profile: z.object({ team: optionalString }).optional().catch(undefined),
    channel: optionalString,
    ts: optionalString,
    thread_ts: optionalString,
    text: optionalString,
  }),
});

const InteractionBodySchema = z.object({
  type: z.string(),
  user: z.object({ id: z.string(), team_id: optionalString }),
  // Where the interaction came from: a message shortcut names its user's workspace only here.
  team: z.object({ id: optionalString, enterprise_id: optionalString }).nullish().catch(undefined),
  channel: z.object({ id: z.string() }).nullish().catch(undefined),
  container: z.object({ channel_id: optionalString, thread_ts: optionalString }).nullish().catch(undefined),
  response_url: optionalString,
  actions: z
    .array(
      z.object({
        action_id: z.string(),
        value: optionalString,
        selected_option: z.object({ value: optionalString }).nullish().catch(undefined),
      }),
    )
    .optional()
    .catch(undefined),
  action_id: optionalString,
  callback_id: optionalString,
  view: z.object({ callback_id: optionalString }).nullish().catch(undefined),
});

/** What was asked, for the audit row: hidden characters written as their codes, so they cannot act there. */
const asked = (entries: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(entries)
      .filter((entry): entry is [string, string] => !!entry[1])
      .map(([key, value]) => [key, revealHiddenCharacters(value)]),
  );

function commandRequester(body: z.infer<typeof CommandBodySchema>): Requester {
  return {
    source: 'command',
    kind: 'slash_command',
    userId: body.user_id,
    team: body.team_id,
    enterpriseId: body.enterprise_id,
    place: { channelId: body.channel_id, responseUrl: body.response_url },
    asked: asked({ command: body.command, text: truncate(body.text ?? '', ASKED_TEXT_MAX) }),
  };
}

/** An event a person caused; undefined for one no person did, which no listener acts on. */
function eventRequester(body: z.infer<typeof EventBodySchema>): Requester | undefined {
  const { event } = body;
  if (!event.user) return undefined;
  const mention = event.type === 'app_mention';
  return {
    source: 'event',
    kind: event.type,
    userId: event.user,
    team: event.user_team ?? event.user_profile?.team,
    extShared: body.is_ext_shared_channel,
    // Only a mention has a conversation to answer in; a Home opened has nothing to show.
    place:
      mention && event.channel ? { channelId: event.channel, threadTs: event.thread_ts ?? event.ts } : {},
    asked: mention ? asked({ text: truncate(event.text ?? '', ASKED_TEXT_MAX) }) : {},
  };
}

/** The action a click or a pick stands for: a menu's option carries the button's action and value. */
function actionOf(
  body: z.infer<typeof InteractionBodySchema>,
): { actionId: string; value?: string } | undefined {
  const action = body.actions?.[0];
  if (!action) return undefined;
  const picked = action.action_id === MENU_ACTION ? action.selected_option?.value : undefined;
  return (picked ? pickedButton(picked) : undefined) ?? { actionId: action.action_id, value: action.value };
}

function interactionRequester(body: z.infer<typeof InteractionBodySchema>): Requester {
  const action = actionOf(body);
  const channelId = body.channel?.id ?? body.container?.channel_id;
  return {
    source: 'interaction',
    kind: body.type,
    userId: body.user.id,
    // Slack's message_action gives the user without team_id; its team is where it was used.
    team: body.user.team_id ?? body.team?.id,
    enterpriseId: body.user.team_id ? undefined : (body.team?.enterprise_id ?? undefined),
    // A picker is answered in its acknowledgement; a click in a form or the Home has nowhere to show one.
    place:
      body.view || body.type === 'block_suggestion'
        ? {}
        : { channelId, threadTs: body.container?.thread_ts, responseUrl: body.response_url },
    asked: asked({
      action: action?.actionId ?? body.action_id,
      form: body.view?.callback_id,
      shortcut: body.callback_id,
    }),
    ...(action?.value ? { target: action.value } : {}),
  };
}

/**
 * Who sent a request, read from its body; undefined for an event no person caused. A body that
 * cannot be read gives a requester nobody can place, so it is refused.
 */
export function readRequester(body: unknown): Requester | undefined {
  const command = CommandBodySchema.safeParse(body);
  if (command.success) return commandRequester(command.data);
  const event = EventBodySchema.safeParse(body);
  if (event.success) return eventRequester(event.data);
  const interaction = InteractionBodySchema.safeParse(body);
  if (interaction.success) return interactionRequester(interaction.data);
  const typed = z.object({ type: z.string() }).safeParse(body);
  return {
    source: 'unreadable',
    kind: typed.success ? typed.data.type : 'unknown',
    userId: '',
    place: {},
    asked: {},
  };
}

/** Whether the requester belongs to the home workspace or its Grid org, as far as the payload shows. */
export function placeRequester(requester: Requester, home: HomeWorkspace | undefined): Placement {
  if (!home?.teamId && !home?.enterpriseId) return { member: false, why: 'home not known' };
  const ours = (id: string | undefined) =>
    id !== undefined && id !== '' && (id === home.teamId || id === home.enterpriseId);
  const outsider = { member: false, why: 'another organisation' } as const;
  const notNamed = { member: false, why: 'not named' } as const;
  switch (requester.source) {
    case 'command':
      if (!requester.team && !requester.enterpriseId) return notNamed;
      return ours(requester.team) || ours(requester.enterpriseId) ? { member: true } : outsider;
    case 'interaction':
      if (!requester.team && !requester.enterpriseId) return notNamed;
      return ours(requester.team) || ours(requester.enterpriseId) ? { member: true } : outsider;
    case 'event':
      if (requester.team !== undefined && ours(requester.team)) return { member: true };
      // Another workspace of the home org, or no team named: only a conversation no other organisation shares.
      if (requester.extShared === false && (requester.team === undefined || home.enterpriseId))
        return { member: true };
      return requester.team === undefined ? notNamed : outsider;
    case 'unreadable':
      return notNamed;
  }
}

const REFUSAL = 'edgeops answers members of this workspace only; ask someone in it to do this for you.';
const NOT_YET =
  'edgeops cannot tell yet which workspace it serves: Slack has not answered it since it started. Try again in a minute.';

function refusalReply(why: Refusal): Reply {
  if (why === 'home not known')
    return ephemeral(NOT_YET, [{ type: 'text', text: md`:hourglass: ${NOT_YET}` }]);
  return ephemeral(REFUSAL, [{ type: 'text', text: md`:no_entry: ${REFUSAL}` }]);
}

function auditDetail(requester: Requester, why: Refusal): string {
  if (why === 'home not known')
    return 'refused: the workspace edgeops is installed in is not known yet (auth.test has not answered)';
  if (why === 'not named')
    return 'refused: the request does not say which workspace its user belongs to, so they may be of another organisation; edgeops answers members of this workspace only';
  return `refused: from another organisation (team ${requester.team ?? 'unknown'}); edgeops answers members of this workspace only`;
}

/**
 * What the acknowledgement says: a form is replaced by the refusal (it has no field the error
 * could sit on in every case, and nothing it holds will run), a picker offers nothing.
 */
function refusalAck(requester: Requester, reply: Reply): unknown {
  if (requester.kind === 'view_submission')
    return { response_action: 'update', view: renderPanel('edgeops', reply, '') };
  if (requester.kind === 'block_suggestion') return { options: [] };
  return undefined;
}

export interface MembersOnlyOptions {
  /** The home, once auth.test has answered. */
  home: () => HomeWorkspace | undefined;
  audit: AuditLog;
  secrets: SecretRegistry;
  logger: Logger;
}

type RefusedArgs = Parameters<Middleware<AnyMiddlewareArgs>>[0];

async function refuse(
  args: RefusedArgs,
  requester: Requester,
  why: Refusal,
  options: MembersOnlyOptions,
): Promise<void> {
  const reply = refusalReply(why);
  // Events are acknowledged by Bolt already; `/edge` by the receiver, so its ack takes no body.
  const { ack } = args as { ack?: (response?: unknown) => Promise<void> };
  await ack?.(refusalAck(requester, reply));
  const logger = options.logger.child({ user: requester.userId, team: requester.team, kind: requester.kind });
  logger.warn('a request from outside this workspace was refused', { why });
  try {
    await options.audit.append({
      userId: requester.userId,
      channelId: requester.place.channelId ?? '',
      operation: requester.kind,
      target: requester.target ?? null,
      params: {
        ...requester.asked,
        ...(requester.team ? { team: requester.team } : {}),
        ...(requester.enterpriseId ? { enterprise: requester.enterpriseId } : {}),
      },
      outcome: 'denied',
      approvalId: null,
      correlationId: newCorrelationId(),
      detail: auditDetail(requester, why),
    });
  } catch (error) {
    logger.error('the audit row of a refused request could not be written', { error });
  }
  const { channelId, threadTs, responseUrl } = requester.place;
  if (!channelId && !responseUrl) return;
  try {
    await createSlackSurface({
      client: args.client,
      respond: responseUrl ? responseUrlPoster(responseUrl) : undefined,
      userId: requester.userId,
      channelId: channelId ?? '',
      ...(threadTs ? { threadTs } : {}),
      logger,
      secrets: options.secrets,
    }).respond(reply);
  } catch (error) {
    logger.warn('the refusal could not be shown', { error });
  }
}

/** The global middleware: a request from outside the home is acknowledged, answered, audited, and goes no further. */
export function membersOnly(options: MembersOnlyOptions): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const requester = readRequester(args.body);
    if (!requester) return args.next();
    const placement = placeRequester(requester, options.home());
    if (placement.member) return args.next();
    await refuse(args, requester, placement.why, options);
  };
}
