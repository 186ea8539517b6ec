/**
 * The fast tier: the real runtime and engine against the sandbox over HTTP and a temporary state
 * database, with no Slack at all. A recording surface keeps every Reply the engine produces, so
 * tests assert on replies as values; test/slack/ checks what only a transport shows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createLogger, SecretRegistry } from '../../src/log.js';
import type { ModalSpec } from '../../src/operations/modal.js';
import type { MessageRef, Surface } from '../../src/operations/types.js';
import type { Reply } from '../../src/reply/model.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pinnedClock, type TestClock } from './clock.js';

/** One thing the engine did through the surface. */
export type Recorded =
  | { kind: 'respond'; reply: Reply }
  | { kind: 'post'; channelId: string; reply: Reply; ref: MessageRef }
  | { kind: 'update'; ref: MessageRef; reply: Reply }
  | { kind: 'dm'; userId: string; reply: Reply }
  | { kind: 'form'; modal: ModalSpec };

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
    async postToChannel(channelId, reply) {
      const ref = { channelId, ts: `1700000000.${String(++ts).padStart(6, '0')}` };
      records.push({ kind: 'post', channelId, reply, ref });
      return ref;
    },
    async update(ref, reply) {
      records.push({ kind: 'update', ref, reply });
    },
    async sendDirect(userId, reply) {
      records.push({ kind: 'dm', userId, reply });
    },
    async openModal(modal) {
      records.push({ kind: 'form', modal });
    },
  };
}

/** A reply's words, blocks included, as one string to search. */
export const wordsOf = (reply: Reply): string => JSON.stringify([reply.text, reply.blocks]);

/** The answers to the requester, in order. */
export const answers = (records: readonly Recorded[]): Reply[] =>
  records.flatMap((record) => (record.kind === 'respond' ? [record.reply] : []));

export interface EngineTestbed {
  runtime: Runtime;
  sandbox: Sandbox;
  clock: TestClock;
  /** Runs `/edge TEXT` as the caller and returns what it recorded. */
  run(text: string, caller?: { userId?: string; channelId?: string }): Promise<Recorded[]>;
  close(): Promise<void>;
}

export async function startEngineTestbed(options: { policyYaml?: string } = {}): Promise<EngineTestbed> {
  const clock = pinnedClock();
  const sandbox = await startSandbox({ now: clock });
  const dir = mkdtempSync(join(tmpdir(), 'edgeops-engine-'));
  let policyPath: string | undefined;
  if (options.policyYaml !== undefined) {
    policyPath = join(dir, 'policy.yml');
    writeFileSync(policyPath, options.policyYaml);
  }
  const config = loadConfig({
    PLATFORM_API_URL: sandbox.apiUrl,
    PLATFORM_API_KEY: sandbox.apiKey,
    PLATFORM_LOGGING_URL: sandbox.loggingUrl,
    PLATFORM_DATABASE_API_URL: sandbox.databaseApiUrl,
    STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
    ...(policyPath ? { EDGEOPS_POLICY: policyPath } : {}),
  });
  const secrets = new SecretRegistry();
  const runtime = await createRuntime({
    config,
    platform: config.platform!,
    secrets,
    logger: createLogger({ level: 'warn', secrets, clock, write: () => undefined }),
    now: clock,
  });
  return {
    runtime,
    sandbox,
    clock,
    async run(text, caller = {}) {
      const surface = recordingSurface();
      await runtime.engine.command({
        userId: caller.userId ?? 'U0YOU',
        channelId: caller.channelId ?? 'C0OPS',
        text,
        surface,
      });
      return surface.records;
    },
    async close() {
      await runtime.close();
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
