/**
 * The customer database that `/edge db` works on (SERVICE_DATABASE_URL), over @libsql/client.
 *
 * A read-only query is refused unless three independent checks agree, because the configured
 * token may well be a full-access one: exactly one statement (counted here), the server's own
 * `describe` says it is read-only, and it runs inside a read transaction, where the server
 * refuses writes. `BEGIN … READONLY` alone is not enough: embedded libSQL accepts it and still
 * lets writes through.
 */
import { createClient, type Value } from '@libsql/client';
import type { SecretRegistry } from '../log.js';
import { describeStatement } from './describe.js';
import { createScrub, DatabaseError, type Scrub, timeoutError, toDatabaseError } from './errors.js';
import { countStatements } from './statements.js';
import { parseDatabaseUrl } from './url.js';

/** A cell as libSQL returns it with `intMode: 'bigint'`: blobs are ArrayBuffers. */
export type Cell = Value;

export interface QueryResult {
  columns: string[];
  rows: Cell[][];
}

export interface CustomerDatabase {
  /** The database id: the first host label of SERVICE_DATABASE_URL. */
  readonly databaseId: string;
  /** Runs one statement that the server confirms is read-only; throws DatabaseError otherwise. */
  runReadOnlyQuery(sql: string): Promise<QueryResult>;
  /** Runs one statement in a write transaction (approved `db exec` only). */
  runWrite(sql: string): Promise<WriteResult>;
  /** Checks that the text is one statement the database can prepare, without running it. */
  checkStatement(sql: string): Promise<void>;
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
  /** The HTTP transport; the global fetch by default. */
  fetch?: typeof fetch;
  /** The database id for token management, when the URL's first host label is not it. */
  databaseId?: string;
}

export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;

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

  /** One client per statement: its transport carries that statement's deadline. */
  const clientFor = (signal: AbortSignal) =>
    createClient({
      url: endpoint.httpUrl,
      authToken,
      intMode: 'bigint',
      fetch: (request: Request) => fetchFn(request, { signal }),
    });

  async function query(sql: string, signal: AbortSignal): Promise<QueryResult> {
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
    const client = clientFor(signal);
    try {
      const [result] = await client.batch([sql], 'read');
      if (!result) return { columns: [], rows: [] };
      const width = result.columns.length;
      return {
        columns: [...result.columns],
        rows: result.rows.map((row) => Array.from({ length: width }, (_, index) => row[index] ?? null)),
      };
    } finally {
      client.close();
    }
  }

  /** Exactly one statement, under the deadline, with errors scrubbed. */
  async function single<T>(
    sql: string,
    work: (signal: AbortSignal) => Promise<T>,
    command: string,
  ): Promise<T> {
    const statements = countStatements(sql);
    if (statements !== 1)
      throw new DatabaseError(
        'refused',
        statements === 0 ? 'SQL_NO_STATEMENT' : 'SQL_MANY_STATEMENTS',
        statements === 0
          ? 'There is no SQL statement to run (code SQL_NO_STATEMENT).'
          : `The text holds more than one statement; ${command} runs exactly one (code SQL_MANY_STATEMENTS).`,
      );
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(timeoutError(timeoutMs)), timeoutMs);
    try {
      return await Promise.race([work(controller.signal), abandoned(controller.signal)]);
    } catch (error) {
      if (controller.signal.aborted) throw timeoutError(timeoutMs);
      throw toDatabaseError(error, scrub);
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
    runWrite: (sql) => single(sql, (signal) => write(sql, signal), '/edge db exec'),
    checkStatement: (sql) =>
      single(
        sql,
        async (signal) => {
          await describeStatement({
            httpUrl: endpoint.httpUrl,
            authToken,
            sql,
            fetch: fetchFn,
            signal,
            scrub,
          });
        },
        '/edge db exec',
      ),
    useToken(token) {
      options.secrets.add(token);
      authToken = token;
    },
    async runReadOnlyQuery(sql) {
      const statements = countStatements(sql);
      if (statements === 0)
        throw new DatabaseError(
          'refused',
          'SQL_NO_STATEMENT',
          'There is no SQL statement to run (code SQL_NO_STATEMENT).',
        );
      if (statements > 1)
        throw new DatabaseError(
          'refused',
          'SQL_MANY_STATEMENTS',
          'The text holds more than one statement; /edge db query runs exactly one (code SQL_MANY_STATEMENTS).',
        );
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(timeoutError(timeoutMs)), timeoutMs);
      try {
        return await Promise.race([query(sql, controller.signal), abandoned(controller.signal)]);
      } catch (error) {
        if (controller.signal.aborted) throw timeoutError(timeoutMs);
        throw toDatabaseError(error, scrub);
      } finally {
        clearTimeout(timer);
      }
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
