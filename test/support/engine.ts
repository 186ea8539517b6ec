/**
 * The fast tier: the real runtime and engine against the sandbox over HTTP and a temporary state
 * database, with no Slack at all. A recording surface keeps every Reply the engine produces, so
 * tests assert on replies as values; test/slack/ checks what only a transport shows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import type { Surface } from '../../src/operations/engine/ports.js';
import type { MessageRef } from '../../src/operations/engine/types.js';
import type { ModalSpec, ModalValues } from '../../src/reply/form.js';
import type { Reply, ReplyButton } from '../../src/reply/model.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { createLogger } from '../../src/telemetry/log.js';
import { pinnedClock, type TestClock } from './clock.js';
import { sandboxEnv } from './sandbox-env.js';

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

export function recordingSurface(): RecordingSurface {
  const records: Recorded[] = [];
  let ts = 0;
  return {
    records,
    async respond(reply) {
      records.push({ kind: 'respond', reply });
      return undefined;
    },
    async postToChannel(channelId, reply, threadTs) {
      const ref = { channelId, ts: `1700000000.${String(++ts).padStart(6, '0')}` };
      records.push({ kind: 'post', channelId, reply, ref, ...(threadTs ? { threadTs } : {}) });
      return ref;
    },
    async permalink(ref) {
      return `https://example.slack.com/archives/${ref.channelId}/p${ref.ts.replace('.', '')}`;
    },
    async update(ref, reply) {
      records.push({ kind: 'update', ref, reply });
    },
    async sendDirect(userId, reply) {
      const ref = { channelId: `D${userId}`, ts: `1700000000.${String(++ts).padStart(6, '0')}` };
      records.push({ kind: 'dm', userId, reply, ref });
      return ref;
    },
    async deleteMessage(ref) {
      records.push({ kind: 'delete', ref });
    },
    async openModal(modal) {
      records.push({ kind: 'form', modal });
    },
    async openPanel(panel) {
      records.push({ kind: 'panel', ...panel });
    },
  };
}

/** A reply's words, blocks included, as one string to search. */
export const wordsOf = (reply: Reply): string => JSON.stringify([reply.text, reply.blocks]);

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

/** Every button of a reply, in order. */
export const buttonsOf = (reply: Reply): ReplyButton[] =>
  reply.blocks.flatMap((block) => (block.type === 'actions' ? block.buttons : []));

type Caller = { userId?: string; channelId?: string; threadTs?: string };

export interface EngineTestbed {
  runtime: Runtime;
  sandbox: Sandbox;
  clock: TestClock;
  /** Every log line the runtime wrote, for correlation ids. */
  logs: string[];
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
  });
  if (options.serviceDatabase && config.serviceDatabase) config.serviceDatabase.id = sandbox.databaseId;
  const logs: string[] = [];
  const secrets = new SecretRegistry();
  const runtime = await createRuntime({
    config,
    platform: config.platform!,
    secrets,
    logger: createLogger({ level: 'debug', secrets, clock, write: (line) => logs.push(line) }),
    now: clock,
  });
  return {
    runtime,
    sandbox,
    clock,
    logs,
    async run(text, caller = {}) {
      const surface = recordingSurface();
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
      const surface = recordingSurface();
      const plan = runtime.engine.plan({
        userId: caller.userId ?? 'U0YOU',
        channelId: caller.channelId ?? 'C0OPS',
        actionId: button.actionId,
        value: button.value,
        surface,
      });
      await plan.run();
      return surface.records;
    },
    async submit(form, values, caller = {}) {
      const surface = recordingSurface();
      const checked = await runtime.engine.submit({
        userId: caller.userId ?? 'U0YOU',
        channelId: caller.channelId ?? 'C0OPS',
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
