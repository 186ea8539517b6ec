/**
 * The fast tier: the real runtime and engine against the sandbox over HTTP and a temporary state
 * database, with no Slack at all. A recording surface keeps every Reply the engine produces, so
 * tests assert on replies as values; test/slack/ checks what only a transport shows.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, loadConfig } from '../../src/config.js';
import type { Surface } from '../../src/operations/engine/ports.js';
import type { MessageRef } from '../../src/operations/engine/types.js';
import type { ModalSpec, ModalValues } from '../../src/reply/form.js';
import type { Reply, ReplyButton, ReplyFile } from '../../src/reply/model.js';
import { cellText } from '../../src/reply/table.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../src/runtime/runtime.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { createLogger } from '../../src/telemetry/log.js';
import { pinnedClock, type TestClock } from './clock.js';
import { forgetKeptDaysOnKnobs, sandboxEnv } from './sandbox-env.js';

/** One thing the engine did through the surface. */
export type Recorded =
  | { kind: 'respond'; reply: Reply }
  | { kind: 'post'; channelId: string; reply: Reply; ref: MessageRef; threadTs?: string }
  | { kind: 'update'; ref: MessageRef; reply: Reply }
  | { kind: 'dm'; userId: string; reply: Reply; ref: MessageRef }
  | { kind: 'delete'; ref: MessageRef }
  | { kind: 'form'; modal: ModalSpec }
  | { kind: 'panel'; title: string; reply: Reply };

export interface RecordingSurface extends Surface {
  readonly records: Recorded[];
}

/**
 * The messages of one conversation space as a transport keeps them: each has a ts of its own,
 * and shows what it was last posted or updated with until it is deleted. Surfaces that share a
 * board (a testbed's requests and its background work) see each other's messages.
 */
export interface MessageBoard {
  nextTs(): string;
  /** What the message at `ref` shows now; undefined when it was never posted or is deleted. */
  shown(ref: MessageRef): Reply | undefined;
  show(ref: MessageRef, reply: Reply): void;
  remove(ref: MessageRef): void;
}

export function messageBoard(): MessageBoard {
  let ts = 0;
  const messages = new Map<string, Reply>();
  const key = (ref: MessageRef) => `${ref.channelId}/${ref.ts}`;
  return {
    nextTs: () => `1700000000.${String(++ts).padStart(6, '0')}`,
    shown: (ref) => messages.get(key(ref)),
    show: (ref, reply) => messages.set(key(ref), reply),
    remove: (ref) => messages.delete(key(ref)),
  };
}

/** A file as it was delivered: files on disk are read and removed, as an adapter does after uploading them. */
function delivered(file: ReplyFile): ReplyFile {
  if (!file.path) return file;
  const content = readFileSync(file.path);
  rmSync(file.path, { force: true });
  const { path: _removed, ...rest } = file;
  return { ...rest, content };
}

/** The reply as delivered: its files, and those of its thread, in memory. */
function deliveredReply(reply: Reply): Reply {
  if (!reply.files?.length && !reply.thread?.length) return reply;
  return {
    ...reply,
    ...(reply.files ? { files: reply.files.map(delivered) } : {}),
    ...(reply.thread ? { thread: reply.thread.map(deliveredReply) } : {}),
  };
}

export function recordingSurface(
  options: { board?: MessageBoard; clicked?: MessageRef } = {},
): RecordingSurface {
  const records: Recorded[] = [];
  const board = options.board ?? messageBoard();
  return {
    records,
    ...(options.clicked ? { clicked: options.clicked } : {}),
    async respond(reply) {
      records.push({ kind: 'respond', reply: deliveredReply(reply) });
      return undefined;
    },
    async postToChannel(channelId, given, threadTs) {
      const reply = deliveredReply(given);
      const ref = { channelId, ts: board.nextTs() };
      board.show(ref, reply);
      records.push({ kind: 'post', channelId, reply, ref, ...(threadTs ? { threadTs } : {}) });
      return ref;
    },
    async permalink(ref) {
      return `https://example.slack.com/archives/${ref.channelId}/p${ref.ts.replace('.', '')}`;
    },
    async update(ref, given) {
      const reply = deliveredReply(given);
      board.show(ref, reply);
      records.push({ kind: 'update', ref, reply });
    },
    async sendDirect(userId, given) {
      const reply = deliveredReply(given);
      const ref = { channelId: `D${userId}`, ts: board.nextTs() };
      board.show(ref, reply);
      records.push({ kind: 'dm', userId, reply, ref });
      return ref;
    },
    async deleteMessage(ref) {
      board.remove(ref);
      records.push({ kind: 'delete', ref });
    },
    async openModal(modal) {
      records.push({ kind: 'form', modal });
    },
    async openPanel(panel) {
      records.push({ kind: 'panel', ...panel, reply: deliveredReply(panel.reply) });
    },
  };
}

/** A reply's words, blocks included, as one string to search. */
export const wordsOf = (reply: Reply): string => JSON.stringify([reply.text, reply.blocks]);

/**
 * Every text of a reply as people read it: fields as a transport sets them (`*label*` above the
 * value), entities decoded and the invisible guards against mentions and fences removed.
 */
export function readableOf(reply: Reply): string {
  const texts = reply.blocks.flatMap((block): string[] => {
    switch (block.type) {
      case 'header':
      case 'text':
      case 'context':
      case 'code':
        return [block.text];
      case 'fields':
        return block.fields.map((field) => `*${field.label}*\n${field.value}`);
      case 'image':
        return [block.image.title, block.image.text];
      case 'table':
        return [
          block.table.columns.map((c) => c.header),
          ...block.table.rows.map((row) =>
            row.map((cell) => (typeof cell === 'object' ? cellText(cell) : cell)),
          ),
        ].map((row) => row.join(' | '));
      default:
        return [];
    }
  });
  return texts
    .join('\n')
    .replace(/[\u200b\u2060]/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The answers to the requester, in order. */
export const answers = (records: readonly Recorded[]): Reply[] =>
  records.flatMap((record) => (record.kind === 'respond' ? [record.reply] : []));

/** The records of one answer, or a test failure naming what was recorded instead. */
export function onlyAnswer(records: readonly Recorded[]): Reply {
  const replies = answers(records);
  if (replies.length !== 1)
    throw new Error(
      `expected one answer, got ${replies.length}: ${JSON.stringify(records.map((r) => r.kind))}`,
    );
  return replies[0]!;
}

/** The words of every answer to the requester, one answer a line, to search. */
export const answered = (records: readonly Recorded[]): string => answers(records).map(wordsOf).join('\n');

/** The fields of a reply's field blocks, by label, as a transport shows them beside each other. */
export const fieldsOf = (reply: Reply): Map<string, string> =>
  new Map(
    reply.blocks.flatMap((block) =>
      block.type === 'fields' ? block.fields.map((field) => [field.label, String(field.value)] as const) : [],
    ),
  );

/** The header of a reply, when it has one. */
export const headerOf = (reply: Reply | undefined): string | undefined =>
  reply?.blocks.find((block) => block.type === 'header')?.text;

/** The posts among the records, in one channel when `channelId` is given. */
export const postsIn = (
  records: readonly Recorded[],
  channelId?: string,
): Extract<Recorded, { kind: 'post' }>[] =>
  records.filter(
    (record): record is Extract<Recorded, { kind: 'post' }> =>
      record.kind === 'post' && (channelId === undefined || record.channelId === channelId),
  );

/** The direct messages among the records, to one user when `userId` is given. */
export const dmsIn = (records: readonly Recorded[], userId?: string): Extract<Recorded, { kind: 'dm' }>[] =>
  records.filter(
    (record): record is Extract<Recorded, { kind: 'dm' }> =>
      record.kind === 'dm' && (userId === undefined || record.userId === userId),
  );

/**
 * A channel answer with a thread (a long job's): the one message it leaves at the top of the
 * channel, where its progress message, when it had one, is the same message, updated in place.
 * Fails naming what was recorded when there is no such answer, or more than one top-level message.
 */
export function headlineIn(records: readonly Recorded[]): Reply {
  const inChannel = answers(records).filter((reply) => reply.visibility === 'channel');
  if (inChannel.length !== 1)
    throw new Error(
      `expected one channel answer, got ${inChannel.length}: ${answered(records).slice(0, 300)}`,
    );
  const headline = inChannel[0]!;
  const place = headline.inPlaceOf;
  const others = postsIn(records).filter(
    (post) =>
      !post.threadTs && !(place && post.ref.channelId === place.channelId && post.ref.ts === place.ts),
  );
  if (others.length > 0) throw new Error(`${others.length} more message(s) at the top of the channel`);
  return headline;
}

/** The form the records opened, or a failure naming what was recorded instead. */
export function formIn(records: readonly Recorded[]): ModalSpec {
  const form = records.find((record) => record.kind === 'form');
  if (form?.kind !== 'form') throw new Error(`no form: ${JSON.stringify(records.map((r) => r.kind))}`);
  return form.modal;
}

/** Every file the records delivered, in replies and their threads. */
export const filesIn = (records: readonly Recorded[]): ReplyFile[] => {
  const of = (reply: Reply): ReplyFile[] => [...(reply.files ?? []), ...(reply.thread ?? []).flatMap(of)];
  return records.flatMap((record) => ('reply' in record ? of(record.reply) : []));
};

/** A delivered file's content as text. */
export const fileText = (file: ReplyFile): string =>
  typeof file.content === 'string' ? file.content : (file.content?.toString('utf8') ?? '');

/** Every button of a reply, in order. */
export const buttonsOf = (reply: Reply): ReplyButton[] =>
  reply.blocks.flatMap((block) => (block.type === 'actions' ? block.buttons : []));

/** The options of a reply's menus, each with the label of its group (the row it acts on). */
export const menuOptionsOf = (reply: Reply): (ReplyButton & { group: string })[] =>
  reply.blocks.flatMap((block) =>
    block.type === 'menu'
      ? block.groups.flatMap((group) => group.options.map((option) => ({ ...option, group: group.label })))
      : [],
  );

type Caller = {
  userId?: string;
  channelId?: string;
  threadTs?: string;
  /** The message a clicked button was on, in the caller's channel. */
  messageTs?: string;
};

export interface EngineTestbed {
  runtime: Runtime;
  config: Config;
  sandbox: Sandbox;
  clock: TestClock;
  /** Every log line the runtime wrote, for correlation ids. */
  logs: string[];
  /** The messages every request and the background work posted, as they show now. */
  board: MessageBoard;
  /**
   * What background work (the approval sweep, the watch poller) posts through. The poller is
   * not started: `runtime.watchPoller.start(bed.messenger)` does, and it then polls only when a
   * test calls `runtime.watchPoller.tick()`.
   */
  messenger: RecordingSurface;
  /** Runs `/edge TEXT` as the caller and returns what it recorded. */
  run(text: string, caller?: Caller): Promise<Recorded[]>;
  /** Clicks a button of a reply as the caller. */
  click(button: Pick<ReplyButton, 'actionId' | 'value'>, caller?: Caller): Promise<Recorded[]>;
  /**
   * Submits a form: field errors when it is refused, else what running it recorded (the form is
   * acknowledged first, as an adapter does).
   */
  submit(
    form: { callbackId: string; privateMetadata: string },
    values: ModalValues,
    caller?: Caller,
  ): Promise<{ errors: Record<string, string> } | { records: Recorded[] }>;
  /** Writes the policy file and loads it, as the bot does when the file changes. */
  setPolicy(yaml: string): void;
  close(): Promise<void>;
}

export async function startEngineTestbed(
  options: {
    policyYaml?: string;
    /** Points SERVICE_DATABASE_URL at the sandbox's database, with its full-access token and id. */
    serviceDatabase?: boolean;
    /** The members of each user group the policy names, as the workspace lists them. */
    groups?: Record<string, readonly string[]>;
    /** More environment, e.g. the watch limits. */
    env?: Record<string, string>;
    /** The chart picture's bound and font, e.g. no font, so that charts are their text bars. */
    charts?: RuntimeOptions['charts'];
    /** Keeps the bot's own state on the sandbox's remote libSQL server (its Hrana endpoint). */
    remoteState?: boolean;
  } = {},
): Promise<EngineTestbed> {
  const clock = pinnedClock();
  const sandbox = await startSandbox({ now: clock });
  const dir = mkdtempSync(join(tmpdir(), 'edgeops-engine-'));
  const policyPath = join(dir, 'policy.yml');
  if (options.policyYaml !== undefined) writeFileSync(policyPath, options.policyYaml);
  const config = loadConfig({
    ...sandboxEnv(sandbox, dir, {
      policyPath: options.policyYaml === undefined ? undefined : policyPath,
      serviceDatabase: options.serviceDatabase,
    }),
    ...(options.remoteState
      ? {
          STATE_DATABASE_URL: sandbox.databaseUrl,
          STATE_DATABASE_AUTH_TOKEN: sandbox.databaseTokens.fullAccess,
        }
      : {}),
    ...options.env,
  });
  if (options.serviceDatabase && config.serviceDatabase) config.serviceDatabase.id = sandbox.databaseId;
  const logs: string[] = [];
  const secrets = new SecretRegistry();
  const groups = options.groups ?? {};
  const runtime = await createRuntime({
    config,
    platform: config.platform!,
    secrets,
    logger: createLogger({ level: 'debug', secrets, clock, write: (line) => logs.push(line) }),
    now: clock,
    fetchGroupMembers: async (groupId) => groups[groupId] ?? [],
    charts: options.charts,
    // Never by itself on the real clock: tests move the pinned one and tick the poller.
    watchTickMs: 3_600_000,
    digestTickMs: 3_600_000,
  });
  forgetKeptDaysOnKnobs(sandbox, runtime.services.keptDays);
  const board = messageBoard();
  const surfaceFor = (caller: Caller) =>
    recordingSurface({
      board,
      ...(caller.messageTs
        ? { clicked: { channelId: caller.channelId ?? 'C0OPS', ts: caller.messageTs } }
        : {}),
    });
  return {
    runtime,
    config,
    sandbox,
    clock,
    logs,
    board,
    messenger: recordingSurface({ board }),
    async run(text, caller = {}) {
      const surface = surfaceFor(caller);
      const plan = runtime.engine.plan({
        userId: caller.userId ?? 'U0YOU',
        channelId: caller.channelId ?? 'C0OPS',
        ...(caller.threadTs ? { threadTs: caller.threadTs } : {}),
        text,
        surface,
      });
      await plan.run();
      return surface.records;
    },
    async click(button, caller = {}) {
      const surface = surfaceFor(caller);
      const plan = runtime.engine.plan({
        userId: caller.userId ?? 'U0YOU',
        channelId: caller.channelId ?? 'C0OPS',
        ...(caller.threadTs ? { threadTs: caller.threadTs } : {}),
        actionId: button.actionId,
        value: button.value,
        surface,
      });
      await plan.run();
      return surface.records;
    },
    async submit(form, values, caller = {}) {
      const surface = surfaceFor(caller);
      const checked = await runtime.engine.submit({
        userId: caller.userId ?? 'U0YOU',
        channelId: caller.channelId ?? 'C0OPS',
        ...(caller.threadTs ? { threadTs: caller.threadTs } : {}),
        callbackId: form.callbackId,
        privateMetadata: form.privateMetadata,
        values,
        surface,
      });
      if ('errors' in checked) return { errors: checked.errors };
      await checked.run();
      return { records: surface.records };
    },
    setPolicy(yaml) {
      if (options.policyYaml === undefined) throw new Error('start the testbed with a policy to change it');
      writeFileSync(policyPath, yaml);
      if (!runtime.policies.reload()) throw new Error('the policy did not load');
    },
    async close() {
      await runtime.close();
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Another replica of a testbed's bot: its own runtime on the same state database, sandbox and clock. */
export interface EngineReplica {
  runtime: Runtime;
  /** What its background work posts through, onto the testbed's board. */
  messenger: RecordingSurface;
  close(): Promise<void>;
}

export async function startReplica(bed: EngineTestbed): Promise<EngineReplica> {
  const secrets = new SecretRegistry();
  const dir = mkdtempSync(join(tmpdir(), 'edgeops-replica-'));
  const runtime = await createRuntime({
    // Its own kept days, as on another host.
    config: { ...bed.config, logCache: { ...bed.config.logCache, dir: join(dir, 'log-cache') } },
    platform: bed.config.platform!,
    secrets,
    logger: createLogger({ level: 'debug', secrets, clock: bed.clock, write: (line) => bed.logs.push(line) }),
    now: bed.clock,
    watchTickMs: 3_600_000,
    digestTickMs: 3_600_000,
  });
  forgetKeptDaysOnKnobs(bed.sandbox, runtime.services.keptDays);
  return {
    runtime,
    messenger: recordingSurface({ board: bed.board }),
    async close() {
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
