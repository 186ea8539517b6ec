/**
 * Line input and text output for the console. On a TTY it is an interactive readline with
 * editing and history; otherwise (piped input, tests) lines are read as they come and echoed
 * after their prompt, so a scripted session reads like a transcript.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** A Ctrl-C at a TTY, after the terminal has cleared the line. */
export interface Interrupt {
  /** What had been typed on the line. */
  typed: string;
  /** Nothing was typed or entered since the Ctrl-C before it. */
  again: boolean;
}

export interface Terminal {
  /** A person at a TTY (line editing, Ctrl-C), rather than a script. */
  readonly interactive: boolean;
  readonly width: number;
  /** Writes text and a line break, keeping a prompt that is on screen intact. */
  print(text: string): void;
  /** The next line after showing `prompt`; undefined at the end of input. */
  read(prompt: string): Promise<string | undefined>;
  /**
   * Sees each line before it is queued for `read`; returning true consumes it. Lets a person
   * click a Cancel button while a command is still running.
   */
  intercept(handler: ((line: string) => boolean) | undefined): void;
  /** Ctrl-C on a TTY: the line is cleared, then the handler says what else it does. */
  onInterrupt(handler: (interrupt: Interrupt) => void): void;
  /** Acts as if the line had been typed (Ctrl-C in a form types `:cancel`). */
  inject(line: string): void;
  close(): void;
}

export interface TerminalOptions {
  input: Readable;
  output: Writable & { isTTY?: boolean; columns?: number };
  /** Defaults to whether both input and output are TTYs. */
  interactive?: boolean;
}

export function createTerminal(options: TerminalOptions): Terminal {
  const { input, output } = options;
  const interactive =
    options.interactive ??
    ((input as Readable & { isTTY?: boolean }).isTTY === true && output.isTTY === true);
  const rl = createInterface({
    input,
    output: interactive ? output : undefined,
    terminal: interactive,
    historySize: interactive ? 200 : 0,
  });
  const queue: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let ended = false;
  let shownPrompt: string | undefined;
  let interceptor: ((line: string) => boolean) | undefined;
  let afterInterrupt = false;

  const accept = (line: string) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(line);
    } else queue.push(line);
  };
  rl.on('line', (line) => {
    if (!interceptor?.(line)) accept(line);
  });
  // Readline reads keys from the input on a TTY: any key but Ctrl-C makes the next Ctrl-C a first one.
  if (interactive)
    input.on('keypress', (_text: string, key: { ctrl?: boolean; name?: string } | undefined) => {
      if (!(key?.ctrl && key.name === 'c')) afterInterrupt = false;
    });
  rl.on('close', () => {
    ended = true;
    const resolve = waiting;
    waiting = undefined;
    resolve?.(undefined);
  });

  const showPrompt = (prompt: string) => {
    shownPrompt = prompt;
    if (interactive) {
      rl.setPrompt(prompt);
      rl.prompt();
    } else output.write(prompt);
  };

  return {
    interactive,
    get width() {
      return Math.max(40, output.columns ?? 80);
    },
    print(text) {
      if (shownPrompt === undefined) {
        output.write(`${text}\n`);
        return;
      }
      if (interactive) {
        // Clear the prompt line, print, and redraw the prompt with what was typed so far.
        output.write(`\r\x1b[K${text}\n`);
        rl.prompt(true);
      } else output.write(`\n${text}\n${shownPrompt}`);
    },
    async read(prompt) {
      const queued = queue.shift();
      if (queued !== undefined) {
        if (!interactive) output.write(`${prompt}${queued}\n`);
        return queued;
      }
      if (ended) return undefined;
      showPrompt(prompt);
      const line = await new Promise<string | undefined>((resolve) => {
        waiting = resolve;
      });
      shownPrompt = undefined;
      // What is typed while a command runs is not drawn after a prompt that is no longer asking.
      if (interactive) rl.setPrompt('');
      // The end of input leaves the prompt's line; a piped line is echoed after its prompt.
      if (line === undefined) output.write('\n');
      else if (!interactive) output.write(`${line}\n`);
      return line;
    },
    intercept(handler) {
      interceptor = handler;
    },
    onInterrupt(handler) {
      if (!interactive) return;
      rl.on('SIGINT', () => {
        const typed = rl.line;
        if (typed !== '') {
          // To the end of the line, then delete back to its start: readline redraws it empty.
          rl.write(null, { ctrl: true, name: 'e' });
          rl.write(null, { ctrl: true, name: 'u' });
        }
        const again = afterInterrupt;
        afterInterrupt = true;
        handler({ typed, again });
      });
    },
    inject(line) {
      if (interactive) output.write('\n');
      accept(line);
    },
    close() {
      rl.close();
    },
  };
}
