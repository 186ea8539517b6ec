/**
 * How the process ends: on a signal at any moment of its start or run, and when a start cannot
 * succeed. main.ts wires these to `process`; they take the exit and the output as arguments.
 */
import type { Logger, SecretRegistry } from './log.js';
import { PolicyLoadError } from './policy/store.js';

export interface Shutdown {
  /**
   * Something to stop on a signal. Steps stop newest first, so the receiver that takes Slack's
   * requests stops (and lets what it acknowledged finish) before the stores those requests use.
   */
  onStop(step: () => Promise<unknown>): void;
  /** True once a signal came: the start goes no further. */
  readonly stopping: boolean;
  /** Stops every step once, whatever has started so far, then exits 0. A second call waits for the first. */
  stop(signal: string): Promise<void>;
}

export function createShutdown(options: { logger: Logger; exit: (code: number) => void }): Shutdown {
  const { logger, exit } = options;
  const steps: (() => Promise<unknown>)[] = [];
  let stopped: Promise<void> | undefined;
  return {
    onStop(step) {
      steps.push(step);
    },
    get stopping() {
      return stopped !== undefined;
    },
    stop(signal) {
      stopped ??= (async () => {
        logger.info('shutting down', { signal });
        // A step added while the others stop (a start that was still under way) is stopped too.
        for (let step = steps.pop(); step !== undefined; step = steps.pop())
          await step().catch((error: unknown) =>
            logger.warn('a part of the bot did not stop cleanly', { error }),
          );
        exit(0);
      })();
      return stopped;
    },
  };
}

/**
 * The one line a start that cannot succeed ends with, without any secret: an error's message may
 * quote a URL, a header or a token from a dependency's own words.
 */
export function startFailureLine(error: unknown, secrets: SecretRegistry): string {
  const line =
    error instanceof PolicyLoadError
      ? `policy error: ${error.message}`
      : `failed to start: ${error instanceof Error ? error.message : String(error)}`;
  return stopLine(line, secrets);
}

/** `edgeops: <line>`, redacted, for stderr. */
export function stopLine(line: string, secrets: SecretRegistry): string {
  return `edgeops: ${secrets.redact(line)}\n`;
}
