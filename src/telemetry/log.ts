/**
 * The bot's logger: one JSON line per event, with every known secret replaced before the
 * line is written. Secrets are registered as they become known (configuration at start-up,
 * tokens and keys as they are generated, in secrets/registry.ts), so even a careless field
 * cannot leak one.
 */
import type { SecretRegistry } from '../secrets/registry.js';
import type { Clock } from '../time/clock.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  level: LogLevel;
  secrets: SecretRegistry;
  /** Where lines go; stderr by default so that console mode keeps stdout for the conversation. */
  write?: (line: string) => void;
  /** Stamps each line. */
  clock: Clock;
}

function serialise(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (typeof value === 'bigint') return value.toString();
  return value;
}

export function createLogger(options: LoggerOptions, base: LogFields = {}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const threshold = LEVELS[options.level];

  const emit = (level: LogLevel, message: string, fields?: LogFields) => {
    if (LEVELS[level] < threshold) return;
    const record = { time: new Date(options.clock()).toISOString(), level, msg: message, ...base, ...fields };
    const line = JSON.stringify(record, (_key, value) => serialise(value));
    write(options.secrets.redact(line));
  };

  return {
    debug: (message, fields) => emit('debug', message, fields),
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
    child: (fields) => createLogger(options, { ...base, ...fields }),
  };
}
