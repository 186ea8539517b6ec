/**
 * A fake of Slack over node:http on 127.0.0.1: the Web API methods edgeops calls, the
 * files.uploadV2 upload URL, response_url endpoints and a Socket Mode WebSocket. Point Bolt at it
 * with `clientOptions: { slackApiUrl: fake.apiUrl }`. Everything it receives is recorded, so a
 * test can assert on calls and scan every payload for leaked secrets (allPayloadText).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { MESSAGE_TEXT_MAX } from '../../src/slack/limits.js';
import {
  checkMessageLimits,
  checkViewLimits,
  formatSchemaErrors,
  SLACK_REFUSES,
  schemasAvailable,
  secondTable,
  validateBlocks,
  validateHome,
  validateModal,
} from './block-kit.js';
import { pinnedClock } from './clock.js';
import {
  DEFAULT_APP_ID,
  DEFAULT_BOT_ID,
  DEFAULT_BOT_USER_ID,
  DEFAULT_TEAM_DOMAIN,
  DEFAULT_TEAM_ID,
  type SlackRequest,
  type SocketEnvelope,
  socketEnvelope,
} from './payloads.js';

export type SlackArgs = Record<string, unknown>;

export interface RecordedCall {
  method: string;
  /** The parsed body: form fields as strings, JSON-encoded fields (blocks, view, files…) decoded. */
  args: SlackArgs;
  /** From `Authorization: Bearer …`, or the `token` argument. */
  token: string | undefined;
  at: Date;
  /** When the fake received it, in performance.now() milliseconds: for gaps between calls. */
  receivedAt: number;
  contentType: string;
  /** What the fake answered: HTTP status and JSON body (a 500 answers with a text body). */
  status: number;
  response: SlackArgs;
}

export interface ResponseUrlPost {
  /** The id given to responseUrl(id). */
  id: string;
  body: SlackArgs;
  at: Date;
}

export interface UploadedFile {
  id: string;
  filename: string;
  /** Declared by files.getUploadURLExternal. */
  length: number;
  /** files.getUploadURLExternal's `alt_txt` (Slack's spelling; an `alt_text` there is ignored). */
  altText?: string;
  snippetType?: string;
  bytes: Buffer;
  /** Content type of the upload POST (web-api sends multipart/form-data). */
  uploadContentType: string;
  title?: string;
  initialComment?: string;
  channelId?: string;
  /** channel_id and channels of files.completeUploadExternal together. */
  channels: string[];
  threadTs?: string;
  blocks?: unknown;
  completedAt?: Date;
}

export interface StoredMessage {
  channel: string;
  ts: string;
  text?: string;
  blocks?: unknown;
  /** Set for chat.postEphemeral: the only user who sees it. */
  ephemeralTo?: string;
  threadTs?: string;
  deleted: boolean;
  /** How many chat.update calls changed it. */
  updates: number;
}

export interface StoredView {
  id: string;
  view: SlackArgs;
  hash: string;
  /** views.open/push: the trigger; views.publish: the Home tab's user. */
  triggerId?: string;
  userId?: string;
  rootViewId: string;
  previousViewId?: string;
}

export interface FailureSpec {
  /** An ok:false error code, e.g. `expired_trigger_id`; answered with HTTP 200. */
  error?: string;
  /**
   * For Web API methods: 429 (with Retry-After) or 500 instead of an ok:false body. For
   * `response_url` and `upload`: the HTTP status to answer, with `error` as the body.
   */
  status?: number;
  /** Seconds for Retry-After on a 429; 0 by default so retries stay fast. */
  retryAfter?: number;
  /** How many requests fail before the method works again; 1 by default, Infinity for all. */
  times?: number;
  /**
   * Only requests this accepts fail (a reply in a thread, one response URL): a Web API call's
   * arguments; a response_url post's body with the URL's id as `response_id`.
   */
  when?: (args: SlackArgs) => boolean;
}

export type ChannelProblem =
  | 'not_in_channel'
  | 'is_archived'
  | 'channel_not_found'
  | 'restricted_action'
  | 'restricted_action_read_only_channel'
  /** Takes messages and updates, but no reply in a thread. */
  | 'restricted_action_non_threadable_channel';

export interface SlackRefusal {
  error: string;
  problems: string[];
}

export interface SocketAck {
  envelope_id: string;
  payload?: unknown;
  at: Date;
}

export type SocketEnvelopeInput = Omit<SocketEnvelope, 'envelope_id' | 'accepts_response_payload'> & {
  envelope_id?: string;
  accepts_response_payload?: boolean;
};

export interface FakeSocketMode {
  /** Acks the app sent back, in order. */
  readonly acks: SocketAck[];
  /** Open WebSocket connections. */
  readonly connections: number;
  /** Resolves once an app has connected and received `hello`. */
  waitForConnection(timeoutMs?: number): Promise<void>;
  /** Sends an envelope on the newest connection and resolves with the app's ack for it. */
  send(envelope: SocketEnvelopeInput, timeoutMs?: number): Promise<SocketAck>;
  /** Sends a request built by payloads.ts as its Socket Mode envelope. */
  sendRequest<P>(request: SlackRequest<P>, timeoutMs?: number): Promise<SocketAck>;
  /** Asks the app to reconnect, as Slack does before recycling a connection. */
  requestReconnect(reason?: string): void;
}

export interface FakeSlack {
  /** Web API base, ending in `/api/`: pass as slackApiUrl / SLACK_API_URL. */
  readonly apiUrl: string;
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly calls: RecordedCall[];
  callsTo(method: string): RecordedCall[];
  /**
   * The first call (already made or still to come) to `method` that Slack accepted and that
   * satisfies `predicate`. Refused calls are in `calls` and `callsTo`, not here: nobody saw them.
   */
  waitFor(
    method: string,
    predicate?: (call: RecordedCall) => boolean,
    timeoutMs?: number,
  ): Promise<RecordedCall>;
  /** Posts to response URLs that Slack accepted (and so showed). */
  readonly responses: ResponseUrlPost[];
  /** Posts to response URLs that were refused (invalid blocks, an injected failure): nobody saw them. */
  readonly refusedResponses: ResponseUrlPost[];
  /** Every payload refused as Slack refuses it (invalid_blocks and friends), with the reasons. */
  readonly refusals: SlackRefusal[];
  /** A response_url served by this fake; posts to it land in `responses` with this id. */
  responseUrl(id?: string): string;
  waitForResponse(
    predicate?: (post: ResponseUrlPost) => boolean,
    timeoutMs?: number,
  ): Promise<ResponseUrlPost>;
  /** Files shared by files.completeUploadExternal, in order. */
  readonly uploads: UploadedFile[];
  waitForUpload(predicate?: (file: UploadedFile) => boolean, timeoutMs?: number): Promise<UploadedFile>;
  /** Messages as they stand now (updates applied, deletions flagged). */
  readonly messages: StoredMessage[];
  message(channel: string, ts: string): StoredMessage | undefined;
  readonly views: StoredView[];
  /**
   * Makes the next request(s) to `method` fail. Besides Web API method names, `upload` targets
   * the upload URL and `response_url` the response URLs.
   */
  fail(method: string, spec?: FailureSpec): void;
  /**
   * Answers the next call of `method` that `when` accepts only once `until` has resolved: for
   * what happens between Slack receiving a call and the app hearing its answer.
   */
  hold(
    method: string,
    spec: { when?: (args: SlackArgs) => boolean; until: (args: SlackArgs) => Promise<void> },
  ): void;
  setUserGroup(groupId: string, userIds: string[]): void;
  /**
   * What Slack answers for a channel the bot cannot post in: it is not a member, the channel is
   * archived, or the bot cannot see it. Posts, ephemerals, updates and file shares there fail (in
   * a channel that takes no thread replies, only those); `undefined` makes the channel work again.
   */
  setChannelProblem(channelId: string, problem: ChannelProblem | undefined): void;
  /**
   * What a workspace, client or Enterprise policy that takes no table answers: every message with
   * a table (or data_table) is refused with `error` (invalid_blocks by default); `false` takes them again.
   */
  refuseTables(error?: 'invalid_blocks' | 'invalid_attachments' | false): void;
  /** Overrides what users.info answers for a user (any other U…/W… id gets a generated profile). */
  setUser(userId: string, profile: { name?: string; realName?: string; tz?: string; isBot?: boolean }): void;
  /** The DM channel conversations.open answers for this user. */
  dmChannelFor(userId: string): string;
  readonly socket: FakeSocketMode;
  /** Forgets recordings, messages, views and pending failures; keeps users and user groups. */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeSlackOptions {
  /** Clock for `at` and message timestamps (milliseconds); a pinned clock by default. */
  now?: () => number;
  /** Tokens accepted; any token is accepted when omitted (a missing one is `not_authed`). */
  tokens?: string[];
  /**
   * Reject blocks and views the Block Kit schema refuses, with `invalid_blocks` /
   * `invalid_arguments`, as Slack does. On by default when the shared schemas are present.
   */
  validateBlocks?: boolean;
  /** The workspace auth.test names as the bot's. */
  teamId?: string;
  /** The Enterprise Grid org auth.test names; none (a workspace on its own) by default. */
  enterpriseId?: string;
  botUserId?: string;
  botId?: string;
  appId?: string;
}

/** A Slack error answered as `{ ok: false, error }`. */
class SlackApiError extends Error {
  constructor(
    readonly code: string,
    readonly details: SlackArgs = {},
  ) {
    super(code);
  }
}

// Fields web-api JSON-encodes inside a form body.
const JSON_FIELDS = new Set([
  'blocks',
  'attachments',
  'view',
  'files',
  'metadata',
  'unfurls',
  'user_auth_blocks',
]);

const nonEmpty = z.string().min(1);
const optionalString = z.string().optional();

const postMessageArgs = z.looseObject({
  channel: nonEmpty,
  text: optionalString,
  blocks: z.unknown().optional(),
  attachments: z.unknown().optional(),
  thread_ts: optionalString,
});
const postEphemeralArgs = postMessageArgs.extend({ user: nonEmpty });
const updateArgs = z.looseObject({
  channel: nonEmpty,
  ts: nonEmpty,
  text: optionalString,
  blocks: z.unknown().optional(),
});
const deleteArgs = z.looseObject({ channel: nonEmpty, ts: nonEmpty });
const viewArg = z.looseObject({ type: z.string(), blocks: z.unknown().optional() });
const viewsOpenArgs = z.looseObject({
  trigger_id: optionalString,
  interactivity_pointer: optionalString,
  view: viewArg,
});
const viewsUpdateArgs = z.looseObject({
  view_id: optionalString,
  external_id: optionalString,
  hash: optionalString,
  view: viewArg,
});
const viewsPublishArgs = z.looseObject({ user_id: nonEmpty, view: viewArg, hash: optionalString });
const conversationsOpenArgs = z.looseObject({ users: optionalString, channel: optionalString });
const usergroupUsersArgs = z.looseObject({ usergroup: nonEmpty });
const usersInfoArgs = z.looseObject({ user: nonEmpty });
const uploadUrlArgs = z.looseObject({
  filename: nonEmpty,
  length: z.coerce.number().int().nonnegative(),
  alt_txt: optionalString,
  snippet_type: optionalString,
});
const completeUploadArgs = z.looseObject({
  files: z.array(z.looseObject({ id: nonEmpty, title: optionalString })).min(1),
  channel_id: optionalString,
  channels: optionalString,
  initial_comment: optionalString,
  thread_ts: optionalString,
  blocks: z.unknown().optional(),
});
const permalinkArgs = z.looseObject({ channel: nonEmpty, message_ts: nonEmpty });
const socketAckMessage = z.looseObject({ envelope_id: nonEmpty, payload: z.unknown().optional() });

function parseArgs<T extends z.ZodType>(schema: T, args: SlackArgs): z.infer<T> {
  const parsed = schema.safeParse(args);
  if (!parsed.success) {
    const messages = parsed.error.issues.map((issue) => `[ERROR] ${issue.path.join('.')}: ${issue.message}`);
    // Slack names a missing channel specifically; everything else is invalid_arguments.
    const channelMissing = parsed.error.issues.some((issue) => issue.path[0] === 'channel');
    throw new SlackApiError(channelMissing ? 'channel_not_found' : 'invalid_arguments', {
      response_metadata: { messages },
    });
  }
  return parsed.data;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function decodeJsonField(key: string, value: string): unknown {
  if (!JSON_FIELDS.has(key)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

interface ParsedBody {
  args: SlackArgs;
  /** File parts of a multipart body. */
  files: { field: string; filename: string; bytes: Buffer }[];
}

async function parseBody(raw: Buffer, contentType: string): Promise<ParsedBody> {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') {
    const parsed: unknown = raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'));
    return { args: z.record(z.string(), z.unknown()).parse(parsed), files: [] };
  }
  if (type === 'multipart/form-data') {
    // Node's fetch Response parses multipart bodies, boundary and all.
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    const args: SlackArgs = {};
    const files: ParsedBody['files'] = [];
    for (const [key, value] of form.entries()) {
      if (typeof value === 'string') args[key] = decodeJsonField(key, value);
      else files.push({ field: key, filename: value.name, bytes: Buffer.from(await value.arrayBuffer()) });
    }
    return { args, files };
  }
  const args: SlackArgs = {};
  for (const [key, value] of new URLSearchParams(raw.toString('utf8')))
    args[key] = decodeJsonField(key, value);
  return { args, files: [] };
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: SlackArgs,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(body));
}

function collectText(
  value: unknown,
  out: string[],
  skipKeys: ReadonlySet<string> = new Set(),
  skipRawText = false,
): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (Buffer.isBuffer(value)) out.push(value.toString('utf8'));
  else if (Array.isArray(value)) for (const item of value) collectText(item, out, skipKeys, skipRawText);
  else if (typeof value === 'object' && value !== null) {
    if (skipRawText && (value as { type?: unknown }).type === 'raw_text') return;
    for (const [key, child] of Object.entries(value))
      if (!skipKeys.has(key)) collectText(child, out, skipKeys, skipRawText);
  }
}

interface Waiter {
  check: () => boolean;
}

interface FailureState extends FailureSpec {
  remaining: number;
}

interface FakeSlackInternals {
  receivedBytes: Buffer[];
  acks: SocketAck[];
}

const internals = new WeakMap<FakeSlack, FakeSlackInternals>();

/**
 * Every text the fake received as payload, joined by newlines: every argument of every call
 * (not the `token` argument or Authorization header, which carry the app's own credentials),
 * response_url bodies, uploaded bytes (shared or not) and Socket Mode acks.
 */
export function allPayloadText(fake: FakeSlack): string {
  const out: string[] = [];
  for (const call of fake.calls) collectText(call.args, out, new Set(['token']));
  for (const post of [...fake.responses, ...fake.refusedResponses]) collectText(post.body, out);
  const hidden = internals.get(fake);
  for (const bytes of hidden?.receivedBytes ?? []) out.push(bytes.toString('utf8'));
  for (const ack of hidden?.acks ?? []) collectText(ack.payload, out);
  return out.join('\n');
}

/** Fields of Web API calls that Slack renders as text for people. */
const RENDERED_FIELDS = [
  'text',
  'blocks',
  'attachments',
  'view',
  'initial_comment',
  'files',
  'title',
  'alt_text',
  'alt_txt',
];

/**
 * Every text Slack shows people, joined by newlines: message text and blocks (Web API and
 * response_url), views, file titles and file comments. Not file contents: a CSV keeps the
 * platform's bytes (PRODUCT §6), and Slack does not render it as mrkdwn; nor a table's raw_text
 * cells, shown as they are: Slack neither formats, links nor mentions in them. Mention checks use this.
 */
export function renderedText(fake: FakeSlack): string {
  const out: string[] = [];
  for (const call of fake.calls)
    for (const field of RENDERED_FIELDS)
      if (call.args[field] !== undefined) collectText(call.args[field], out, undefined, true);
  for (const post of fake.responses)
    for (const field of RENDERED_FIELDS)
      if (post.body[field] !== undefined) collectText(post.body[field], out, undefined, true);
  for (const file of fake.uploads) out.push(file.title ?? '', file.initialComment ?? '');
  return out.join('\n');
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const now = options.now ?? pinnedClock();
  const teamId = options.teamId ?? DEFAULT_TEAM_ID;
  const botUserId = options.botUserId ?? DEFAULT_BOT_USER_ID;
  const botId = options.botId ?? DEFAULT_BOT_ID;
  const appId = options.appId ?? DEFAULT_APP_ID;
  const strictBlocks = options.validateBlocks ?? schemasAvailable;
  let tablesRefused: 'invalid_blocks' | 'invalid_attachments' | false = false;
  const acceptedTokens = options.tokens ? new Set(options.tokens) : undefined;

  const calls: RecordedCall[] = [];
  const responses: ResponseUrlPost[] = [];
  const refusedResponses: ResponseUrlPost[] = [];
  const refusals: SlackRefusal[] = [];
  const uploads: UploadedFile[] = [];
  const pendingFiles = new Map<string, UploadedFile>();
  const receivedBytes: Buffer[] = [];
  const messages: StoredMessage[] = [];
  const views: StoredView[] = [];
  const acks: SocketAck[] = [];
  const failures = new Map<string, FailureState[]>();
  const holds = new Map<
    string,
    { when?: (args: SlackArgs) => boolean; until: (args: SlackArgs) => Promise<void> }[]
  >();
  const userGroups = new Map<string, string[]>();
  const channelProblems = new Map<string, ChannelProblem>();
  /** Throws what Slack answers for a post (`reply`: in a thread), an update or a share in a channel with a problem. */
  const checkChannel = (channelId: string | undefined, reply = false) => {
    const problem = channelId ? channelProblems.get(channelId) : undefined;
    if (problem === 'restricted_action_non_threadable_channel' && !reply) return;
    if (problem) throw new SlackApiError(problem);
  };
  const users = new Map<string, { name?: string; realName?: string; tz?: string; isBot?: boolean }>();
  let waiters: Waiter[] = [];
  let counter = 0;

  const nextId = (prefix: string) => {
    counter += 1;
    return `${prefix}0${String(counter).padStart(9, '0')}`;
  };
  const nextTs = () => {
    counter += 1;
    return `${Math.floor(now() / 1000)}.${String(counter % 1_000_000).padStart(6, '0')}`;
  };
  const notify = () => {
    waiters = waiters.filter((waiter) => !waiter.check());
  };

  const waitUntil = <T>(find: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> => {
    const found = find();
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter = {
        check: () => {
          const value = find();
          if (value === undefined) return false;
          clearTimeout(timer);
          resolve(value);
          return true;
        },
      };
      const timer = setTimeout(() => {
        waiters = waiters.filter((other) => other !== waiter);
        reject(new Error(`fake Slack: timed out after ${timeoutMs} ms waiting for ${describe()}`));
      }, timeoutMs);
      waiters.push(waiter);
    });
  };

  const takeFailure = (target: string, args?: SlackArgs): FailureState | undefined => {
    const queue = failures.get(target);
    const head = queue?.[0];
    if (!queue || !head) return undefined;
    if (head.when && !(args && head.when(args))) return undefined;
    head.remaining -= 1;
    if (head.remaining <= 0) queue.shift();
    return head;
  };

  const dmChannelFor = (userId: string) => `D${userId.replace(/^[UW]/, '')}`;

  const findMessage = (channel: string, ts: string) =>
    messages.find((m) => m.channel === channel && m.ts === ts);

  /**
   * Slack's own rules for a message's blocks, on every path a message takes (Web API,
   * response_url, file comments): the schema, and what the schema cannot say (repeated ids,
   * empty text objects, counts). The text budget is edgeops' own rule, not Slack's.
   */
  const checkBlocks = (blocks: unknown, text: string | undefined) => {
    if (text !== undefined && text.length > MESSAGE_TEXT_MAX) throw new SlackApiError('msg_too_long');
    if (blocks === undefined) return;
    if (!Array.isArray(blocks)) throw new SlackApiError('invalid_blocks_format');
    const tables = blocks.filter(
      (b: unknown) =>
        typeof b === 'object' &&
        b !== null &&
        ['table', 'data_table'].includes(String((b as SlackArgs).type)),
    );
    if (tablesRefused && tables.length > 0) {
      refusals.push({ error: tablesRefused, problems: ['this workspace takes no tables'] });
      throw new SlackApiError(tablesRefused);
    }
    const second = secondTable(blocks);
    if (second) {
      refusals.push({ error: 'only_one_table_allowed', problems: [second.message] });
      throw new SlackApiError('only_one_table_allowed');
    }
    const problems: string[] = [];
    for (const violation of checkMessageLimits(blocks))
      if (SLACK_REFUSES.has(violation.rule)) problems.push(violation.message);
    if (strictBlocks && blocks.length > 0) {
      const errors = validateBlocks(blocks);
      if (errors.length > 0) problems.push(...formatSchemaErrors(errors).split('\n'));
    }
    if (problems.length > 0) {
      refusals.push({ error: 'invalid_blocks', problems });
      throw new SlackApiError('invalid_blocks', {
        errors: problems,
        response_metadata: { messages: problems.map((p) => `[ERROR] ${p}`) },
      });
    }
  };

  const checkView = (view: SlackArgs) => {
    const problems: string[] = [];
    for (const violation of checkViewLimits(view))
      if (SLACK_REFUSES.has(violation.rule)) problems.push(violation.message);
    if (strictBlocks) {
      const errors = view.type === 'home' ? validateHome(view) : validateModal(view);
      if (errors.length > 0) problems.push(...formatSchemaErrors(errors).split('\n'));
    }
    if (problems.length > 0) {
      refusals.push({ error: 'invalid_arguments', problems });
      throw new SlackApiError('invalid_arguments', {
        response_metadata: { messages: problems.map((p) => `[ERROR] ${p}`) },
      });
    }
  };

  const storeView = (view: SlackArgs, fields: Omit<StoredView, 'view' | 'hash' | 'id'> & { id?: string }) => {
    const id = fields.id ?? nextId('V');
    const stored: StoredView = {
      ...fields,
      id,
      view,
      hash: `${Math.floor(now() / 1000)}.${randomUUID().slice(0, 8)}`,
    };
    const index = views.findIndex((v) => v.id === id);
    if (index >= 0) views[index] = stored;
    else views.push(stored);
    return stored;
  };

  const viewResponse = (stored: StoredView): SlackArgs => ({
    id: stored.id,
    team_id: teamId,
    app_id: appId,
    app_installed_team_id: teamId,
    bot_id: botId,
    state: { values: {} },
    hash: stored.hash,
    private_metadata: '',
    callback_id: '',
    external_id: '',
    clear_on_close: false,
    notify_on_close: false,
    root_view_id: stored.rootViewId,
    previous_view_id: stored.previousViewId ?? null,
    ...stored.view,
  });

  const userProfile = (userId: string): SlackArgs => {
    const known = users.get(userId);
    if (!known && !/^[UW][A-Z0-9]+$/.test(userId)) throw new SlackApiError('user_not_found');
    const name = known?.name ?? userId.toLowerCase();
    const realName = known?.realName ?? `User ${userId}`;
    return {
      id: userId,
      team_id: teamId,
      name,
      real_name: realName,
      deleted: false,
      is_bot: known?.isBot ?? false,
      tz: known?.tz ?? 'UTC',
      tz_offset: 0,
      profile: { real_name: realName, display_name: name, team: teamId },
    };
  };

  const handlers: Record<string, (args: SlackArgs, token: string) => SlackArgs> = {
    'auth.test': () => ({
      url: `https://${DEFAULT_TEAM_DOMAIN}.slack.com/`,
      team: DEFAULT_TEAM_DOMAIN,
      user: 'edgeops',
      team_id: teamId,
      ...(options.enterpriseId ? { enterprise_id: options.enterpriseId } : {}),
      user_id: botUserId,
      bot_id: botId,
      is_enterprise_install: false,
    }),
    'apps.connections.open': (_args, token) => {
      if (!token.startsWith('xapp-')) throw new SlackApiError('not_allowed_token_type');
      return { url: `ws://127.0.0.1:${port}/socket/${nextId('S')}?ticket=${randomUUID()}` };
    },
    'chat.postMessage': (args) => {
      const input = parseArgs(postMessageArgs, args);
      if (!input.text && input.blocks === undefined && input.attachments === undefined) {
        throw new SlackApiError('no_text');
      }
      checkChannel(input.channel, input.thread_ts !== undefined);
      checkBlocks(input.blocks, input.text);
      // Posting to a user id lands in the DM with that user.
      const channel = /^[UW]/.test(input.channel) ? dmChannelFor(input.channel) : input.channel;
      const ts = nextTs();
      messages.push({
        channel,
        ts,
        text: input.text,
        blocks: input.blocks,
        threadTs: input.thread_ts,
        deleted: false,
        updates: 0,
      });
      notify();
      return {
        channel,
        ts,
        message: {
          type: 'message',
          user: botUserId,
          bot_id: botId,
          app_id: appId,
          ts,
          text: input.text ?? '',
          blocks: input.blocks,
        },
      };
    },
    'chat.postEphemeral': (args) => {
      const input = parseArgs(postEphemeralArgs, args);
      if (!input.text && input.blocks === undefined && input.attachments === undefined) {
        throw new SlackApiError('no_text');
      }
      checkChannel(input.channel);
      checkBlocks(input.blocks, input.text);
      const ts = nextTs();
      messages.push({
        channel: input.channel,
        ts,
        text: input.text,
        blocks: input.blocks,
        ephemeralTo: input.user,
        threadTs: input.thread_ts,
        deleted: false,
        updates: 0,
      });
      return { message_ts: ts };
    },
    'chat.update': (args) => {
      const input = parseArgs(updateArgs, args);
      checkChannel(input.channel);
      checkBlocks(input.blocks, input.text);
      // Messages posted outside the fake (e.g. through a response_url) are updated as if known.
      const existing = findMessage(input.channel, input.ts);
      if (existing) {
        if (input.text !== undefined) existing.text = input.text;
        if (input.blocks !== undefined) existing.blocks = input.blocks;
        existing.updates += 1;
      } else {
        messages.push({
          channel: input.channel,
          ts: input.ts,
          text: input.text,
          blocks: input.blocks,
          deleted: false,
          updates: 1,
        });
      }
      return {
        channel: input.channel,
        ts: input.ts,
        text: input.text ?? '',
        message: {
          type: 'message',
          user: botUserId,
          bot_id: botId,
          text: input.text ?? '',
          blocks: input.blocks,
        },
      };
    },
    'chat.delete': (args) => {
      const input = parseArgs(deleteArgs, args);
      const existing = findMessage(input.channel, input.ts);
      // Slack's answer for a message that is gone (or never was).
      if (!existing || existing.deleted) throw new SlackApiError('message_not_found');
      existing.deleted = true;
      return { channel: input.channel, ts: input.ts };
    },
    'chat.getPermalink': (args) => {
      const input = parseArgs(permalinkArgs, args);
      const path = `p${input.message_ts.replace('.', '')}`;
      // A reply in a thread links with its thread, as Slack's own permalinks do.
      const threadTs = findMessage(input.channel, input.message_ts)?.threadTs;
      const thread = threadTs ? `?thread_ts=${threadTs}&cid=${input.channel}` : '';
      return {
        channel: input.channel,
        permalink: `https://${DEFAULT_TEAM_DOMAIN}.slack.com/archives/${input.channel}/${path}${thread}`,
      };
    },
    'views.open': (args) => {
      const input = parseArgs(viewsOpenArgs, args);
      const trigger = input.trigger_id ?? input.interactivity_pointer;
      if (!trigger) throw new SlackApiError('invalid_arguments');
      checkView(input.view);
      const id = nextId('V');
      return { view: viewResponse(storeView(input.view, { id, triggerId: trigger, rootViewId: id })) };
    },
    'views.push': (args) => {
      const input = parseArgs(viewsOpenArgs, args);
      const trigger = input.trigger_id ?? input.interactivity_pointer;
      if (!trigger) throw new SlackApiError('invalid_arguments');
      checkView(input.view);
      const id = nextId('V');
      const previous = views.at(-1);
      return {
        view: viewResponse(
          storeView(input.view, {
            id,
            triggerId: trigger,
            rootViewId: previous?.rootViewId ?? id,
            previousViewId: previous?.id,
          }),
        ),
      };
    },
    'views.update': (args) => {
      const input = parseArgs(viewsUpdateArgs, args);
      const existing = input.view_id
        ? views.find((v) => v.id === input.view_id)
        : views.find((v) => input.external_id !== undefined && v.view.external_id === input.external_id);
      if (!input.view_id && !existing)
        throw new SlackApiError(input.external_id ? 'not_found' : 'invalid_arguments');
      if (existing && input.hash !== undefined && input.hash !== existing.hash)
        throw new SlackApiError('hash_conflict');
      checkView(input.view);
      // A view the fake never opened (built by a test payload) is updated as if known.
      const id = existing?.id ?? input.view_id!;
      const stored = storeView(input.view, {
        id,
        triggerId: existing?.triggerId,
        rootViewId: existing?.rootViewId ?? id,
        previousViewId: existing?.previousViewId,
      });
      return { view: viewResponse(stored) };
    },
    'views.publish': (args) => {
      const input = parseArgs(viewsPublishArgs, args);
      checkView(input.view);
      const existing = views.find((v) => v.userId === input.user_id && v.view.type === 'home');
      if (existing && input.hash !== undefined && input.hash !== existing.hash)
        throw new SlackApiError('hash_conflict');
      const id = existing?.id ?? nextId('V');
      return { view: viewResponse(storeView(input.view, { id, userId: input.user_id, rootViewId: id })) };
    },
    'conversations.open': (args) => {
      const input = parseArgs(conversationsOpenArgs, args);
      if (input.channel) return { no_op: true, already_open: true, channel: { id: input.channel } };
      const ids = (input.users ?? '')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean);
      if (ids.length === 0) throw new SlackApiError('users_list_not_supplied');
      if (ids.some((id) => !/^[UW][A-Z0-9]+$/.test(id))) throw new SlackApiError('user_not_found');
      const id = ids.length === 1 ? dmChannelFor(ids[0]!) : `G${ids.map((u) => u.slice(1)).join('')}`;
      return { no_op: false, already_open: false, channel: { id } };
    },
    'usergroups.users.list': (args) => {
      const input = parseArgs(usergroupUsersArgs, args);
      const members = userGroups.get(input.usergroup);
      if (!members) throw new SlackApiError('no_such_subteam');
      return { users: [...members] };
    },
    'users.info': (args) => ({ user: userProfile(parseArgs(usersInfoArgs, args).user) }),
    'files.getUploadURLExternal': (args) => {
      const input = parseArgs(uploadUrlArgs, args);
      const id = nextId('F');
      pendingFiles.set(id, {
        id,
        filename: input.filename,
        length: input.length,
        altText: input.alt_txt,
        snippetType: input.snippet_type,
        bytes: Buffer.alloc(0),
        uploadContentType: '',
        channels: [],
      });
      return { upload_url: `${baseUrl}/upload/${id}`, file_id: id };
    },
    'files.completeUploadExternal': (args) => {
      const input = parseArgs(completeUploadArgs, args);
      checkChannel(input.channel_id);
      if (input.blocks !== undefined) checkBlocks(input.blocks, undefined);
      const channels = [
        ...(input.channel_id ? [input.channel_id] : []),
        ...(input.channels ?? '')
          .split(',')
          .map((c) => c.trim())
          .filter(Boolean),
      ];
      const files = input.files.map((entry) => {
        const file = pendingFiles.get(entry.id);
        if (!file) throw new SlackApiError('file_not_found');
        return { file, title: entry.title };
      });
      const completedAt = new Date(now());
      const shared = files.map(({ file, title }) => {
        pendingFiles.delete(file.id);
        const done: UploadedFile = {
          ...file,
          title: title ?? file.filename,
          initialComment: input.initial_comment,
          channelId: input.channel_id,
          channels,
          threadTs: input.thread_ts,
          blocks: input.blocks,
          completedAt,
        };
        uploads.push(done);
        return done;
      });
      notify();
      return {
        files: shared.map((file) => ({
          id: file.id,
          name: file.filename,
          title: file.title,
          size: file.bytes.length,
          channels: file.channels,
          permalink: `https://${DEFAULT_TEAM_DOMAIN}.slack.com/files/${botUserId}/${file.id}/${file.filename}`,
        })),
      };
    },
  };

  const handleApi = async (method: string, request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    const contentType = request.headers['content-type'] ?? '';
    const at = new Date(now());
    const receivedAt = performance.now();
    let args: SlackArgs = {};
    let parseFailed = false;
    try {
      args = (await parseBody(raw, contentType)).args;
    } catch {
      parseFailed = true;
    }
    const header = request.headers.authorization;
    const headerToken = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
    const token = headerToken ?? (typeof args.token === 'string' ? args.token : undefined);
    // Recorded with the answer, so a waiter never sees a call whose outcome is still unknown.
    const record = (status: number, body: SlackArgs) => {
      calls.push({ method, args, token, at, receivedAt, contentType, status, response: body });
      notify();
    };
    const answer = (status: number, body: SlackArgs, headers: Record<string, string> = {}) => {
      record(status, body);
      sendJson(response, status, body, headers);
    };

    const held = holds.get(method) ?? [];
    const hold = held.find((spec) => spec.when?.(args) ?? true);
    if (hold) {
      held.splice(held.indexOf(hold), 1);
      await hold.until(args);
    }
    const failure = takeFailure(method, args);
    if (failure?.status === 429) {
      return answer(
        429,
        { ok: false, error: 'ratelimited' },
        { 'retry-after': String(failure.retryAfter ?? 0) },
      );
    }
    if (failure?.status === 500) {
      record(500, { ok: false, error: 'internal_error' });
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('Internal Server Error');
      return;
    }
    if (failure) return answer(200, { ok: false, error: failure.error ?? 'internal_error' });
    if (parseFailed) return answer(200, { ok: false, error: 'invalid_form_data' });
    if (!token) return answer(200, { ok: false, error: 'not_authed' });
    if (acceptedTokens && !acceptedTokens.has(token))
      return answer(200, { ok: false, error: 'invalid_auth' });
    const handler = handlers[method];
    if (!handler) return answer(200, { ok: false, error: 'unknown_method' });
    if (token.startsWith('xapp-') && method !== 'apps.connections.open') {
      return answer(200, { ok: false, error: 'not_allowed_token_type' });
    }
    try {
      answer(200, { ok: true, ...handler(args, token) });
    } catch (error) {
      if (error instanceof SlackApiError) answer(200, { ok: false, error: error.code, ...error.details });
      else
        answer(500, {
          ok: false,
          error: 'fatal_error',
          detail: error instanceof Error ? error.message : String(error),
        });
    }
  };

  const handleUpload = async (fileId: string, request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    receivedBytes.push(raw);
    const failure = takeFailure('upload');
    if (failure) {
      response.writeHead(failure.status ?? 500, { 'content-type': 'text/plain' });
      response.end(failure.error ?? 'upload failed');
      return;
    }
    const file = pendingFiles.get(fileId);
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('file_not_found');
      return;
    }
    const contentType = request.headers['content-type'] ?? 'application/octet-stream';
    // Slack takes the file either as the raw body or as the one file part of a multipart form.
    if (contentType.toLowerCase().startsWith('multipart/form-data')) {
      const parsed = await parseBody(raw, contentType);
      file.bytes = parsed.files[0]?.bytes ?? Buffer.alloc(0);
    } else {
      file.bytes = raw;
    }
    file.uploadContentType = contentType;
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(`OK - ${file.bytes.length}`);
  };

  const handleResponseUrl = async (id: string, request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    let body: SlackArgs;
    try {
      body = (await parseBody(raw, request.headers['content-type'] ?? 'application/json')).args;
    } catch {
      body = { unparsed: raw.toString('utf8') };
    }
    const post = { id, body, at: new Date(now()) };
    const refuse = (status: number, code: string) => {
      refusedResponses.push(post);
      notify();
      response.writeHead(status, { 'content-type': 'text/plain' });
      response.end(code);
    };
    const failure = takeFailure('response_url', { ...body, response_id: id });
    if (failure) return refuse(failure.status ?? 404, failure.error ?? 'expired_url');
    // Slack applies the same rules to a response_url message as to chat.postMessage.
    const text = typeof body.text === 'string' ? body.text : undefined;
    if (!text?.trim() && body.blocks === undefined && body.delete_original === undefined)
      return refuse(400, 'no_text');
    try {
      checkBlocks(body.blocks, text);
    } catch (error) {
      if (error instanceof SlackApiError) return refuse(400, error.code);
      throw error;
    }
    responses.push(post);
    notify();
    sendJson(response, 200, { ok: true });
  };

  const server = createServer((request, response) => {
    const { pathname } = new URL(request.url ?? '/', 'http://127.0.0.1');
    const route = async () => {
      if (request.method !== 'POST') {
        response.writeHead(405).end();
        return;
      }
      if (pathname.startsWith('/api/')) return handleApi(pathname.slice('/api/'.length), request, response);
      if (pathname.startsWith('/upload/'))
        return handleUpload(pathname.slice('/upload/'.length), request, response);
      if (pathname.startsWith('/response/')) {
        return handleResponseUrl(decodeURIComponent(pathname.slice('/response/'.length)), request, response);
      }
      response.writeHead(404).end();
    };
    route().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(error instanceof Error ? error.message : 'fake Slack failure');
    });
  });

  const wss = new WebSocketServer({ noServer: true });
  const sockets: WebSocket[] = [];
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!(request.url ?? '').startsWith('/socket/')) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.push(ws);
      ws.on('close', () => {
        const index = sockets.indexOf(ws);
        if (index >= 0) sockets.splice(index, 1);
        notify();
      });
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        let parsed: unknown;
        try {
          parsed = JSON.parse(data.toString());
        } catch {
          return;
        }
        const ack = socketAckMessage.safeParse(parsed);
        if (!ack.success) return;
        acks.push({ envelope_id: ack.data.envelope_id, payload: ack.data.payload, at: new Date(now()) });
        notify();
      });
      // Slack's handshake: the client counts as connected only after `hello`.
      ws.send(
        JSON.stringify({
          type: 'hello',
          num_connections: sockets.length,
          debug_info: { host: 'fake-slack', build_number: 1, approximate_connection_time: 18060 },
          connection_info: { app_id: appId },
        }),
        () => notify(),
      );
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  let responseCounter = 0;

  const openSocket = () => [...sockets].reverse().find((ws) => ws.readyState === ws.OPEN);

  const socketMode: FakeSocketMode = {
    acks,
    get connections() {
      return sockets.length;
    },
    waitForConnection: async (timeoutMs = 5_000) => {
      await waitUntil(
        () => (openSocket() ? true : undefined),
        timeoutMs,
        () => 'a Socket Mode connection',
      );
    },
    send: async (envelope, timeoutMs = 5_000) => {
      await socketMode.waitForConnection(timeoutMs);
      const full = {
        ...envelope,
        envelope_id: envelope.envelope_id ?? randomUUID(),
        accepts_response_payload: envelope.accepts_response_payload ?? envelope.type === 'slash_commands',
      };
      openSocket()!.send(JSON.stringify(full));
      return waitUntil(
        () => acks.find((ack) => ack.envelope_id === full.envelope_id),
        timeoutMs,
        () => `the ack of envelope ${full.envelope_id} (${full.type})`,
      );
    },
    sendRequest: (request, timeoutMs) => socketMode.send(socketEnvelope(request), timeoutMs),
    requestReconnect: (reason = 'refresh_requested') => {
      for (const ws of sockets)
        ws.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake-slack' } }));
    },
  };

  const matching =
    <T>(list: T[], predicate?: (item: T) => boolean) =>
    () =>
      list.find((item) => (predicate ? predicate(item) : true));

  const fake: FakeSlack = {
    apiUrl: `${baseUrl}/api/`,
    url: baseUrl,
    calls,
    callsTo: (method) => calls.filter((call) => call.method === method),
    waitFor: (method, predicate, timeoutMs = 5_000) =>
      waitUntil(
        () =>
          calls.find(
            (call) =>
              call.method === method && call.response.ok === true && (predicate ? predicate(call) : true),
          ),
        timeoutMs,
        () => `a ${method} call (seen: ${calls.map((call) => call.method).join(', ') || 'none'})`,
      ),
    responses,
    refusedResponses,
    refusals,
    responseUrl: (id) => {
      responseCounter += 1;
      return `${baseUrl}/response/${encodeURIComponent(id ?? `r${responseCounter}`)}`;
    },
    waitForResponse: (predicate, timeoutMs = 5_000) =>
      waitUntil(
        matching(responses, predicate),
        timeoutMs,
        () => `a response_url post (${responses.length} seen)`,
      ),
    uploads,
    waitForUpload: (predicate, timeoutMs = 5_000) =>
      waitUntil(matching(uploads, predicate), timeoutMs, () => `a completed upload (${uploads.length} seen)`),
    messages,
    message: findMessage,
    views,
    fail: (method, spec = {}) => {
      const queue = failures.get(method) ?? [];
      queue.push({ ...spec, remaining: spec.times ?? 1 });
      failures.set(method, queue);
    },
    hold: (method, spec) => {
      holds.set(method, [...(holds.get(method) ?? []), spec]);
    },
    refuseTables: (error = 'invalid_blocks') => {
      tablesRefused = error;
    },
    setChannelProblem: (channelId, problem) => {
      if (problem) channelProblems.set(channelId, problem);
      else channelProblems.delete(channelId);
    },
    setUserGroup: (groupId, userIds) => {
      userGroups.set(groupId, [...userIds]);
    },
    setUser: (userId, profile) => {
      users.set(userId, profile);
    },
    dmChannelFor,
    socket: socketMode,
    reset: () => {
      calls.length = 0;
      responses.length = 0;
      refusedResponses.length = 0;
      refusals.length = 0;
      uploads.length = 0;
      receivedBytes.length = 0;
      messages.length = 0;
      views.length = 0;
      acks.length = 0;
      pendingFiles.clear();
      failures.clear();
      holds.clear();
      tablesRefused = false;
    },
    close: async () => {
      // A closing handshake first: cutting the TCP connection makes the app's client report an error.
      await Promise.all(
        [...sockets].map(
          (ws) =>
            new Promise<void>((resolve) => {
              const timer = setTimeout(() => {
                ws.terminate();
                resolve();
              }, 500);
              ws.once('close', () => {
                clearTimeout(timer);
                resolve();
              });
              if (ws.readyState === ws.OPEN) ws.close(1000);
            }),
        ),
      );
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  internals.set(fake, { receivedBytes, acks });
  return fake;
}
