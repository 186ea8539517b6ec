/**
 * The bodies Slack sends to the app, built from a few facts. Each builder returns the form body
 * to sign and POST to /slack/events, and the same payload as an object for a Socket Mode envelope
 * (`socketEnvelope`). Shapes follow @slack/bolt's own types, so the compiler checks them.
 */
import { randomUUID } from 'node:crypto';
import type {
  BlockAction,
  BlockElementAction,
  BlockSuggestion,
  ButtonAction,
  MessageShortcut,
  SlashCommand,
  types,
  ViewClosedAction,
  ViewOutput,
  ViewResponseUrl,
  ViewStateValue,
  ViewSubmitAction,
} from '@slack/bolt';
import { DEFAULT_INSTANT } from './clock.js';
import { FORM_CONTENT_TYPE } from './signer.js';

type AppMentionEvent = types.AppMentionEvent;
type AppHomeOpenedEvent = types.AppHomeOpenedEvent;

export const DEFAULT_TEAM_ID = 'T0EDGE';
export const DEFAULT_TEAM_DOMAIN = 'edgeops-test';
export const DEFAULT_USER_ID = 'U0YOU';
export const DEFAULT_CHANNEL_ID = 'C0OPS';
export const DEFAULT_APP_ID = 'A0EDGEOPS';
export const DEFAULT_BOT_ID = 'B0EDGEOPS';
export const DEFAULT_BOT_USER_ID = 'U0EDGEBOT';
/** The deprecated verification token Slack still includes in every body. */
export const VERIFICATION_TOKEN = 'fake-verification-token';
/** Refuses connections at once, so an app that answers a response_url nobody set fails fast. */
export const UNSET_RESPONSE_URL = 'http://127.0.0.1:9/response-url-not-set';

export type SocketEnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

/** Events API deliveries are JSON, not forms. */
export const JSON_CONTENT_TYPE = 'application/json';

export interface SlackRequest<P> {
  /** The raw body, exactly as Slack sends it; sign and POST this. */
  body: string;
  contentType: typeof FORM_CONTENT_TYPE | typeof JSON_CONTENT_TYPE;
  /** The same payload as an object, for Socket Mode. */
  payload: P;
  socketType: SocketEnvelopeType;
  /** Slack accepts a response in the Socket Mode ack for commands and view submissions only. */
  acceptsResponsePayload: boolean;
}

let sequence = 0;
const next = () => {
  sequence += 1;
  return sequence;
};

/** A trigger_id shaped like Slack's (`digits.digits.hex`). */
export function newTriggerId(): string {
  return `${1_000_000 + next()}.${4_000_000_000 + next()}.${randomUUID().replaceAll('-', '')}`;
}

/** A message or action timestamp shaped like Slack's (`seconds.micros`). */
export function newTs(nowMs: number = Date.parse(DEFAULT_INSTANT)): string {
  return `${Math.floor(nowMs / 1000)}.${String(next() % 1_000_000).padStart(6, '0')}`;
}

export interface SlashCommandInput {
  text?: string;
  command?: string;
  userId?: string;
  userName?: string;
  channelId?: string;
  channelName?: string;
  responseUrl?: string;
  triggerId?: string;
  teamId?: string;
  teamDomain?: string;
  apiAppId?: string;
  enterpriseId?: string;
}

/** A `/edge …` slash command, form-encoded field by field as Slack posts it. */
export function slashCommand(input: SlashCommandInput = {}): SlackRequest<SlashCommand> {
  const payload: SlashCommand = {
    token: VERIFICATION_TOKEN,
    team_id: input.teamId ?? DEFAULT_TEAM_ID,
    team_domain: input.teamDomain ?? DEFAULT_TEAM_DOMAIN,
    channel_id: input.channelId ?? DEFAULT_CHANNEL_ID,
    channel_name: input.channelName ?? 'ops',
    user_id: input.userId ?? DEFAULT_USER_ID,
    user_name: input.userName ?? 'you',
    command: input.command ?? '/edge',
    text: input.text ?? '',
    api_app_id: input.apiAppId ?? DEFAULT_APP_ID,
    is_enterprise_install: 'false',
    response_url: input.responseUrl ?? UNSET_RESPONSE_URL,
    trigger_id: input.triggerId ?? newTriggerId(),
  };
  if (input.enterpriseId) payload.enterprise_id = input.enterpriseId;
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(payload)) if (typeof value === 'string') form.append(key, value);
  return {
    body: form.toString(),
    contentType: FORM_CONTENT_TYPE,
    payload,
    socketType: 'slash_commands',
    acceptsResponsePayload: true,
  };
}

function interactive<P>(payload: P, acceptsResponsePayload = false): SlackRequest<P> {
  const form = new URLSearchParams({ payload: JSON.stringify(payload) });
  return {
    body: form.toString(),
    contentType: FORM_CONTENT_TYPE,
    payload,
    socketType: 'interactive',
    acceptsResponsePayload,
  };
}

type ViewState = ViewOutput['state']['values'];

export interface ViewInput {
  viewId?: string;
  callbackId?: string;
  privateMetadata?: string;
  values?: ViewState;
  title?: string;
  blocks?: ViewOutput['blocks'];
  submit?: string | null;
  teamId?: string;
  hash?: string;
  rootViewId?: string;
  externalId?: string;
}

/** The `view` object Slack includes in view and block payloads, with its state. */
export function viewOutput(input: ViewInput = {}): ViewOutput {
  const id = input.viewId ?? `V0${String(next()).padStart(9, '0')}`;
  const view: ViewOutput = {
    id,
    team_id: input.teamId ?? DEFAULT_TEAM_ID,
    type: 'modal',
    blocks: input.blocks ?? [],
    private_metadata: input.privateMetadata ?? '',
    callback_id: input.callbackId ?? '',
    state: { values: input.values ?? {} },
    hash: input.hash ?? `${Math.floor(Date.parse(DEFAULT_INSTANT) / 1000)}.${randomUUID().slice(0, 8)}`,
    title: { type: 'plain_text', text: input.title ?? 'edgeops', emoji: true },
    clear_on_close: false,
    notify_on_close: false,
    close: { type: 'plain_text', text: 'Cancel', emoji: true },
    submit:
      input.submit === null ? null : { type: 'plain_text', text: input.submit ?? 'Submit', emoji: true },
    previous_view_id: null,
    root_view_id: input.rootViewId ?? id,
    app_id: DEFAULT_APP_ID,
    external_id: input.externalId ?? '',
    app_installed_team_id: input.teamId ?? DEFAULT_TEAM_ID,
    bot_id: DEFAULT_BOT_ID,
  };
  return view;
}

export type BlockActionsPayload = Omit<BlockAction, 'response_url'> & { response_url?: string };

export interface BlockActionsInput {
  actionId: string;
  value?: string;
  blockId?: string;
  /** Button label as the app rendered it. */
  buttonText?: string;
  /** Replaces the single button action, e.g. a static_select with its selected_option. */
  actions?: BlockElementAction[];
  userId?: string;
  userName?: string;
  teamId?: string;
  channelId?: string;
  /** The message the button was on; omit with `view` for a button inside a modal. */
  messageTs?: string;
  message?: BlockAction['message'];
  responseUrl?: string;
  triggerId?: string;
  /** Overrides the container Slack derives from messageTs or view. */
  container?: Record<string, unknown>;
  isEphemeral?: boolean;
  /** Set when the button is in a modal; the payload then has no channel, message or response_url. */
  view?: ViewOutput;
}

/** A click on an interactive element (by default a button), as the `payload=` form field. */
export function blockActions(input: BlockActionsInput): SlackRequest<BlockActionsPayload> {
  const userId = input.userId ?? DEFAULT_USER_ID;
  const teamId = input.teamId ?? DEFAULT_TEAM_ID;
  const channelId = input.channelId ?? DEFAULT_CHANNEL_ID;
  const button: ButtonAction = {
    type: 'button',
    block_id: input.blockId ?? 'actions',
    action_id: input.actionId,
    text: { type: 'plain_text', text: input.buttonText ?? input.actionId, emoji: true },
    action_ts: newTs(),
    ...(input.value !== undefined ? { value: input.value } : {}),
  };
  const messageTs = input.messageTs ?? input.message?.ts;
  const container =
    input.container ??
    (input.view
      ? { type: 'view', view_id: input.view.id }
      : {
          type: 'message',
          message_ts: messageTs ?? newTs(),
          channel_id: channelId,
          is_ephemeral: input.isEphemeral ?? false,
        });
  const payload: BlockActionsPayload = {
    type: 'block_actions',
    user: { id: userId, username: input.userName ?? 'you', name: input.userName ?? 'you', team_id: teamId },
    api_app_id: DEFAULT_APP_ID,
    token: VERIFICATION_TOKEN,
    container,
    trigger_id: input.triggerId ?? newTriggerId(),
    team: { id: teamId, domain: DEFAULT_TEAM_DOMAIN },
    is_enterprise_install: false,
    actions: input.actions ?? [button],
  };
  if (input.view) {
    payload.view = input.view;
  } else {
    payload.channel = { id: channelId, name: 'ops' };
    // Slack leaves the message out of ephemeral containers.
    if (!input.isEphemeral) {
      payload.message = input.message ?? {
        type: 'message',
        user: DEFAULT_BOT_USER_ID,
        ts: String(container.message_ts),
        bot_id: DEFAULT_BOT_ID,
        text: '',
      };
    }
    payload.state = { values: {} };
    payload.response_url = input.responseUrl ?? UNSET_RESPONSE_URL;
  }
  return interactive(payload);
}

export interface ViewSubmissionInput extends ViewInput {
  callbackId: string;
  userId?: string;
  userName?: string;
  triggerId?: string;
  /** Present when the modal has a conversation select with response_url_enabled. */
  responseUrls?: ViewResponseUrl[];
}

/** A modal's Submit, with `values` as Slack's `view.state.values` (see the value builders below). */
export function viewSubmission(input: ViewSubmissionInput): SlackRequest<ViewSubmitAction> {
  const teamId = input.teamId ?? DEFAULT_TEAM_ID;
  const payload: ViewSubmitAction = {
    type: 'view_submission',
    team: { id: teamId, domain: DEFAULT_TEAM_DOMAIN },
    user: { id: input.userId ?? DEFAULT_USER_ID, name: input.userName ?? 'you', team_id: teamId },
    api_app_id: DEFAULT_APP_ID,
    token: VERIFICATION_TOKEN,
    trigger_id: input.triggerId ?? newTriggerId(),
    view: viewOutput(input),
    response_urls: input.responseUrls ?? [],
    is_enterprise_install: false,
  };
  return interactive(payload, true);
}

export interface ViewClosedInput extends ViewInput {
  callbackId: string;
  userId?: string;
  userName?: string;
  isCleared?: boolean;
}

/** A modal closed with Cancel or ×; Slack sends it only for views with notify_on_close. */
export function viewClosed(input: ViewClosedInput): SlackRequest<ViewClosedAction> {
  const teamId = input.teamId ?? DEFAULT_TEAM_ID;
  const payload: ViewClosedAction = {
    type: 'view_closed',
    team: { id: teamId, domain: DEFAULT_TEAM_DOMAIN },
    user: { id: input.userId ?? DEFAULT_USER_ID, name: input.userName ?? 'you', team_id: teamId },
    api_app_id: DEFAULT_APP_ID,
    token: VERIFICATION_TOKEN,
    view: viewOutput(input),
    is_cleared: input.isCleared ?? false,
    is_enterprise_install: false,
  };
  return interactive(payload);
}

export interface BlockSuggestionInput extends ViewInput {
  /** The picker's block (the form field's id) and action ids. */
  blockId: string;
  actionId: string;
  /** What the user has typed so far. */
  value: string;
  userId?: string;
  userName?: string;
}

/** A type-ahead picker (external_select) in an open form asking for its options. */
export function blockSuggestion(input: BlockSuggestionInput): SlackRequest<BlockSuggestion> {
  const teamId = input.teamId ?? DEFAULT_TEAM_ID;
  const view = viewOutput(input);
  const payload: BlockSuggestion = {
    type: 'block_suggestion',
    block_id: input.blockId,
    action_id: input.actionId,
    value: input.value,
    api_app_id: DEFAULT_APP_ID,
    team: { id: teamId, domain: DEFAULT_TEAM_DOMAIN },
    user: { id: input.userId ?? DEFAULT_USER_ID, name: input.userName ?? 'you', team_id: teamId },
    token: VERIFICATION_TOKEN,
    container: { type: 'view', view_id: view.id },
    view,
    is_enterprise_install: false,
  };
  // The options travel back in the acknowledgement, over HTTP and Socket Mode alike.
  return interactive(payload, true);
}

// State values for viewSubmission({ values: { block: { action: textInput('x') } } }).

export function textInput(value: string | null): ViewStateValue {
  return { type: 'plain_text_input', value };
}

export function numberInput(value: string | null): ViewStateValue {
  return { type: 'number_input', value };
}

export function staticSelect(value: string | null, text: string = value ?? ''): ViewStateValue {
  return {
    type: 'static_select',
    selected_option: value === null ? null : { text: { type: 'plain_text', text, emoji: true }, value },
  };
}

/** A choice in a type-ahead picker (external_select), as the block_suggestion answer offered it. */
export function externalSelect(value: string | null, text: string = value ?? ''): ViewStateValue {
  return { ...staticSelect(value, text), type: 'external_select' };
}

export function radioButtons(value: string | null, text: string = value ?? ''): ViewStateValue {
  return { ...staticSelect(value, text), type: 'radio_buttons' };
}

export function checkboxes(values: string[]): ViewStateValue {
  return {
    type: 'checkboxes',
    selected_options: values.map((value) => ({
      text: { type: 'plain_text', text: value, emoji: true },
      value,
    })),
  };
}

export function datetimePicker(epochSeconds: number | null): ViewStateValue {
  return { type: 'datetimepicker', selected_date_time: epochSeconds };
}

export interface SocketEnvelope<P = unknown> {
  envelope_id: string;
  type: SocketEnvelopeType | 'events_api';
  payload: P;
  accepts_response_payload: boolean;
  retry_attempt?: number;
  retry_reason?: string;
}

/** Wraps a built request as Slack sends it over Socket Mode. */
export function socketEnvelope<P>(
  request: SlackRequest<P>,
  options: { envelopeId?: string; acceptsResponsePayload?: boolean } = {},
): SocketEnvelope<P> {
  return {
    envelope_id: options.envelopeId ?? randomUUID(),
    type: request.socketType,
    payload: request.payload,
    accepts_response_payload: options.acceptsResponsePayload ?? request.acceptsResponsePayload,
  };
}

export interface AppMentionInput {
  /** The message as Slack writes it, the bot's mention included (`<@U0EDGEBOT> logs 308006`). */
  text: string;
  userId?: string;
  channelId?: string;
  /** The message's own timestamp; a new one by default. */
  ts?: string;
  /** The thread the message was written in; absent for a top-level message. */
  threadTs?: string;
  /** Redeliveries carry the event_id of the first delivery. */
  eventId?: string;
  /** The author's own workspace, when it is not the one the app is installed in (a shared channel). */
  userTeam?: string;
  /** The channel is shared with another organisation (Slack Connect). */
  extShared?: boolean;
  /** The Enterprise Grid org the app is installed in, which Slack names in the envelope. */
  enterpriseId?: string;
  /** Set for a message a bot wrote. */
  botId?: string;
  subtype?: string;
  /** Set when Slack sends the event again for an edited message. */
  edited?: { user: string; ts: string };
  botUserId?: string;
}

export interface EventCallback<E> {
  token: string;
  team_id: string;
  enterprise_id?: string;
  api_app_id: string;
  event: E;
  type: 'event_callback';
  event_id: string;
  event_time: number;
  authorizations: {
    enterprise_id?: string;
    team_id: string;
    user_id: string;
    is_bot: boolean;
    is_enterprise_install: boolean;
  }[];
  is_ext_shared_channel: boolean;
  event_context: string;
}

/** An `app_mention` event as the Events API posts it: JSON, wrapped in an event_callback. */
export function appMention(input: AppMentionInput): SlackRequest<EventCallback<AppMentionEvent>> {
  const ts = input.ts ?? newTs();
  const event: AppMentionEvent = {
    type: 'app_mention',
    user: input.userId ?? DEFAULT_USER_ID,
    text: input.text,
    ts,
    channel: input.channelId ?? DEFAULT_CHANNEL_ID,
    event_ts: ts,
    team: DEFAULT_TEAM_ID,
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    ...(input.botId ? { bot_id: input.botId } : {}),
    ...(input.userTeam ? { user_team: input.userTeam } : {}),
    ...(input.subtype ? { subtype: input.subtype } : {}),
    ...(input.edited ? { edited: input.edited } : {}),
  };
  return eventCallback(event, {
    eventId: input.eventId,
    botUserId: input.botUserId,
    extShared: input.extShared,
    enterpriseId: input.enterpriseId,
  });
}

/** An event wrapped as the Events API posts it: JSON, in an event_callback. */
function eventCallback<E>(
  event: E,
  input: { eventId?: string; botUserId?: string; extShared?: boolean; enterpriseId?: string } = {},
): SlackRequest<EventCallback<E>> {
  const payload: EventCallback<E> = {
    token: VERIFICATION_TOKEN,
    team_id: DEFAULT_TEAM_ID,
    ...(input.enterpriseId ? { enterprise_id: input.enterpriseId } : {}),
    api_app_id: DEFAULT_APP_ID,
    event,
    type: 'event_callback',
    event_id: input.eventId ?? `Ev0${String(next()).padStart(9, '0')}`,
    event_time: Math.floor(Date.parse(DEFAULT_INSTANT) / 1000),
    authorizations: [
      {
        ...(input.enterpriseId ? { enterprise_id: input.enterpriseId } : {}),
        team_id: DEFAULT_TEAM_ID,
        user_id: input.botUserId ?? DEFAULT_BOT_USER_ID,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: input.extShared ?? false,
    event_context: `4-${randomUUID()}`,
  };
  return {
    body: JSON.stringify(payload),
    contentType: JSON_CONTENT_TYPE,
    payload,
    socketType: 'events_api',
    acceptsResponsePayload: false,
  };
}

/** An `app_home_opened` event: the user opened the app's Home tab (or, with `tab`, its Messages tab). */
export function appHomeOpened(
  input: { userId?: string; tab?: 'home' | 'messages' } = {},
): SlackRequest<EventCallback<AppHomeOpenedEvent>> {
  const ts = newTs();
  const userId = input.userId ?? DEFAULT_USER_ID;
  const event: AppHomeOpenedEvent = {
    type: 'app_home_opened',
    user: userId,
    channel: `D${userId.slice(1)}`,
    tab: input.tab ?? 'home',
    event_ts: ts,
  };
  return eventCallback(event);
}

export interface MessageShortcutInput {
  callbackId: string;
  /** The message the shortcut was used on. */
  text: string;
  messageTs?: string;
  /** Set when that message is a reply in a thread. */
  threadTs?: string;
  /** Who wrote the message; an alerting tool's bot by default. */
  messageBotId?: string;
  userId?: string;
  channelId?: string;
  triggerId?: string;
  responseUrl?: string;
  /** The user's workspace (`user.team_id`, and `team`). */
  teamId?: string;
}

/** A message shortcut ("…" menu of a message), as the `payload=` form field. */
export function messageShortcut(input: MessageShortcutInput): SlackRequest<MessageShortcut> {
  const teamId = input.teamId ?? DEFAULT_TEAM_ID;
  const messageTs = input.messageTs ?? newTs();
  const payload: MessageShortcut = {
    type: 'message_action',
    callback_id: input.callbackId,
    trigger_id: input.triggerId ?? newTriggerId(),
    message_ts: messageTs,
    response_url: input.responseUrl ?? UNSET_RESPONSE_URL,
    message: {
      type: 'message',
      ts: messageTs,
      text: input.text,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
      ...(input.messageBotId === ''
        ? { user: DEFAULT_USER_ID }
        : { bot_id: input.messageBotId ?? 'B0ALERTS', subtype: 'bot_message' }),
    },
    user: { id: input.userId ?? DEFAULT_USER_ID, name: 'you', team_id: teamId, username: 'you' },
    channel: { id: input.channelId ?? DEFAULT_CHANNEL_ID, name: 'ops' },
    team: { id: teamId, domain: DEFAULT_TEAM_DOMAIN },
    token: VERIFICATION_TOKEN,
    action_ts: newTs(),
    is_enterprise_install: false,
  };
  return interactive(payload);
}
