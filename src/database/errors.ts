/**
 * Every way a customer-database call can fail, as one typed error whose message a person can
 * act on and which names the original code (SQLITE_READONLY, SERVER_ERROR 401, …). Server
 * messages pass through a scrubber first: libSQL errors can echo URLs, and a URL can carry the
 * token.
 */
import { z } from 'zod';
import { EdgeopsError, type FailureLogLine, type FailureOutcome } from '../errors.js';

export type DatabaseErrorKind =
  /** The statement is not allowed here (not read-only, several statements, none). */
  | 'refused'
  /** The database rejected the statement itself (syntax, unknown table, constraint). */
  | 'statement'
  /** The token was refused. */
  | 'unauthorized'
  /** The database is busy or rate limiting. */
  | 'busy'
  /** No connection, or nothing answering at the URL. */
  | 'unreachable'
  | 'timeout'
  /** The server failed or answered something unreadable: worth a correlation id. */
  | 'server';

export class DatabaseError extends EdgeopsError {
  override name = 'DatabaseError';

  constructor(
    readonly kind: DatabaseErrorKind,
    /** The original code, e.g. SQLITE_READONLY or SERVER_ERROR. */
    readonly code: string,
    /** Plain words ending with the code when it says something; free of secrets. */
    readonly userMessage: string,
    readonly status?: number,
  ) {
    super(userMessage);
  }

  /** The statement's own problems are the user's to fix; the rest is a failure of the call. */
  get outcome(): FailureOutcome {
    return this.kind === 'refused' || this.kind === 'statement' ? 'refused' : 'failed';
  }

  /** Unreachable, timed out or failing: nothing the user could know, so worth a correlation id. */
  get unexpected(): boolean {
    return this.kind === 'unreachable' || this.kind === 'timeout' || this.kind === 'server';
  }

  override get detail(): string {
    return `${this.kind} ${this.code}${this.status ? ` ${this.status}` : ''}: ${this.userMessage}`;
  }

  /** A refused token is logged once by the customer database, not again on every query. */
  override get logLine(): FailureLogLine | undefined {
    if (this.kind === 'unauthorized') return super.logLine;
    return {
      level: 'warn',
      message: 'customer database call failed',
      fields: { kind: this.kind, code: this.code, status: this.status, message: this.userMessage },
    };
  }
}

/** Removes what must never be shown: registered secrets, and any token carried in a URL or header. */
export type Scrub = (text: string) => string;

export function createScrub(redact: (text: string) => string): Scrub {
  return (text) =>
    redact(text)
      .replace(/([?&]authToken=)[^&\s"'<>]+/gi, '$1[redacted]')
      .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g, '$1[redacted]');
}

const MAX_SERVER_MESSAGE = 300;

const PREFIXES = [/^[A-Z][A-Z0-9_]{2,}:\s*/, /^SQLite error:\s*/i, /^SQL string could not be parsed:\s*/i];

function serverText(message: string, scrub: Scrub): string {
  // LibsqlError prefixes its message with the code, sqld adds "SQLite error:"; neither helps a reader.
  let bare = message.trim();
  for (let changed = true; changed; ) {
    changed = false;
    for (const prefix of PREFIXES) {
      const next = bare.replace(prefix, '');
      if (next !== bare) {
        bare = next.trim();
        changed = true;
      }
    }
  }
  const clean = scrub(bare);
  return clean.length > MAX_SERVER_MESSAGE ? `${clean.slice(0, MAX_SERVER_MESSAGE)}…` : clean;
}

/**
 * Codes that say nothing a person can act on (SQLite's catch-all and the server's generic one):
 * they stay on the error for the log and are left out of the words. The others name the rule.
 */
const UNINFORMATIVE_CODES = new Set(['SQLITE_UNKNOWN', 'SQLITE_ERROR', 'SERVER_ERROR', 'UNKNOWN']);

const withCode = (text: string, code: string, status?: number) => {
  const parts = [
    UNINFORMATIVE_CODES.has(code) ? '' : `code ${code}`,
    status !== undefined ? `HTTP ${status}` : '',
  ];
  const said = parts.filter(Boolean).join(', ');
  return said ? `${text} (${said})` : text;
};

const READ_ONLY_ONLY =
  'Only read-only statements run with /edge db query; changes go through /edge db exec, which needs approval.';

/** A statement-level or protocol-level code from the server, in plain words. */
export function errorForCode(code: string, message: string, scrub: Scrub, status?: number): DatabaseError {
  const text = serverText(message, scrub);
  const make = (kind: DatabaseErrorKind, words: string) =>
    new DatabaseError(kind, code, withCode(words, code, status), status);
  switch (code) {
    case 'SQL_PARSE_ERROR':
    case 'PREPARE_ERROR':
      return make('statement', `The statement could not be parsed: ${text}`);
    case 'SQL_NO_STATEMENT':
      return make('refused', 'There is no SQL statement to run.');
    case 'SQL_MANY_STATEMENTS':
      return make('refused', 'The text holds more than one statement; /edge db query runs exactly one.');
    case 'SQLITE_READONLY':
    case 'NOT_READ_ONLY':
      return make('refused', READ_ONLY_ONLY);
    case 'SQLITE_CONSTRAINT':
      return make('statement', `A constraint refused the statement: ${text}`);
    case 'SQLITE_AUTH':
      return make('refused', `The database does not allow this statement: ${text}`);
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
    case 'TRANSACTION_BUSY':
      return make('busy', 'The database is busy; try again in a moment.');
    case 'TRANSACTION_TIMEOUT':
      return make('timeout', 'The database ended the query because it ran too long; narrow it down.');
    case 'RESPONSE_TOO_LARGE':
    case 'SQLITE_TOOBIG':
      return make('statement', 'The result is too large to send; add a LIMIT or select fewer columns.');
    case 'STREAM_EXPIRED':
      return make('busy', 'The database closed the session; run the query again.');
    case 'SERVER_ERROR':
      return errorForStatus(status, text, scrub);
    case 'HRANA_PROTO_ERROR':
    case 'PROTOCOL_VERSION_ERROR':
    case 'HRANA_CLOSED_ERROR':
    case 'INTERNAL_ERROR':
      return make('server', 'The database answered in a way the bot could not read.');
    case 'URL_INVALID':
    case 'URL_PARAM_NOT_SUPPORTED':
    case 'URL_SCHEME_NOT_SUPPORTED':
      return make('unreachable', `SERVICE_DATABASE_URL cannot be used: ${text}`);
    default:
      if (status !== undefined && status >= 500)
        return make('server', `The database server failed: ${text || 'no reason given'}`);
      return make('statement', `The database refused the statement: ${text || 'no reason given'}`);
  }
}

/** An HTTP-level failure of the pipeline endpoint. */
export function errorForStatus(status: number | undefined, message: string, scrub: Scrub): DatabaseError {
  const code = 'SERVER_ERROR';
  const make = (kind: DatabaseErrorKind, words: string) =>
    new DatabaseError(kind, code, withCode(words, code, status), status);
  if (status === 401 || status === 403)
    return make(
      'unauthorized',
      'The database refused the access token of this replica, SERVICE_DATABASE_AUTH_TOKEN: it was invalidated or has expired. /edge db fails here until this replica is restarted with SERVICE_DATABASE_AUTH_TOKEN set to a token the database accepts; after /edge db tokens invalidate --regenerate, that is the new token sent by DM to whoever asked for it (only the replica that ran it switched by itself).',
    );
  if (status === 404)
    return make('unreachable', 'No database answers at SERVICE_DATABASE_URL; check the URL.');
  if (status === 429) return make('busy', 'The database is rate limiting requests; try again in a moment.');
  if (status !== undefined && status >= 500)
    return make('server', 'The database server failed; try again in a minute.');
  const text = serverText(message, scrub);
  return make('server', `The database refused the request${text ? `: ${text}` : '.'}`);
}

/** Why `/edge` leaves a kind of statement alone, in words that say what to do instead. */
const NOT_RUN_REASONS: Record<string, string> = {
  ATTACH: '/edge works on the database of SERVICE_DATABASE_URL only and opens no other',
  DETACH: '/edge works on the database of SERVICE_DATABASE_URL only and opens no other',
  PRAGMA:
    "pragmas change how the connection behaves. To read one, select from its function instead, e.g. SELECT * FROM pragma_table_info('orders')",
  BEGIN: 'every /edge db command already runs as one transaction of its own',
  COMMIT: 'every /edge db command already runs as one transaction of its own',
  END: 'every /edge db command already runs as one transaction of its own',
  ROLLBACK: 'every /edge db command already runs as one transaction of its own',
  SAVEPOINT: 'every /edge db command already runs as one transaction of its own',
  RELEASE: 'every /edge db command already runs as one transaction of its own',
  VACUUM: 'it is database maintenance, which is left to the platform',
  ANALYZE: 'it is database maintenance, which is left to the platform',
  REINDEX: 'it is database maintenance, which is left to the platform',
};

/** A statement that is neither a read nor a data change: neither `db query` nor `db exec` runs it. */
export const notRunError = (keyword: string): DatabaseError =>
  new DatabaseError(
    'refused',
    'STATEMENT_NOT_RUN',
    withCode(
      `/edge does not run ${keyword} statements: ${NOT_RUN_REASONS[keyword] ?? 'they are neither reads nor data changes'}.`,
      'STATEMENT_NOT_RUN',
    ),
  );

const QUERY_RULE =
  'Only read-only statements run with /edge db query: one statement that starts with SELECT, WITH, VALUES or EXPLAIN';

/** A data change sent to `db query`: the rule, and where changes go. */
export const changeSentToQueryError = (keyword: string): DatabaseError =>
  new DatabaseError(
    'refused',
    'NOT_READ_ONLY',
    withCode(
      `${QUERY_RULE}, and ${keyword} changes the database. Send it with /edge db exec, which needs approval.`,
      'NOT_READ_ONLY',
    ),
  );

/** A statement the database accepts but whose first keyword is not one of a query's. */
export const notAQueryError = (keyword: string): DatabaseError =>
  new DatabaseError(
    'refused',
    'NOT_A_QUERY',
    withCode(`${QUERY_RULE}; this one starts with ${keyword ? keyword : 'something else'}.`, 'NOT_A_QUERY'),
  );

function inWords(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.round(ms / 1000);
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

export const timeoutError = (timeoutMs: number): DatabaseError =>
  new DatabaseError(
    'timeout',
    'TIMEOUT',
    withCode(
      `The query was abandoned after ${inWords(timeoutMs)}. Narrow it down (a WHERE clause or a LIMIT) and try again.`,
      'TIMEOUT',
    ),
  );

const LibsqlLikeSchema = z.object({
  code: z.string().min(1),
  message: z.string(),
  cause: z.object({ status: z.number().int() }).partial().nullish(),
});

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = 'code' in current ? current.code : undefined;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    current = 'cause' in current ? current.cause : undefined;
  }
  return error instanceof TypeError && error.message === 'fetch failed' ? 'NETWORK' : undefined;
}

/** Whatever a call threw, as a DatabaseError (already scrubbed). */
export function toDatabaseError(error: unknown, scrub: Scrub): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const network = networkCode(error);
  if (network)
    return new DatabaseError(
      'unreachable',
      network,
      withCode(
        'The database could not be reached at SERVICE_DATABASE_URL; check the URL and the network.',
        network,
      ),
    );
  const libsql = LibsqlLikeSchema.safeParse(error);
  if (libsql.success) {
    const status =
      libsql.data.cause?.status ?? Number(/HTTP status (\d{3})/.exec(libsql.data.message)?.[1] ?? Number.NaN);
    return errorForCode(
      libsql.data.code,
      libsql.data.message,
      scrub,
      Number.isFinite(status) ? status : undefined,
    );
  }
  return new DatabaseError(
    'server',
    'UNKNOWN',
    withCode('The database call failed unexpectedly.', 'UNKNOWN'),
  );
}
