/**
 * The shape every subcommand has: an operation id for the policy, a usage line, a flag spec
 * and argument schema, and a run that answers with a Reply. No operation knows whether it
 * was asked from Slack, the console or a test.
 */

import type { z } from 'zod';
import type { ApprovalRequest } from '../../approvals/machine.js';
import type { CustomerDatabase } from '../../database/customer-database.js';
import type { PlatformClient } from '../../platform/client.js';
import type { Operation as PolicyOperation } from '../../policy/authorize.js';
import type { AlwaysAllowed, OperationId } from '../../policy/operation-ids.js';
import type { ModalValues, ZoneKind, ZonePick } from '../../reply/form.js';
import type { MessageRef, Reply } from '../../reply/model.js';
import type { ChartRenderer } from '../../reports/chart/render.js';
import type { ReportPool } from '../../reports/pool.js';
import type { SecretRegistry } from '../../secrets/registry.js';
import type { AuditLog } from '../../state/audit.js';
import type { JsonValue } from '../../state/canonical-json.js';
import type { StateStore } from '../../state/store.js';
import type { Logger } from '../../telemetry/log.js';
import type { KeptOriginDays } from '../logs/kept-days.js';
import type { JobRecords } from './job-records.js';
import type { JobRegistry } from './jobs.js';
import type { HomeRedraws, Surface, ZoneDirectory } from './ports.js';
import type { SharedAnswers } from './shared-answers.js';
import type { FlagSpecs, FlagValues } from './tokenize.js';

export type { MessageRef };

/** A small cache with expiry, for answers that change rarely (the WAF enums). */
export interface TtlCache {
  get<T>(key: string): T | undefined;
  set<T>(key: string, value: T, ttlMs: number): void;
}

/** The two-person gate as operations call it; operations/approvals/flow.ts implements it. */
export interface ApprovalGate {
  /** Asks for approval, or runs at once when the policy does not gate the operation. */
  submit(
    ctx: RunContext,
    input: { operation: PolicyOperation; target: string; params: Record<string, JsonValue>; reason: string },
  ): Promise<Reply | undefined>;
  click(
    ctx: RunContext,
    input: {
      action: 'approve' | 'reject' | 'cancel';
      requestId: string;
      confirmation?: string;
      /** A Reject's reason from its form; without it, Reject opens that form. */
      reason?: string;
    },
  ): Promise<Reply | undefined>;
  /**
   * Waiting requests (with `all`, the last 50 of any state). With scope `yours`, only those the
   * caller asked for or may decide now (the Home's "Show all", which takes no grant).
   */
  list(ctx: RunContext, all: boolean, scope?: 'everyone' | 'yours'): Promise<Reply>;
  /** One request whole: every parameter, the digest and the timeline of its audit rows. */
  show(ctx: RunContext, requestId: string): Promise<Reply>;
  /** The requester withdraws their own pending request (the Cancel button, `/edge approvals cancel ID`). */
  cancel(ctx: RunContext, requestId: string): Promise<Reply | undefined>;
  /** The request as stored, for forms that need its target. */
  peek(id: string): Promise<ApprovalRequest | null>;
  /**
   * The refusal a new request for `operation` on `target` would get now, because an open request
   * holds its lock; undefined when none does (as far as the waiting requests read show). A form
   * that would ask for such a request is refused before it opens.
   */
  openRequestRefusal(ctx: RunContext, operation: PolicyOperation, target: string): Promise<Reply | undefined>;
}

/** What `/edge watch logs` asks for, parsed. */
export interface WatchRequest {
  pullZoneId: number;
  status?: string;
  code?: string;
  everyMs: number;
  forMs: number;
  alert?: { count: number; windowMs: number };
}

/** Watches as operations call them; operations/watches/service.ts implements it. */
export interface WatchDesk {
  start(ctx: RunContext, request: WatchRequest): Promise<Reply | undefined>;
  /** The running watches, with their owners and Stop buttons, for `/edge watches`. */
  list(ctx: RunContext, stopActionId: string): Promise<Reply>;
  /**
   * Stops a watch for whoever holds watch.logs in its channel. `fromHome`: the click came from
   * the Home, in no channel of its own, so the watch's channel is checked whatever ctx says.
   */
  stop(ctx: RunContext, watchId: string, options?: WatchClick): Promise<Reply | undefined>;
  snooze(ctx: RunContext, watchId: string, options?: WatchClick): Promise<Reply | undefined>;
}

/** What `/edge digest logs` and `/edge digest shield` ask for, parsed. */
export interface DigestRequest {
  kind: 'logs' | 'shield';
  /** The pull zone (logs) or the Shield zone (shield). */
  zoneId: number;
  /** Minutes after local midnight. */
  atMinute: number;
  /** An IANA zone, as the zone database spells it. */
  timeZone: string;
  every: 'day' | 'weekday' | 'week';
  /** Shield only: the export's `--query`. */
  query?: string;
  /** Shield only: the export's `--filter` values as typed, each already checked. */
  filters: string[];
}

/** Digests as operations call them; operations/digests/service.ts implements it. */
export interface DigestDesk {
  set(ctx: RunContext, request: DigestRequest): Promise<Reply | undefined>;
  /** This channel's running digests, with who set them, when each comes next and Stop buttons. */
  list(ctx: RunContext, stopActionId: string): Promise<Reply>;
  /**
   * Stops a digest for its owner or whoever holds digest.set in its channel. `fromHome`: the click
   * came from the Home, in no channel of its own, so the digest's channel is checked whatever ctx says.
   */
  stop(ctx: RunContext, digestId: string, options?: { fromHome?: boolean }): Promise<Reply | undefined>;
}

/** Where a click on a watch's Stop or Snooze came from. */
export interface WatchClick {
  /** The Home, in no channel of its own: the watch's channel is checked whatever ctx says. */
  fromHome?: boolean;
  /** The watch's own message (not a listing of watches). */
  fromItsMessage?: boolean;
}

/** Whose Home is drawn: what they may run, where, and a way to link to an approval card. */
export interface HomeViewer {
  userId: string;
  /** Empty for the Home tab, which is in no channel. */
  channelId: string;
  access: AccessView;
  permalink(ref: MessageRef): Promise<string | undefined>;
}

/** A person's Home as operations use it; operations/home/ implements it. */
export interface HomeDesk {
  /** What the viewer's Home shows now. */
  show(viewer: HomeViewer): Promise<Reply>;
  /** Draws Homes again after changes that concern their people. */
  refresher: HomeRedraws;
}

/** Long-lived services operations may use; built once by the composition root. */
export interface Services {
  platform: PlatformClient;
  audit: AuditLog;
  state: StateStore;
  logger: Logger;
  secrets: SecretRegistry;
  cache: TtlCache;
  approvals: ApprovalGate;
  /** Long jobs running in this process, with their caps. */
  jobs: JobRegistry;
  /** Long jobs' records in the state database, so that a replica that stops leaves none open. */
  jobRecords?: JobRecords;
  /** Identical requests in one channel within a minute: one download, one thread, for everyone. */
  shared: SharedAnswers;
  /** Worker threads for summaries and exports, so heavy parsing never blocks the event loop. */
  reports: ReportPool;
  /** The customer database of SERVICE_DATABASE_URL; undefined when it is not configured. */
  database?: CustomerDatabase;
  /** Draws charts as pictures off the event loop; no picture means the text chart is the answer. */
  charts: ChartRenderer;
  /** Pull zones and Shield zones by id and name, for pickers and for checking ids. */
  zones: ZoneDirectory;
  /** Watches of origin errors, polled in the background by one replica each. */
  watches: WatchDesk;
  home: HomeDesk;
  now: () => number;
  /** Origin-log days kept on disk: asking again about the same zone and days downloads nothing. */
  keptDays: KeptOriginDays;
  /** Scheduled digests, each occurrence posted by one replica. */
  digests: DigestDesk;
}

export interface Caller {
  userId: string;
  channelId: string;
  /** The thread the request was asked in; every answer goes there. */
  threadTs?: string;
}

/** Who asked and where, thread included, without the adapter's other fields. */
export const callerOf = (input: Caller): Caller => ({
  userId: input.userId,
  channelId: input.channelId,
  ...(input.threadTs ? { threadTs: input.threadTs } : {}),
});

/** What was typed into a zone picker, by whom and where. */
export interface SuggestionInput extends Caller {
  zones: ZonePick;
  typed: string;
  waitMs: number;
  limit: number;
}

export interface RunContext extends Caller {
  services: Services;
  surface: Surface;
  correlationId: string;
  logger: Logger;
  /** The registry and access checks, for help and whoami. */
  access: AccessView;
  /** The approved request this run carries out, when an approval rule held it. */
  approvedAs?: string;
}

/** What help and whoami need to know about the caller's permissions. */
export interface AccessView {
  /** Operations the caller may run in this channel (help lists only these). */
  allowed(): Promise<ReadonlySet<string>>;
  /** Of those, the ones an approval rule holds until someone approves (help and the menu say so). */
  held(): Promise<ReadonlySet<string>>;
  /** The whoami explanation, already written for people. */
  explain(): Promise<Reply>;
  operations(): readonly AnyOperation[];
}

/**
 * A form that stands for a command line (the "Investigate" form of the message shortcut): its
 * submission is parsed and run as that command, by the operation the command names.
 */
export interface CommandForm {
  callbackId: string;
  /** The command line the values stand for, or what to correct on which field. */
  read(values: ModalValues): { errors: Record<string, string> } | { command: string };
  /** The field a complaint of the command's own parsing is shown on, given what was entered. */
  fieldOf(error: string, values: ModalValues): string;
  /** Whether a command it can stand for changes something (see Operation.changes). */
  changes: boolean;
}

/** The operation, target and approval request an interaction is audited under. */
export interface InteractionSubject {
  operation: string;
  target?: string;
  approvalId?: string;
}

export type SubmissionOutcome =
  | { errors: Record<string, string> }
  | { run: () => Promise<Reply | undefined>; target?: string; params?: Record<string, unknown> };

/** What parsing may read besides the words: the instant the command was received. */
export interface ParseInput {
  now: number;
}

export type ParseResult<A> = { ok: true; args: A } | { ok: false; error: string };

/**
 * A zone id a command may take from the channel's defaults (`/edge context`) when none is typed.
 * The engine looks the default up after parsing, before access checks and audit (so the audit
 * row names the zone), and every answer of that request says in its footer that it was used.
 */
export interface ChannelDefaultSlot<A> {
  kind: ZoneKind;
  /** True when the command was typed without the id. */
  missing(args: A): boolean;
  /** The arguments with the channel's default in place. */
  fill(args: A, id: number): A;
  /** What to say when the channel has no default either: how to type the id. */
  absent: string;
}

/** A zone the channel's defaults filled in. */
export interface ChannelDefaultUsed {
  kind: ZoneKind;
  id: number;
}

/** Channel defaults as the engine applies them; operations/zones/defaults.ts implements it. */
export interface ChannelDefaults {
  /**
   * Fills a zone id left out of the command from the channel's defaults. The context it returns
   * notes the default in the footer of every answer; an error says how to type the id.
   */
  fill(
    ctx: RunContext,
    op: AnyOperation,
    args: unknown,
  ): Promise<
    { ok: true; ctx: RunContext; args: unknown; used?: ChannelDefaultUsed } | { ok: false; error: string }
  >;
  /** A surface whose every answer to the requester says that the channel's default was used. */
  noting(surface: Surface, used: ChannelDefaultUsed): Surface;
}

export interface Operation<S extends FlagSpecs, A> {
  /** Policy id; help, whoami and context.show use their own names and are always allowed. */
  id: OperationId | AlwaysAllowed;
  /** The words after /edge that select it, e.g. ['shield', 'enums']. */
  words: readonly string[];
  usage: string;
  summary: string;
  /** One example, shown by help. */
  example: string;
  flags: S;
  /**
   * True when the operation's buttons and forms check access themselves (approval cards:
   * the request's approvers may click, whatever the grants say).
   */
  ownAccessForInteractions?: boolean;
  /**
   * What changes something (on the platform, in the customer database or in the bot's own
   * approvals) rather than only reading: the command itself, and the names of its buttons and
   * forms that do. Adapters record the delivery of these before they run, so a redelivery never
   * runs a change twice.
   */
  changes?: { command?: boolean; interactions?: readonly string[] };
  /**
   * Entries that an approval rule naming this operation does not hold back: a command line that
   * only opens a form (the form's submission is what runs, and that is held), and buttons that
   * only open a form or wind down what already runs (Cancel, Stop, Snooze). Grants and channels
   * still apply to them, unless the operation checks its buttons' access itself
   * (ownAccessForInteractions). Every other entry of a gated operation waits for its approval.
   */
  outsideApproval?: { command?(args: A): boolean; interactions?: readonly string[] };
  /**
   * Only winds down what waits or runs (withdrawing one's own request): no entry of it is ever
   * held, and help and the menu never say it runs once approved.
   */
  neverHeld?: boolean;
  /**
   * Takes everything after its words verbatim as one positional, with no flags: SQL keeps its
   * quotes, and `--` inside it is not a flag.
   */
  rawArgument?: boolean;
  /** Checks positionals and flags into typed arguments (zod inside); `now` anchors relative times. */
  parse(positionals: string[], flags: FlagValues<S>, input: ParseInput): ParseResult<A>;
  /** A zone id the command takes from the channel's defaults when none is typed. */
  channelDefault?: ChannelDefaultSlot<A>;
  /** The object the command is about, for audit rows and approval locks. */
  target?(args: A): string | undefined;
  /** Audit-safe parameters (no secrets); defaults to the parsed arguments. */
  auditParams?(args: A): Record<string, unknown>;
  run(ctx: RunContext, args: A): Promise<Reply | undefined>;
  /**
   * What a button or form acts on when that is another operation's business, for its audit rows:
   * `reference` is the button's value or the form's private metadata. An approval card's click is
   * audited under the request's operation and target, not under `approvals.list`.
   */
  interactionSubject?(ctx: RunContext, reference: string): Promise<InteractionSubject | undefined>;
  /** The same for a typed command that acts on another operation's business (`/edge approvals cancel ID`). */
  commandSubject?(ctx: RunContext, args: A): Promise<InteractionSubject | undefined>;
  /** Button handlers, keyed by the name after `${key}:` in the action id. */
  actions?: Record<string, (ctx: RunContext, value: string) => Promise<Reply | undefined>>;
  /**
   * Form submissions, keyed by the name after `${key}:` in the callback id. The handler
   * validates quickly (its errors are shown on the fields, before Slack's 3 seconds run out)
   * and returns the slow work as `run`, which starts after the form is acknowledged.
   */
  submissions?: Record<
    string,
    (ctx: RunContext, values: ModalValues, privateMetadata: string) => Promise<SubmissionOutcome>
  >;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds operations of every argument type.
export type AnyOperation = Operation<FlagSpecs, any>;

/** Operations are written with `defineOperation` so that their flag and argument types line up. */
export const defineOperation = <const S extends FlagSpecs, A>(operation: Operation<S, A>): Operation<S, A> =>
  operation;

/** The key that prefixes an operation's action and callback ids: its words joined by dots. */
export const operationKey = (operation: { words: readonly string[] }): string => operation.words.join('.');

/** Parses with a zod schema into a ParseResult whose error names the argument at fault. */
export function parseWith<T extends z.ZodType>(schema: T, input: unknown): ParseResult<z.infer<T>> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, args: parsed.data };
  const issue = parsed.error.issues[0];
  // Messages that already name their flag (`--page starts at 1`) need no path in front.
  const named = issue?.message.includes('--') ?? false;
  const where = issue && issue.path.length > 0 && !named ? `${issue.path.join('.')}: ` : '';
  return { ok: false, error: `${where}${issue?.message ?? 'invalid arguments'}` };
}
