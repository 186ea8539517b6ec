/**
 * Drives a console session the way a person would, over in-memory streams: lines go in,
 * the conversation comes out as text. `startConsole` is the whole product in process, composed
 * as main.ts composes console mode (the sandbox and a temporary state database); `startSession`
 * runs the console's loop over the
 * real runtime with extra operations, for behaviour no shipped operation shows yet.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { loadConfig } from '../../src/config.js';
import { prepareConsoleBackends } from '../../src/console/backends.js';
import { createMessageBook } from '../../src/console/book.js';
import { openConsoleLog } from '../../src/console/log-file.js';
import { createOutFiles } from '../../src/console/out-files.js';
import { CONSOLE_CHANNEL_ID, runConsole } from '../../src/console/run.js';
import { createConsoleSession } from '../../src/console/session.js';
import { createStyle } from '../../src/console/style.js';
import { createTerminal } from '../../src/console/terminal.js';
import { createEngine } from '../../src/operations/engine/engine.js';
import type { AnyOperation } from '../../src/operations/engine/types.js';
import { operations as shipped } from '../../src/operations/registry.js';
import { channelDefaults } from '../../src/operations/zones/defaults.js';
import { suggestZones } from '../../src/operations/zones/suggest.js';
import { createDemoPolicy } from '../../src/policy/defaults.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { createLogger } from '../../src/telemetry/log.js';
import { pinnedClock, type TestClock } from '../support/clock.js';

/** The prompt that ends every answer: `edge> `, or `edge(U0LEAD)> ` after `:as`, `edge(#C0INCIDENT)> ` after `:in`. */
const PROMPT_AT_END = /edge(\([A-Z0-9# ]+\))?> $/;

export interface ConsoleDriver {
  dir: string;
  outDir: string;
  /** Everything printed so far. */
  text(): string;
  /** Types lines and returns what was printed (their echoes and answers) until the next prompt. */
  type(...lines: string[]): Promise<string>;
  /** Types a line without waiting for an answer. */
  send(line: string): void;
  /** Presses keys, without Enter: `\x03` is Ctrl-C at an interactive console. */
  press(keys: string): void;
  /** Waits until the output after `from` matches; resolves with that output. */
  waitFor(pattern: RegExp, from?: number, timeoutMs?: number): Promise<string>;
  /** Closes the input (Ctrl-D) and waits for the session to end. */
  end(): Promise<void>;
  /** Resolves when the session returns. */
  done: Promise<void>;
  remove(): void;
}

function drive(dir: string, input: PassThrough, output: PassThrough, run: () => Promise<void>) {
  let printed = '';
  const watchers = new Set<() => void>();
  output.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
    for (const watcher of watchers) watcher();
  });
  const done = run();

  function waitFor(pattern: RegExp, from = 0, timeoutMs = 10_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const seen = printed.slice(from);
        if (!pattern.test(seen)) return false;
        watchers.delete(watcher);
        clearTimeout(timer);
        resolve(seen);
        return true;
      };
      const watcher = () => void check();
      const timer = setTimeout(() => {
        watchers.delete(watcher);
        reject(new Error(`timed out waiting for ${pattern}; output so far:\n${printed.slice(from)}`));
      }, timeoutMs);
      if (!check()) watchers.add(watcher);
    });
  }

  const driver: ConsoleDriver = {
    dir,
    outDir: join(dir, 'out'),
    text: () => printed,
    type(...lines) {
      const from = printed.length;
      // Lines written together are queued together, so the next prompt at the end of the
      // output comes only after the last of them has been answered.
      input.write(lines.map((line) => `${line}\n`).join(''));
      return waitFor(PROMPT_AT_END, from);
    },
    send: (line) => input.write(`${line}\n`),
    press: (keys) => input.write(keys),
    waitFor,
    async end() {
      input.end();
      await done;
    },
    done,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
  return driver;
}

export type WholeConsoleDriver = ConsoleDriver & {
  logFile: string;
  secrets: SecretRegistry;
  runtime: Runtime;
  /** The built-in sandbox the console started, unless the environment names a platform. */
  sandbox: Sandbox | undefined;
};

/**
 * The console as main.ts composes it: its backends (the sandbox unless the environment names a
 * platform), a runtime with the demo policy logging to the session's file, the session, and
 * everything closed in main's order once it ends.
 */
export async function startConsole(
  options: {
    env?: Record<string, string>;
    clock?: TestClock;
    /** A person at a TTY: readline in terminal mode, so Ctrl-C (`\x03`) interrupts. */
    interactive?: boolean;
    /** The system's temporary folder while the console starts, where it makes its own. */
    tmpDir?: string;
  } = {},
): Promise<WholeConsoleDriver> {
  const dir = mkdtempSync(join(tmpdir(), 'edgeops-console-'));
  const input = new PassThrough();
  const output = new PassThrough();
  const secrets = new SecretRegistry();
  const now = options.clock ?? pinnedClock();
  // A policy file in the working directory of the test run must not count; EDGEOPS_POLICY does.
  const config = loadConfig(
    { STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`, ...options.env },
    (path) => path !== 'edgeops.policy.yml' && existsSync(path),
  );
  const logFile = join(dir, 'edgeops-console.log');
  let started: { runtime: Runtime; sandbox: Sandbox | undefined } | undefined;
  const driver = drive(dir, input, output, async () => {
    const log = openConsoleLog({ clock: now, path: logFile, level: config.logLevel, secrets, cwd: dir });
    log.logger.info('edgeops starting in console mode', { mode: 'console' });
    const backends = await withTmpDir(options.tmpDir, () =>
      prepareConsoleBackends({ config, secrets, logger: log.logger, now }),
    );
    const runtime = await createRuntime({
      config: backends.config,
      platform: backends.platform,
      secrets,
      logger: log.logger,
      fallbackPolicy: createDemoPolicy(),
      now,
    });
    started = { runtime, sandbox: backends.sandbox };
    try {
      await runConsole({
        runtime,
        backends,
        log,
        secrets,
        policyFile: config.policyPath !== undefined,
        input,
        output,
        outDir: join(dir, 'out'),
        cwd: dir,
        env: {},
        interactive: options.interactive,
      });
    } finally {
      await runtime.close();
      await backends.close();
      log.close();
    }
  });
  await driver.waitFor(options.interactive ? /edge> / : PROMPT_AT_END);
  if (!started) throw new Error('the console showed its prompt before its runtime was built');
  return { ...driver, logFile, secrets, ...started };
}

/** Runs `start` with the system's temporary folder at `dir` (TMPDIR), as a process started there would. */
async function withTmpDir<T>(dir: string | undefined, start: () => Promise<T>): Promise<T> {
  if (dir === undefined) return start();
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await start();
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  }
}

/**
 * The console loop over the real runtime (demo policy, state, audit) with the shipped
 * operations and `extra` ones. Nothing here calls the platform.
 */
export async function startSession(
  extra: AnyOperation[],
  options: { interactive?: boolean; clock?: TestClock } = {},
): Promise<ConsoleDriver & { runtime: Runtime }> {
  const clock = options.clock ?? pinnedClock();
  const dir = mkdtempSync(join(tmpdir(), 'edgeops-console-'));
  const input = new PassThrough();
  const output = new PassThrough();
  const secrets = new SecretRegistry();
  const logger = createLogger({ clock: pinnedClock(), level: 'error', secrets, write: () => {} });
  const config = loadConfig({ STATE_DATABASE_URL: `file:${join(dir, 'state.db')}` }, () => false);
  const runtime = await createRuntime({
    config,
    platform: {
      apiUrl: 'http://127.0.0.1:9',
      apiKey: 'no-platform-in-these-tests',
      loggingUrl: 'http://127.0.0.1:9/logging',
      databaseApiUrl: 'http://127.0.0.1:9/database',
    },
    secrets,
    logger,
    fallbackPolicy: createDemoPolicy(),
    now: clock,
  });
  const engine = createEngine({
    operations: [...shipped, ...extra],
    services: runtime.services,
    authorizer: runtime.authorizer,
    channelDefaults,
    suggestZones: (input) =>
      suggestZones({ authorizer: runtime.authorizer, services: runtime.services }, input),
  });
  const terminal = createTerminal({ input, output, interactive: options.interactive });
  const session = createConsoleSession({
    engine,
    jobs: runtime.services.jobs,
    terminal,
    screen: {
      terminal,
      style: createStyle(false),
      book: createMessageBook({ now: clock }),
      files: createOutFiles({ dir: 'out', cwd: dir }),
      logger,
      secrets,
      forms: [],
    },
    now: clock,
    userId: 'U0YOU',
    channelId: CONSOLE_CHANNEL_ID,
  });
  const driver = drive(dir, input, output, async () => {
    try {
      await session.run();
    } finally {
      terminal.close();
      await runtime.close();
    }
  });
  // An interactive prompt ends in cursor movements rather than the prompt text.
  await driver.waitFor(options.interactive ? /edge> / : PROMPT_AT_END);
  return { ...driver, runtime };
}
