/**
 * The console keeps log lines out of the conversation: they go to a file, or, when the file
 * cannot be opened, to stderr at warn level and above.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { SecretRegistry } from '../secrets/registry.js';
import { createLogger, type Logger, type LogLevel } from '../telemetry/log.js';
import type { Clock } from '../time/clock.js';

export const DEFAULT_CONSOLE_LOG_FILE = 'data/edgeops-console.log';

export interface ConsoleLog {
  logger: Logger;
  /** Where the lines go, as said in the banner. */
  where: string;
  close(): void;
}

export function openConsoleLog(options: {
  path: string;
  level: LogLevel;
  secrets: SecretRegistry;
  cwd?: string;
  clock: Clock;
  /** The fallback's destination; stderr by default. */
  stderr?: (line: string) => void;
}): ConsoleLog {
  const path = resolve(options.cwd ?? process.cwd(), options.path);
  try {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, 'a', 0o600);
    let open = true;
    // Synchronous appends: a console logs little, and no line is lost when the session ends.
    const write = (line: string) => {
      if (open) writeSync(fd, `${line}\n`);
    };
    return {
      logger: createLogger({ level: options.level, secrets: options.secrets, clock: options.clock, write }),
      where: `the file ${options.path}`,
      close() {
        if (!open) return;
        open = false;
        closeSync(fd);
      },
    };
  } catch {
    const level: LogLevel = options.level === 'error' ? 'error' : 'warn';
    return {
      logger: createLogger({ level, secrets: options.secrets, clock: options.clock, write: options.stderr }),
      where: `stderr (${level} and above; ${options.path} could not be opened)`,
      close() {},
    };
  }
}
