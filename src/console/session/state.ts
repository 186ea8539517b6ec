/**
 * What every part of a console session works with, passed in explicitly: the engine, the
 * terminal and the screen, who is typing where, and the work still under way.
 */
import type { Engine } from '../../operations/engine/engine.js';
import type { JobRegistry } from '../../operations/engine/jobs.js';
import type { ConsoleScreen } from '../surface.js';
import type { Terminal } from '../terminal.js';

/** Work the person at the prompt waits for: a command, a click or a form's submission. */
export interface Foreground {
  /** Where it was asked: a Cancel pressed with Ctrl-C is pressed there. */
  readonly channelId: string;
  /** The long jobs that were running before it started: not its to cancel. */
  readonly jobsBefore: ReadonlySet<string>;
}

export interface SessionState {
  readonly engine: Engine;
  /** The long jobs running in the process, for Ctrl-C to cancel those of the foreground. */
  readonly jobs: Pick<JobRegistry, 'running'>;
  readonly terminal: Terminal;
  readonly screen: ConsoleScreen;
  readonly now: () => number;
  /** Who was at the keyboard at the start, and where: `:as` and `:in` lead back there. */
  readonly start: { userId: string; channelId: string };
  /** Who is typing now (`:as`), and in which channel (`:in`). */
  userId: string;
  channelId: string;
  inForm: boolean;
  /** Set by :quit typed inside a form: the form ends, then the console. */
  leaving: boolean;
  /** Work under way: awaited where it was started and, should the session end first, before it returns. */
  readonly inflight: Set<Promise<unknown>>;
  /** What the prompt waits for now, if anything. */
  foreground?: Foreground;
  /** The last Ctrl-C said how to leave: another one, right after it, leaves. */
  hinted: boolean;
}

export const say = (state: SessionState, text: string) => state.terminal.print(text);

export const fail = (state: SessionState, text: string) =>
  state.terminal.print(state.screen.style.red(`✗ ${text}`));

/** Awaited here and, should the session end first, before it returns. */
export async function track<T>(state: SessionState, work: Promise<T>): Promise<T> {
  state.inflight.add(work);
  try {
    return await work;
  } finally {
    state.inflight.delete(work);
  }
}

/**
 * Tracked work the prompt waits for; Ctrl-C while it runs cancels the long jobs it started. A click
 * made while other work runs stays part of that work.
 */
export async function inForeground<T>(
  state: SessionState,
  channelId: string,
  start: () => Promise<T>,
): Promise<T> {
  if (state.foreground) return track(state, start());
  const foreground: Foreground = {
    channelId,
    jobsBefore: new Set(state.jobs.running().map((job) => job.id)),
  };
  state.foreground = foreground;
  try {
    return await track(state, start());
  } finally {
    if (state.foreground === foreground) state.foreground = undefined;
  }
}
