/**
 * The console's read–run loop: `/edge …` lines go to the engine as commands, `:click N` as
 * button actions, forms opened on the way are asked field by field and submitted. Everything
 * runs through the same engine (policy, audit, approvals, state) as Slack. Each part is a file
 * of session/, working on the state passed in (session/state.ts).
 */
import type { Engine } from '../operations/engine/engine.js';
import type { JobRegistry } from '../operations/engine/jobs.js';
import { click } from './session/click.js';
import { consoleCommand, fillOpenForms } from './session/commands.js';
import { interrupt } from './session/interrupt.js';
import { fail, inForeground, type SessionState } from './session/state.js';
import { type ConsoleScreen, createConsoleSurface } from './surface.js';
import type { Terminal } from './terminal.js';

export interface ConsoleSessionOptions {
  engine: Engine;
  /** The runtime's long jobs: Ctrl-C cancels those of the command running. */
  jobs: Pick<JobRegistry, 'running'>;
  terminal: Terminal;
  screen: ConsoleScreen;
  now: () => number;
  /** Who is at the keyboard at the start (and where `:as` without a switch leads back). */
  userId: string;
  /** The channel commands are typed in. */
  channelId: string;
}

export interface ConsoleSession {
  /** Reads and runs lines until `:quit` or the end of input; returns once all work is done. */
  run(): Promise<void>;
  /**
   * Ends the session as if the input had ended, its long jobs cancelled (SIGTERM); run() returns
   * once the work under way has ended.
   */
  stop(): void;
}

/** The /edge text of a command line, or an error for other slash commands. */
export function commandText(line: string): { ok: true; text: string } | { ok: false; error: string } {
  const match = /^\/edge(?:\s+|$)(.*)$/is.exec(line);
  if (match) return { ok: true, text: match[1] ?? '' };
  if (line.startsWith('/'))
    return { ok: false, error: `Only /edge is known here, not ${line.split(/\s/)[0]}. Type /edge help.` };
  return { ok: true, text: line };
}

/** `edge> `, or who and where when either is not the start's: `edge(U0LEAD #C0INCIDENT)> `. */
function prompt(state: SessionState): string {
  const who = state.userId === state.start.userId ? '' : state.userId;
  const where = state.channelId === state.start.channelId ? '' : `#${state.channelId}`;
  return state.screen.style.bold(
    who || where ? `edge(${[who, where].filter(Boolean).join(' ')})> ` : 'edge> ',
  );
}

/** Runs one typed line; true means leave. */
async function handle(state: SessionState, line: string): Promise<boolean> {
  const text = line.trim();
  if (text === '') return false;
  if (text.startsWith(':')) return consoleCommand(state, text);
  const command = commandText(text);
  if (!command.ok) {
    fail(state, command.error);
    return false;
  }
  const { userId, channelId } = state;
  const plan = state.engine.plan({
    text: command.text,
    userId,
    channelId,
    surface: createConsoleSurface(state.screen, { userId, channelId }),
  });
  await inForeground(state, channelId, () => plan.run());
  await fillOpenForms(state);
  return state.leaving;
}

export function createConsoleSession(options: ConsoleSessionOptions): ConsoleSession {
  const { terminal, screen } = options;
  const { logger } = screen;
  const state: SessionState = {
    engine: options.engine,
    jobs: options.jobs,
    terminal,
    screen,
    now: options.now,
    start: { userId: options.userId, channelId: options.channelId },
    userId: options.userId,
    channelId: options.channelId,
    inForm: false,
    leaving: false,
    inflight: new Set(),
    hinted: false,
  };

  terminal.onInterrupt((pressed) => interrupt(state, pressed));

  return {
    async run() {
      if (terminal.interactive)
        // A person may press a button (a progress message's Cancel) while a command still runs.
        terminal.intercept((line) => {
          if (state.inflight.size === 0 || state.inForm || !/^:click\s/i.test(line.trim())) return false;
          void click(state, line.trim().split(/\s+/)[1]).catch((error: unknown) =>
            logger.error('click failed', { error }),
          );
          return true;
        });
      for (;;) {
        const line = await terminal.read(prompt(state));
        if (line === undefined) break;
        try {
          if (await handle(state, line)) break;
        } catch (error) {
          logger.error('console line failed', { error });
          fail(state, 'Something went wrong in the console; the log has the details.');
        }
      }
      // Replies of work still running (a click made while a command ran) are shown before leaving.
      await Promise.allSettled([...state.inflight]);
      terminal.intercept(undefined);
    },
    stop() {
      terminal.close();
      for (const job of state.jobs.running()) job.controller.abort(new Error('the console is stopping'));
    },
  };
}
