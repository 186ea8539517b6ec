/**
 * What every part of a console session works with, passed in explicitly: the engine, the
 * terminal and the screen, who is typing where, and the work still under way.
 */
import type { Engine } from '../../operations/engine/engine.js';
import type { ConsoleScreen } from '../surface.js';
import type { Terminal } from '../terminal.js';

export interface SessionState {
  readonly engine: Engine;
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
