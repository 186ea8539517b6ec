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
 */
import type { Readable, Writable } from 'node:stream';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger, SecretRegistry } from '../log.js';
import {
  createDemoPolicy,
  DEMO_APPROVALS_CHANNEL,
  DEMO_APPROVER_IDS,
  DEMO_USER_ID,
} from '../policy/defaults.js';
import { createRuntime, type Runtime } from '../runtime.js';
import { type ConsoleBackends, prepareConsoleBackends } from './backends.js';
import { createMessageBook } from './book.js';
import { DEFAULT_CONSOLE_LOG_FILE, openConsoleLog } from './log-file.js';
import { createOutFiles } from './out-files.js';
import { createConsoleSession } from './session.js';
import { createStyle, type Style, wantsColour } from './style.js';
import { type ConsoleScreen, createConsoleSurface } from './surface.js';
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

function banner(options: {
  style: Style;
  backends: ConsoleBackends;
  runtime: Runtime;
  policyFile: boolean;
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
  let runtime: Runtime;
  try {
    backends = await prepareConsoleBackends({ config, secrets, logger, now: options.now });
    runtime = await createRuntime({
      config: backends.config,
      platform: backends.platform,
      secrets,
      logger,
      fallbackPolicy: createDemoPolicy(),
      now: options.now,
    });
  } catch (error) {
    options.logger.error('the console could not start', { error });
    await backends?.close().catch(() => undefined);
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
      logWhere: log.where,
      outDir: outDir.replace(/\/+$/, ''),
    }),
  );
  // Expiry and crash recovery update cards outside any command; they print like any message.
  await runtime.startBackground(createConsoleSurface(screen, { userId: '', channelId: CONSOLE_CHANNEL_ID }));
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
    logger.info('console session ended');
    log.close();
  }
}
