/**
 * Console mode (PRODUCT §1): the bot in a terminal, like Hubot's shell adapter. The same
 * runtime as under Slack (policy, audit, approvals, state), which main.ts builds against
 * PLATFORM_API_URL or the built-in sandbox (backends.ts) and hands in; this runs the session.
 *
 * - You are U0YOU in channel C0CONSOLE; `:as USER_ID` switches user (the prompt then says who),
 *   so a request can be approved as U0LEAD. DMs are shown as going to channel `D` + user id.
 * - `/edge …` runs a command; the prefix may be left out (`dns`), other slash commands are refused.
 * - Buttons are numbered across the session; `:click N` presses one as the current user. A
 *   message only one user sees (ephemeral, DM) can only be clicked as that user.
 * - Forms are asked field by field after the command; `:cancel` leaves one.
 * - Ctrl-C clears the line, leaves a form, and cancels the long jobs of a command running; on an
 *   empty line it says how to leave, and a second leaves (session/interrupt.ts).
 * - Log lines go to data/edgeops-console.log (stderr at warn level when it cannot be opened);
 *   stdout carries only the conversation. Files go to ./out.
 * - With a state database that outlives the session (not the sandbox's fresh one), pending
 *   requests are shown again with their buttons.
 */
import type { Readable, Writable } from 'node:stream';
import type { Engine } from '../operations/engine/engine.js';
import type { JobRegistry } from '../operations/engine/jobs.js';
import type { Messenger } from '../operations/engine/ports.js';
import { DEMO_APPROVALS_CHANNEL, DEMO_APPROVER_IDS, DEMO_USER_ID } from '../policy/defaults.js';
import type { SecretRegistry } from '../secrets/registry.js';
import type { Clock } from '../time/clock.js';
import type { ConsoleBackends } from './backends.js';
import { createMessageBook } from './book.js';
import type { ConsoleLog } from './log-file.js';
import { createOutFiles } from './out-files.js';
import { createConsoleSession } from './session.js';
import { createStyle, type Style, wantsColour } from './style.js';
import { type ConsoleScreen, createConsoleMessenger } from './surface.js';
import { createTerminal } from './terminal.js';

/** The channel console commands are typed in; policies can name it like any Slack channel. */
export const CONSOLE_CHANNEL_ID = 'C0CONSOLE';
export const DEFAULT_OUT_DIR = 'out';

/** What the session runs on: the runtime main.ts built, as under Slack. */
export interface ConsoleRuntime {
  engine: Engine;
  services: { now: Clock; jobs: Pick<JobRegistry, 'running'> };
  policies: { source: string };
  approvals: { showPending(messenger: Messenger): Promise<number> };
  /** Starts the approval sweep and the watches with a messenger that prints. */
  startBackground(messenger: Messenger): Promise<void>;
}

export interface ConsoleOptions {
  /** Built by main.ts against `backends`, and closed there once the session ends. */
  runtime: ConsoleRuntime;
  /** What the runtime works against, as the banner says it. */
  backends: Pick<ConsoleBackends, 'notes' | 'freshState'>;
  /** The session's log, which the runtime writes to as well. */
  log: Pick<ConsoleLog, 'logger' | 'where'>;
  secrets: SecretRegistry;
  /** EDGEOPS_POLICY names a file; otherwise the runtime has the console demo policy. */
  policyFile: boolean;
  /** process.stdin by default. */
  input?: Readable;
  /** process.stdout by default; only the conversation is written here. */
  output?: Writable & { isTTY?: boolean; columns?: number };
  /** Where reply files are written; `out` under the working directory by default. */
  outDir?: string;
  /** For NO_COLOR; process.env by default. */
  env?: Record<string, string | undefined>;
  /** Relative paths are resolved against it; process.cwd() by default. */
  cwd?: string;
  /** A person at a TTY (line editing, Ctrl-C); by default whether input and output are TTYs. */
  interactive?: boolean;
  /** Aborted on SIGTERM: the session ends as if the input had, its long jobs cancelled. */
  stop?: AbortSignal;
}

function banner(options: {
  style: Style;
  backends: ConsoleOptions['backends'];
  runtime: ConsoleRuntime;
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
    backends.freshState
      ? 'State: a fresh state database for this session, removed at the end (set STATE_DATABASE_URL to keep one).'
      : 'State: the state database persists; requests still waiting from earlier sessions are shown again.',
    policy,
    `Log lines go to ${options.logWhere}; files go to ${options.outDir}/.`,
    `Type /edge help (the /edge prefix is optional), :help for console commands, :quit to leave.`,
  ].join('\n');
}

export async function runConsole(options: ConsoleOptions): Promise<void> {
  const { runtime, backends, secrets } = options;
  const { logger } = options.log;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const style = createStyle(wantsColour(output, env));
  const terminal = createTerminal({ input, output, interactive: options.interactive });
  try {
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
        policyFile: options.policyFile,
        logWhere: options.log.where,
        outDir: outDir.replace(/\/+$/, ''),
      }),
    );
    // Expiry and crash recovery update cards outside any command; they print like any message.
    const background = createConsoleMessenger(screen);
    await runtime.startBackground(background);
    if (!backends.freshState) {
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
      jobs: runtime.services.jobs,
      terminal,
      screen,
      now: runtime.services.now,
      userId: DEMO_USER_ID,
      channelId: CONSOLE_CHANNEL_ID,
    });
    const stop = () => session.stop();
    if (options.stop?.aborted) stop();
    options.stop?.addEventListener('abort', stop, { once: true });
    try {
      await session.run();
    } finally {
      options.stop?.removeEventListener('abort', stop);
    }
    terminal.print(style.dim('Bye.'));
  } finally {
    terminal.close();
  }
}
