/**
 * The shape every subcommand has: an operation id for the policy, a usage line, a flag spec
 * and argument schema, and a run that answers with a Reply. No operation knows whether it
 * was asked from Slack, the console or a test.
 */
import type { z } from 'zod';
import type { ApprovalFlow } from '../approvals/flow.js';
import type { CustomerDatabase } from '../database/customer-database.js';
import type { Logger, SecretRegistry } from '../log.js';
import type { PlatformClient } from '../platform/client.js';
import type { Reply } from '../reply/model.js';
import type { AuditLog } from '../state/audit.js';
import type { StateStore } from '../state/store.js';
import type { OperationId } from './ids.js';
import type { JobRegistry } from './jobs.js';
import type { ModalSpec, ModalValues } from './modal.js';
import type { FlagSpecs, FlagValues } from './tokenize.js';

/** Where a reply went, so that it can be updated later (progress, approval cards). */
export interface MessageRef {
  channelId: string;
  ts: string;
}

/**
 * What an adapter offers operations: answer the requester, post elsewhere, update, DM, open
 * a form. Slack implements it with the Web API; the console prints.
 */
export interface Surface {
  /** Answers the requester where they asked (visibility decides ephemeral, channel or DM). */
  respond(reply: Reply): Promise<MessageRef | undefined>;
  postToChannel(channelId: string, reply: Reply): Promise<MessageRef | undefined>;
  update(ref: MessageRef, reply: Reply): Promise<void>;
  /** A private message to one user, for secrets that are shown once. */
  sendDirect(userId: string, reply: Reply): Promise<void>;
  openModal(modal: ModalSpec): Promise<void>;
}

/** A small cache with expiry, for answers that change rarely (the WAF enums). */
export interface TtlCache {
  get<T>(key: string): T | undefined;
  set<T>(key: string, value: T, ttlMs: number): void;
}

/** Long-lived services operations may use; built once by the composition root. */
export interface Services {
  platform: PlatformClient;
  audit: AuditLog;
  state: StateStore;
  logger: Logger;
  secrets: SecretRegistry;
  cache: TtlCache;
  approvals: ApprovalFlow;
  /** Long jobs running in this process, with their caps. */
  jobs: JobRegistry;
  /** The customer database of SERVICE_DATABASE_URL; undefined when it is not configured. */
  database?: CustomerDatabase;
  now: () => number;
}

export interface Caller {
  userId: string;
  channelId: string;
}

export interface RunContext extends Caller {
  services: Services;
  surface: Surface;
  correlationId: string;
  logger: Logger;
  /** The registry and access checks, for help and whoami. */
  access: AccessView;
}

/** What help and whoami need to know about the caller's permissions. */
export interface AccessView {
  /** Operations the caller may run in this channel (help lists only these). */
  allowed(): Promise<Set<string>>;
  /** The whoami explanation, already written for people. */
  explain(): Promise<Reply>;
  operations(): readonly AnyOperation[];
}

export type SubmissionOutcome =
  | { errors: Record<string, string> }
  | { run: () => Promise<Reply | undefined>; target?: string; params?: Record<string, unknown> };

/** What parsing may read besides the words: the instant the command was received. */
export interface ParseInput {
  now: number;
}

export type ParseResult<A> = { ok: true; args: A } | { ok: false; error: string };

export interface Operation<S extends FlagSpecs, A> {
  /** Policy id; help and whoami use their own names and are always allowed. */
  id: OperationId | 'help' | 'whoami';
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
   * Takes everything after its words verbatim as one positional, with no flags: SQL keeps its
   * quotes, and `--` inside it is not a flag.
   */
  rawArgument?: boolean;
  /** Checks positionals and flags into typed arguments (zod inside); `now` anchors relative times. */
  parse(positionals: string[], flags: FlagValues<S>, input: ParseInput): ParseResult<A>;
  /** The object the command is about, for audit rows and approval locks. */
  target?(args: A): string | undefined;
  /** Audit-safe parameters (no secrets); defaults to the parsed arguments. */
  auditParams?(args: A): Record<string, unknown>;
  run(ctx: RunContext, args: A): Promise<Reply | undefined>;
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
