/**
 * Console mode (PRODUCT §1): the bot in a terminal, like Hubot's shell adapter. The same
 * runtime as under Slack (policy, audit, approvals, state), against PLATFORM_API_URL or the
 * built-in sandbox started in this process.
 *
 * - You are U0YOU in channel C0CONSOLE; `:as USER_ID` switches user (the prompt then says who),
 *   so a request can be approved as U0LEAD. DMs are shown as going to channel `D` + user id.
 * - `/edge …` runs a command; the prefix may be left out (`dns`), other slash commands are refused.
 * - Buttons are numbered across the session; `:click N` presses one as the current user. A
 *   message only one user sees (ephemeral, DM) can only be clicked as that user.
 * - Forms are asked field by field after the command; `:cancel` leaves one.
 * - Log lines go to data/edgeops-console.log (stderr at warn level when it cannot be opened);
 *   stdout carries only the conversation. Files go to ./out.
 * - Against the built-in sandbox each session gets a fresh state database (unless
 *   STATE_DATABASE_URL is set), since the sandbox itself starts afresh: a request left pending
 *   by an earlier session would only lock its target. Otherwise the state persists (its audit
 *   chain records real changes), and pending requests are shown again with their buttons.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Config } from '../config.js';
import {
  createDemoPolicy,
  DEMO_APPROVALS_CHANNEL,
  DEMO_APPROVER_IDS,
  DEMO_USER_ID,
} from '../policy/defaults.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import type { Logger, SecretRegistry } from '../telemetry/log.js';
import type { Clock } from '../time/clock.js';
import { type ConsoleBackends, prepareConsoleBackends } from './backends.js';
import { createMessageBook } from './book.js';
import { DEFAULT_CONSOLE_LOG_FILE, openConsoleLog } from './log-file.js';
import { createOutFiles } from './out-files.js';
import { createConsoleSession } from './session.js';
import { createStyle, type Style, wantsColour } from './style.js';
import { type ConsoleScreen, createConsoleMessenger } from './surface.js';
import { createTerminal } from './terminal.js';

/** The channel console commands are typed in; policies can name it like any Slack channel. */
export const CONSOLE_CHANNEL_ID = 'C0CONSOLE';
export const DEFAULT_OUT_DIR = 'out';

export interface ConsoleOptions {
  config: Config;
  secrets: SecretRegistry;
  /** The process logger: only start-up failures go to it; the session logs to its own file. */
  logger: Logger;
  /** process.stdin by default. */
  input?: Readable;
  /** process.stdout by default; only the conversation is written here. */
  output?: Writable & { isTTY?: boolean; columns?: number };
  /** Where reply files are written; `out` under the working directory by default. */
  outDir?: string;
  /** The log file; data/edgeops-console.log under the working directory by default. */
  logFile?: string;
  /** For NO_COLOR; process.env by default. */
  env?: Record<string, string | undefined>;
  /** Relative paths are resolved against it; process.cwd() by default. */
  cwd?: string;
  /** A person at a TTY (line editing, Ctrl-C); by default whether input and output are TTYs. */
  interactive?: boolean;
  /** The clock of the bot and of the sandbox it starts; main passes the system clock. */
  now: Clock;
}

/** Where the session keeps its state: the configured database, or a fresh one it removes at the end. */
interface SessionState {
  config: Config;
  fresh: boolean;
  remove(): void;
}

function sessionState(config: Config, againstSandbox: boolean): SessionState {
  if (!againstSandbox || config.stateDatabase.fromEnvironment)
    return { config, fresh: false, remove: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'edgeops-console-state-'));
  return {
    config: { ...config, stateDatabase: { ...config.stateDatabase, url: `file:${join(dir, 'edgeops.db')}` } },
    fresh: true,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function banner(options: {
  style: Style;
  backends: ConsoleBackends;
  runtime: Runtime;
  policyFile: boolean;
  freshState: boolean;
  logWhere: string;
  outDir: string;
}): string {
  const { style, backends, runtime } = options;
  const you = `You are ${DEMO_USER_ID} in #${CONSOLE_CHANNEL_ID}`;
  const policy = options.policyFile
    ? `Policy: ${runtime.policies.source}. ${you}; :as USER_ID acts as someone else.`
    : `Policy: the console demo policy. ${you}; ${DEMO_APPROVER_IDS.join(' and ')} approve (:as ${DEMO_APPROVER_IDS[0]}), and requests are posted in #${DEMO_APPROVALS_CHANNEL}.`;
  return [
    style.bold('edgeops console: /edge in your terminal (no Slack credentials are set)'),
    ...backends.notes,
    options.freshState
      ? 'State: a fresh state database for this session, removed at the end (set STATE_DATABASE_URL to keep one).'
      : 'State: the state database persists; requests still waiting from earlier sessions are shown again.',
    policy,
    `Log lines go to ${options.logWhere}; files go to ${options.outDir}/.`,
    `Type /edge help (the /edge prefix is optional), :help for console commands, :quit to leave.`,
  ].join('\n');
}

export async function runConsole(options: ConsoleOptions): Promise<void> {
  const { config, secrets } = options;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const log = openConsoleLog({
    clock: options.now,
    path: options.logFile ?? DEFAULT_CONSOLE_LOG_FILE,
    level: config.logLevel,
    secrets,
    cwd,
  });
  const logger = log.logger;
  logger.info('edgeops starting in console mode', { mode: 'console' });

  let backends: ConsoleBackends | undefined;
  let state: SessionState | undefined;
  let runtime: Runtime;
  try {
    backends = await prepareConsoleBackends({ config, secrets, logger, now: options.now });
    state = sessionState(backends.config, backends.sandbox !== undefined);
    runtime = await createRuntime({
      config: state.config,
      platform: backends.platform,
      secrets,
      logger,
      fallbackPolicy: createDemoPolicy(),
      now: options.now,
    });
  } catch (error) {
    options.logger.error('the console could not start', { error });
    await backends?.close().catch(() => undefined);
    state?.remove();
    log.close();
    throw error;
  }

  const style = createStyle(wantsColour(output, env));
  const terminal = createTerminal({ input, output, interactive: options.interactive });
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  const screen: ConsoleScreen = {
    terminal,
    style,
    book: createMessageBook({ now: runtime.services.now }),
    files: createOutFiles({ dir: outDir, cwd }),
    logger,
    secrets,
    forms: [],
  };
  terminal.print(
    banner({
      style,
      backends,
      runtime,
      policyFile: config.policyPath !== undefined,
      freshState: state.fresh,
      logWhere: log.where,
      outDir: outDir.replace(/\/+$/, ''),
    }),
  );
  // Expiry and crash recovery update cards outside any command; they print like any message.
  const background = createConsoleMessenger(screen);
  await runtime.startBackground(background);
  if (!state.fresh) {
    // Their buttons went with the session that showed them: show them again, clickable.
    const pending = await runtime.approvals.showPending(background).catch((error: unknown) => {
      logger.error('pending approval requests could not be shown', { error });
      return 0;
    });
    if (pending > 0)
      terminal.print(
        style.dim(
          pending === 1
            ? '1 approval request is still waiting; its card is shown again above.'
            : `${pending} approval requests are still waiting; their cards are shown again above.`,
        ),
      );
  }
  const session = createConsoleSession({
    engine: runtime.engine,
    terminal,
    screen,
    now: runtime.services.now,
    userId: DEMO_USER_ID,
    channelId: CONSOLE_CHANNEL_ID,
  });
  try {
    await session.run();
    terminal.print(style.dim('Bye.'));
  } finally {
    terminal.close();
    await runtime.close().catch((error: unknown) => logger.error('closing the runtime failed', { error }));
    await backends.close().catch((error: unknown) => logger.error('closing the sandbox failed', { error }));
    state.remove();
    logger.info('console session ended');
    log.close();
  }
}
