/**
 * The customer database that `/edge db` works on (SERVICE_DATABASE_URL), over @libsql/client.
 *
 * A read-only query is refused unless independent checks agree, because the configured token
 * may well be a full-access one: exactly one statement (counted here), whose first keyword is
 * SELECT, WITH, VALUES or EXPLAIN (read here), which the server's own `describe` calls read-only,
 * run inside a read transaction, where the server refuses writes. `describe` alone is not enough:
 * it calls ATTACH, PRAGMA setters and transaction control read-only; nor is `BEGIN … READONLY`
 * alone: embedded libSQL accepts it and still lets writes through. Statements that are neither
 * reads nor data changes are refused by both commands, before the server is asked anything.
 *
 * A query's result is bounded where it is produced: a statement that can be wrapped runs as
 * `SELECT * FROM (…) LIMIT cap + 1`, and its rows are read as they stream in (read-query.ts), up
 * to a row cap and a cap on the bytes of values, never held whole. EXPLAIN cannot be wrapped; its
 * output grows with the statement's length only (20,000 characters at most), and the same caps
 * stop the reading.
 */
import { createClient } from '@libsql/client';
import type { SecretRegistry } from '../secrets/registry.js';
import type { Logger } from '../telemetry/log.js';
import { type Described, describeStatement } from './describe.js';
import {
  changeSentToQueryError,
  createScrub,
  DatabaseError,
  notAQueryError,
  notRunError,
  type Scrub,
  timeoutError,
  toDatabaseError,
} from './errors.js';
import type { Cell } from './hrana-value.js';
import {
  type QueryLimits,
  type QueryStop,
  type QuerySummary,
  type RowSink,
  RowSinkError,
  readQuery,
} from './read-query.js';
import { readStatement, type StatementReading } from './statements.js';
import { parseDatabaseUrl } from './url.js';

export type { Cell } from './hrana-value.js';
export type { QueryLimits, QueryStop, QuerySummary, RowSink } from './read-query.js';

export interface QueryResult {
  columns: string[];
  rows: Cell[][];
  /** Set when a cap stopped the reading: the result has more than these rows. */
  stopped?: QueryStop;
}

export interface CustomerDatabase {
  /** The database id: the first host label of SERVICE_DATABASE_URL. */
  readonly databaseId: string;
  /** How much one query keeps at most. */
  readonly limits: QueryLimits;
  /**
   * Runs one statement that the server confirms is read-only, handing its rows to `sink` as they
   * arrive, within the limits; throws DatabaseError otherwise.
   */
  streamReadOnlyQuery(sql: string, sink: RowSink): Promise<QuerySummary>;
  /** The same, with the rows (within the limits) collected. */
  runReadOnlyQuery(sql: string): Promise<QueryResult>;
  /** Runs one statement in a write transaction (approved `db exec` only). */
  runWrite(sql: string): Promise<WriteResult>;
  /**
   * Checks that the text is one statement the database can prepare, without running it, and
   * says whether the database calls it read-only.
   */
  checkStatement(sql: string): Promise<Described>;
  /** Switches the bot's own queries to a new token (after `db tokens invalidate --regenerate`). */
  useToken(token: string): void;
  close(): Promise<void>;
}

export interface WriteResult {
  rowsAffected: number;
  /** As a decimal string: rowids can exceed 2^53. */
  lastInsertRowid?: string;
}

export interface CustomerDatabaseOptions {
  url: string;
  authToken?: string;
  /** The token (and one found in the URL) is registered here before anything is sent. */
  secrets: SecretRegistry;
  /** A query still running after this long is abandoned; 10 seconds by default. */
  timeoutMs?: number;
  /** How much one query keeps: DEFAULT_QUERY_LIMITS where not given. */
  limits?: Partial<QueryLimits>;
  /** The HTTP transport; the global fetch by default. */
  fetch?: typeof fetch;
  /** The database id for token management, when the URL's first host label is not it. */
  databaseId?: string;
  /** Told once when the database starts refusing the token, not on every query. */
  logger?: Logger;
}

export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;

export const DEFAULT_QUERY_LIMITS: QueryLimits = { maxRows: 100_000, maxBytes: 100 * 1024 * 1024 };

/** SELECT, VALUES and WITH … SELECT can sit inside `SELECT * FROM (…)`; EXPLAIN cannot. */
const wrappable = (reading: StatementReading) =>
  ['SELECT', 'VALUES'].includes(reading.keyword === 'WITH' ? reading.mainKeyword : reading.keyword);

const QUERY = '/edge db query';
const EXEC = '/edge db exec';

/** Exactly one statement, and one that /edge runs at all; refused before the server is asked. */
function runnable(sql: string, command: string): StatementReading {
  const reading = readStatement(sql);
  if (reading.count !== 1)
    throw new DatabaseError(
      'refused',
      reading.count === 0 ? 'SQL_NO_STATEMENT' : 'SQL_MANY_STATEMENTS',
      reading.count === 0
        ? 'There is no SQL statement to run (code SQL_NO_STATEMENT).'
        : `The text holds more than one statement; ${command} runs exactly one (code SQL_MANY_STATEMENTS).`,
    );
  if (reading.kind === 'not-run') throw notRunError(reading.keyword);
  return reading;
}

/** Rejects when `signal` aborts, so a call that ignores the signal cannot outlive the deadline. */
function abandoned(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

export function createCustomerDatabase(options: CustomerDatabaseOptions): CustomerDatabase {
  const endpoint = parseDatabaseUrl(options.url);
  let authToken = options.authToken ?? endpoint.authTokenFromUrl;
  options.secrets.add(authToken, endpoint.authTokenFromUrl);
  const scrub: Scrub = createScrub((text) => options.secrets.redact(text));
  const timeoutMs = options.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const fetchFn = options.fetch ?? fetch;
  const limits: QueryLimits = { ...DEFAULT_QUERY_LIMITS, ...options.limits };
  // Whether the last call's token was refused: a refusal is logged when it starts, not on every query.
  let tokenRefused = false;

  /** Notes how the last call went, logging the moment the token stops being accepted. */
  const noteToken = (error: DatabaseError | undefined) => {
    if (error !== undefined && error.kind !== 'unauthorized') return;
    const refused = error !== undefined;
    if (refused && !tokenRefused)
      options.logger?.warn(
        'the customer database refuses SERVICE_DATABASE_AUTH_TOKEN: /edge db fails on this replica until it is restarted with a token the database accepts',
        { status: error.status, code: error.code },
      );
    tokenRefused = refused;
  };

  /** One client per statement: its transport carries that statement's deadline. */
  const clientFor = (signal: AbortSignal) =>
    createClient({
      url: endpoint.httpUrl,
      authToken,
      intMode: 'bigint',
      fetch: (request: Request) => fetchFn(request, { signal }),
    });

  async function query(
    sql: string,
    reading: StatementReading,
    sink: RowSink,
    signal: AbortSignal,
  ): Promise<QuerySummary> {
    const described = await describeStatement({
      httpUrl: endpoint.httpUrl,
      authToken,
      sql,
      fetch: fetchFn,
      signal,
      scrub,
    });
    if (!described.isReadonly)
      throw new DatabaseError(
        'refused',
        'NOT_READ_ONLY',
        'Only read-only statements run with /edge db query; changes go through /edge db exec, which needs approval (the database describes this statement as a write; code NOT_READ_ONLY).',
      );
    // Only a statement the database could parse gets here: its own words were not a query's.
    if (reading.kind !== 'read') throw notAQueryError(reading.keyword);
    return readQuery({
      httpUrl: endpoint.httpUrl,
      authToken,
      // One row past the cap tells that the result has more.
      sql: wrappable(reading) ? `SELECT * FROM (\n${reading.body}\n) LIMIT ${limits.maxRows + 1}` : sql,
      limits,
      sink,
      fetch: fetchFn,
      signal,
      scrub,
    });
  }

  /** Exactly one statement, under the deadline, with errors scrubbed. */
  async function single<T>(
    sql: string,
    work: (signal: AbortSignal, reading: StatementReading) => Promise<T>,
    command: string,
  ): Promise<T> {
    const reading = runnable(sql, command);
    if (reading.kind === 'change' && command === QUERY) throw changeSentToQueryError(reading.keyword);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(timeoutError(timeoutMs)), timeoutMs);
    try {
      const result = await Promise.race([work(controller.signal, reading), abandoned(controller.signal)]);
      noteToken(undefined);
      return result;
    } catch (error) {
      if (controller.signal.aborted) throw timeoutError(timeoutMs);
      if (error instanceof RowSinkError) throw error.cause;
      const failure = toDatabaseError(error, scrub);
      noteToken(failure);
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  async function write(sql: string, signal: AbortSignal): Promise<WriteResult> {
    const client = clientFor(signal);
    try {
      const [result] = await client.batch([sql], 'write');
      return {
        rowsAffected: result?.rowsAffected ?? 0,
        lastInsertRowid: result?.lastInsertRowid === undefined ? undefined : String(result.lastInsertRowid),
      };
    } finally {
      client.close();
    }
  }

  return {
    databaseId: options.databaseId ?? endpoint.databaseId,
    runWrite: (sql) => single(sql, (signal) => write(sql, signal), EXEC),
    checkStatement: (sql) =>
      single(
        sql,
        (signal) =>
          describeStatement({
            httpUrl: endpoint.httpUrl,
            authToken,
            sql,
            fetch: fetchFn,
            signal,
            scrub,
          }),
        EXEC,
      ),
    useToken(token) {
      options.secrets.add(token);
      authToken = token;
      tokenRefused = false;
    },
    limits,
    streamReadOnlyQuery: (sql, sink) =>
      single(sql, (signal, reading) => query(sql, reading, sink, signal), QUERY),
    async runReadOnlyQuery(sql) {
      const rows: Cell[][] = [];
      const summary = await single(
        sql,
        (signal, reading) =>
          query(sql, reading, { columns: () => {}, row: (cells) => void rows.push(cells) }, signal),
        QUERY,
      );
      return { columns: summary.columns, rows, stopped: summary.stopped };
    },
    async close() {
      // Nothing is held between queries: each one opens and closes its own client.
    },
  };
}

function isCustomerDatabase(value: unknown): value is CustomerDatabase {
  return (
    typeof value === 'object' &&
    value !== null &&
    'runReadOnlyQuery' in value &&
    typeof value.runReadOnlyQuery === 'function'
  );
}

/**
 * The customer database among the services, or undefined when SERVICE_DATABASE_URL is not set.
 * Read by shape so that it works before and after `database` joins the Services type.
 */
export function customerDatabaseOf(services: object): CustomerDatabase | undefined {
  const candidate = 'database' in services ? services.database : undefined;
  return isCustomerDatabase(candidate) ? candidate : undefined;
}
