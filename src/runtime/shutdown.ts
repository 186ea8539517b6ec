/**
 * How the process ends: on a signal at any moment of its start or run, and when a start cannot
 * succeed. main.ts wires these to `process`; they take the exit and the output as arguments.
 */

import { PolicyLoadError } from '../policy/store.js';
import type { SecretRegistry } from '../secrets/registry.js';
import type { Logger } from '../telemetry/log.js';

/**
 * How long a stop may take in all: the receiver's grace and drain (5 s + 20 s) and the stores'
 * close fit, and it ends before an orchestrator's usual 30 s turns into a SIGKILL.
 */
export const STOP_DEADLINE_MS = 28_000;

export interface Shutdown {
  /**
   * Something to stop on a signal, named for the log. Steps stop newest first, so the receiver
   * that takes Slack's requests stops (and lets what it acknowledged finish) before the stores
   * those requests use.
   */
  onStop(name: string, step: () => Promise<unknown>): void;
  /** True once a signal came: the start goes no further. */
  readonly stopping: boolean;
  /**
   * Stops every step once, whatever has started so far, then exits 0; or exits 1 at the
   * deadline, naming the step that had not ended. A second call logs and waits for the first.
   */
  stop(signal: string): Promise<void>;
  /**
   * Ctrl-C (SIGINT): the first stops as `stop` does. A second means "now": what was still
   * stopping is abandoned, said so, and the process exits 130. One within a second of the first
   * is the same keypress relayed twice (tsx under `npm start` passes on the signal the terminal
   * also sent to the whole process group), and is ignored.
   */
  interrupt(): void;
}

export function createShutdown(options: {
  logger: Logger;
  exit: (code: number) => void;
  deadlineMs?: number;
}): Shutdown {
  const { logger, exit } = options;
  const steps: { name: string; step: () => Promise<unknown> }[] = [];
  let stopped: Promise<void> | undefined;
  let current = '';
  let interruptedAt = 0;
  return {
    onStop(name, step) {
      steps.push({ name, step });
    },
    get stopping() {
      return stopped !== undefined;
    },
    stop(signal) {
      if (stopped) {
        logger.info('already shutting down', { signal, waitingFor: current });
        return stopped;
      }
      stopped = new Promise<void>((done) => {
        logger.info('shutting down', { signal });
        const deadline = setTimeout(() => {
          logger.error(`shutting down took more than ${options.deadlineMs ?? STOP_DEADLINE_MS} ms; exiting`, {
            waitingFor: current,
          });
          exit(1);
          done();
        }, options.deadlineMs ?? STOP_DEADLINE_MS);
        void (async () => {
          // A step added while the others stop (a start that was still under way) is stopped too.
          for (let next = steps.pop(); next !== undefined; next = steps.pop()) {
            current = next.name;
            await next
              .step()
              .catch((error: unknown) => logger.warn(`${next.name} did not stop cleanly`, { error }));
          }
          clearTimeout(deadline);
          exit(0);
          done();
        })();
      });
      return stopped;
    },
    interrupt() {
      if (!this.stopping) {
        interruptedAt = performance.now();
        void this.stop('SIGINT');
        return;
      }
      if (performance.now() - interruptedAt < 1_000) return;
      logger.warn('a second SIGINT: exiting without waiting for the stop to end', { waitingFor: current });
      exit(130);
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
