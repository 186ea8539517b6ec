/**
 * Statement failures as sqld reports them (a Hrana error: a message and a code), shared by the
 * database process that runs statements and the Hrana service that answers for them.
 */
import { LibsqlError } from '@libsql/client';
import { EdgeopsError } from '../errors.js';

export interface HranaError {
  message: string;
  code: string;
}

/** A refusal decided by the sandbox rather than by the engine, carrying a Hrana error code. */
export class StatementError extends EdgeopsError {
  readonly kind = 'statement';
  readonly outcome = 'refused';
  readonly unexpected = false;

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'StatementError';
  }

  get userMessage(): string {
    return this.message;
  }
}

const PARSE_ERROR = /syntax error|incomplete input|unrecognized token/i;

/** sqld's codes: parse errors apart, the generic SQLITE_ERROR becomes SQLITE_UNKNOWN. */
export function toHranaError(error: unknown): HranaError {
  if (error instanceof StatementError) return { message: error.message, code: error.code };
  if (error instanceof LibsqlError) {
    const prefix = `${error.code}: `;
    const text = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    if (error.code === 'SQLITE_ERROR') {
      return PARSE_ERROR.test(text)
        ? { message: `SQL string could not be parsed: ${text}`, code: 'SQL_PARSE_ERROR' }
        : { message: `SQLite error: ${text}`, code: 'SQLITE_UNKNOWN' };
    }
    if (error.code.startsWith('SQLITE_')) return { message: `SQLite error: ${text}`, code: error.code };
    return { message: text, code: 'SQLITE_UNKNOWN' };
  }
  if (error instanceof RangeError || error instanceof TypeError) {
    return { message: `Invalid statement arguments: ${error.message}`, code: 'ARGS_INVALID' };
  }
  return { message: error instanceof Error ? error.message : String(error), code: 'SQLITE_UNKNOWN' };
}
