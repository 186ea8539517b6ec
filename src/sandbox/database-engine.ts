/**
 * The engine of the sandbox's customer database: a real libSQL file opened through
 * @libsql/client. It runs inside the database process (database-process.ts), never on the event
 * loop that serves HTTP: embedded libSQL runs a statement synchronously, so a runaway one would
 * freeze whatever shares its thread.
 *
 * Each Hrana stream gets a session with its own connection, because an interactive transaction
 * must stay on one connection between HTTP requests. Read-only access is enforced by the engine
 * itself with `PRAGMA query_only`: embedded libSQL accepts `BEGIN TRANSACTION READONLY` and still
 * lets writes through (PRODUCT §4), so the session switches query_only on for read-only tokens and
 * for the length of a read transaction.
 */
import {
  type Client,
  createClient,
  type InStatement,
  LibsqlError,
  type ResultSet,
  type Transaction,
} from '@libsql/client';
import { createRandom } from './random.js';
import { explainableBlobs, statementShape } from './sql-text.js';
import { StatementError } from './statement-error.js';

/** A value as the engine returns it with `intMode: 'bigint'`. */
export type SqlValue = null | bigint | number | string | ArrayBuffer;

/** A statement's result as plain data, so that it can cross from the database process. */
export interface SqlResult {
  columns: string[];
  /** Declared types, '' where there is none. */
  columnTypes: string[];
  rows: SqlValue[][];
  rowsAffected: number;
  lastInsertRowid: bigint | undefined;
}

/** One statement with its arguments, positional or named. */
export interface SqlStatement {
  sql: string;
  args: SqlValue[] | Record<string, SqlValue>;
}

export interface DescribedStatement {
  isReadonly: boolean;
  cols: { name: string; decltype: string | null }[];
}

/** The engine's view of a Hrana stream's connection, by number. */
export interface DatabaseEngine {
  openSession(): number;
  /** Runs one statement; `readOnly` is the access of the token that sent it. */
  execute(
    session: number,
    statement: SqlStatement,
    readOnly: boolean,
  ): Promise<{ result: SqlResult; autocommit: boolean }>;
  /** Rolls back whatever the session left open and keeps its connection for the next stream. */
  releaseSession(session: number): Promise<void>;
  /** What `describe` reports, computed without running the statement. */
  describe(sql: string): Promise<DescribedStatement>;
  close(): Promise<void>;
}

const EMPTY_RESULT: ResultSet = {
  columns: [],
  columnTypes: [],
  rows: [],
  rowsAffected: 0,
  lastInsertRowid: undefined,
  toJSON: () => ({ columns: [], columnTypes: [], rows: [], rowsAffected: 0, lastInsertRowid: null }),
};

const SAFE_INTEGER_LIMIT = 2n ** 53n;

function toSqlValue(value: unknown): SqlValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'string') return value;
  if (value instanceof ArrayBuffer) return value;
  return String(value);
}

function toSqlResult(result: ResultSet): SqlResult {
  const width = result.columns.length;
  return {
    columns: [...result.columns],
    columnTypes: [...result.columnTypes],
    // The driver's rows also carry the values under column names; only the positions travel.
    rows: result.rows.map((row) => Array.from({ length: width }, (_, index) => toSqlValue(row[index]))),
    rowsAffected: result.rowsAffected,
    lastInsertRowid: result.lastInsertRowid,
  };
}

class Session {
  private transaction: Transaction | undefined;
  private inReadTransaction = false;
  private queryOnly = false;
  /** A statement failed with SQLITE_BUSY: the driver leaves it unfinished on the connection. */
  private unfinished = false;
  client: Client;

  constructor(
    private readonly connect: () => Client,
    private readonly analysis: Client,
  ) {
    this.client = connect();
  }

  get autocommit(): boolean {
    return this.transaction === undefined;
  }

  async execute(statement: SqlStatement, readOnly: boolean): Promise<ResultSet> {
    const shape = statementShape(statement.sql);
    if (shape.setsQueryOnly) {
      throw new StatementError('SQLITE_AUTH', 'not authorized: PRAGMA query_only is managed by the server');
    }
    try {
      await this.applyQueryOnly(readOnly || this.inReadTransaction);
      if (shape.begin && !this.transaction) {
        // An unknown BEGIN form is handed to the engine only to get its own error message.
        if (shape.beginUnrecognised) await this.analysis.execute(`EXPLAIN ${statement.sql}`);
        this.transaction = await this.client.transaction(shape.begin);
        this.inReadTransaction = shape.begin === 'read';
        return EMPTY_RESULT;
      }
      if (shape.isSavepoint && !this.transaction) {
        // The client's pool would roll an implicit savepoint transaction back after the statement.
        throw new StatementError(
          'SQLITE_UNKNOWN',
          'SAVEPOINT outside a transaction is not supported; run BEGIN first',
        );
      }
      const result = await this.run(
        shape.isExplain ? { ...statement, sql: explainableBlobs(statement.sql) } : statement,
      );
      return await this.exactRowid(result);
    } catch (error) {
      // A busy statement stays unfinished, and SQLite then refuses every COMMIT on that connection.
      if (error instanceof LibsqlError && error.code === 'SQLITE_BUSY') this.unfinished = true;
      throw error;
    } finally {
      this.settle();
    }
  }

  async reset(): Promise<void> {
    this.transaction?.close();
    this.settle();
  }

  /** Outside a transaction, a connection left with an unfinished statement is replaced. */
  private renewIfUnfinished(): void {
    if (!this.unfinished || this.transaction) return;
    this.client.close();
    this.client = this.connect();
    this.queryOnly = false;
    this.unfinished = false;
  }

  private run(statement: InStatement): Promise<ResultSet> {
    return this.transaction ? this.transaction.execute(statement) : this.client.execute(statement);
  }

  private async applyQueryOnly(wanted: boolean): Promise<void> {
    if (wanted === this.queryOnly) return;
    await this.run(`PRAGMA query_only = ${wanted ? 1 : 0}`);
    this.queryOnly = wanted;
  }

  /** The embedded driver reports last_insert_rowid as a double; past 2^53 ask the engine for the exact value. */
  private async exactRowid(result: ResultSet): Promise<ResultSet> {
    const rowid = result.lastInsertRowid;
    if (rowid === undefined || (rowid < SAFE_INTEGER_LIMIT && rowid > -SAFE_INTEGER_LIMIT)) return result;
    const exact = await this.run('SELECT last_insert_rowid()');
    const value = exact.rows[0]?.[0];
    return typeof value === 'bigint' ? { ...result, lastInsertRowid: value } : result;
  }

  /** COMMIT, ROLLBACK or an error may have ended the transaction; give its connection back. */
  private settle(): void {
    if (this.transaction?.closed) {
      this.transaction.close();
      this.transaction = undefined;
      this.inReadTransaction = false;
    }
    if (this.transaction === undefined) this.inReadTransaction = false;
    this.renewIfUnfinished();
  }
}

const EXPLAIN_WRITE_OPCODES = new Set(['Vacuum', 'JournalMode']);

function seedStatements(seed: number): InStatement[] {
  const random = createRandom(seed, 'database');
  const customers = [
    ['Ada Lovelace', 'GB'],
    ['Grace Hopper', 'US'],
    ['Katherine Johnson', 'US'],
    ['Hedy Lamarr', 'AT'],
    ['Radia Perlman', 'US'],
    ['Margaret Hamilton', 'US'],
    ['Frances Allen', 'US'],
    ['Barbara Liskov', 'US'],
    ['Sophie Wilson', 'GB'],
    ['Karen Spärck Jones', 'GB'],
  ] as const;
  const statements: InStatement[] = customers.map(([name, country], index) => ({
    sql: 'INSERT INTO customers (id, name, email, country, plan, created_at, avatar) VALUES (?, ?, ?, ?, ?, ?, ?)',
    args: [
      BigInt(index + 1),
      name,
      `${name.split(' ')[0]?.toLowerCase()}@example.com`,
      country,
      random.pick(['free', 'pro', 'business']),
      new Date(Date.UTC(2024, index, 3 + index)).toISOString(),
      index === 0 ? new Uint8Array([0x89, 0x50, 0x4e, 0x47]).buffer : null,
    ],
  }));
  const statuses = ['pending', 'paid', 'shipped', 'refunded', 'cancelled'] as const;
  for (let id = 1; id <= 30; id++) {
    statements.push({
      sql: 'INSERT INTO orders (id, customer_id, placed_at, status, total, currency, external_ref, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      args: [
        BigInt(id),
        BigInt(random.between(1, customers.length)),
        new Date(Date.UTC(2025, random.int(12), random.between(1, 28), random.int(24))).toISOString(),
        random.pick(statuses),
        Math.round(random.between(500, 250_000)) / 100,
        random.pick(['EUR', 'USD', 'GBP']),
        // One reference past 2^53, to prove integers travel exactly.
        id === 7 ? 9007199254740993n : BigInt(random.between(100_000, 999_999)),
        id === 13
          ? 'customer wrote: <!channel> where is my parcel?'
          : id === 21
            ? 'gift wrap, "fragile"'
            : null,
      ],
    });
  }
  return statements;
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS customers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    country TEXT NOT NULL,
    plan TEXT NOT NULL DEFAULT 'free',
    created_at TEXT NOT NULL,
    avatar BLOB
  )`,
  `CREATE TABLE IF NOT EXISTS orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    placed_at TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'shipped', 'refunded', 'cancelled')),
    total REAL NOT NULL,
    currency TEXT NOT NULL DEFAULT 'EUR',
    external_ref INTEGER,
    note TEXT
  )`,
];

const MAX_IDLE_SESSIONS = 8;

/** Opens (creating and seeding when empty) the database at the `file:` URL `url`. */
export async function openDatabaseEngine(options: { url: string; seed: number }): Promise<DatabaseEngine> {
  const { url } = options;
  const connect = () => createClient({ url, intMode: 'bigint', concurrency: 1 });

  const setup = connect();
  // WAL lets streams read while another stream holds a write transaction.
  await setup.execute('PRAGMA journal_mode = WAL');
  await setup.batch(SCHEMA, 'write');
  const existing = await setup.execute('SELECT count(*) FROM customers');
  if (existing.rows[0]?.[0] === 0n) await setup.batch(seedStatements(options.seed), 'write');
  setup.close();

  // Describe runs EXPLAIN here: the driver leaves EXPLAIN statements un-reset, which would block COMMIT
  // on a session's connection.
  const analysis = connect();
  const sessions = new Map<number, Session>();
  const idle: number[] = [];
  let nextId = 1;

  const sessionOf = (id: number): Session => {
    const session = sessions.get(id);
    if (!session) throw new StatementError('STREAM_CLOSED', 'The stream has been closed');
    return session;
  };
  const drop = (id: number, session: Session) => {
    sessions.delete(id);
    session.client.close();
  };

  return {
    openSession() {
      const reused = idle.pop();
      if (reused !== undefined) return reused;
      const id = nextId++;
      sessions.set(id, new Session(connect, analysis));
      return id;
    },
    async execute(id, statement, readOnly) {
      const session = sessionOf(id);
      const result = await session.execute(statement, readOnly);
      return { result: toSqlResult(result), autocommit: session.autocommit };
    },
    async releaseSession(id) {
      const session = sessions.get(id);
      if (!session) return;
      try {
        await session.reset();
      } catch {
        drop(id, session);
        return;
      }
      if (idle.length < MAX_IDLE_SESSIONS) idle.push(id);
      else drop(id, session);
    },
    async describe(sql) {
      const plan = await analysis.execute(`EXPLAIN ${explainableBlobs(sql)}`);
      // sqlite3_stmt_readonly() is false when the program opens a write transaction or vacuums.
      const isReadonly = !plan.rows.some((row) => {
        const opcode = row[1];
        return (opcode === 'Transaction' && row[3] !== 0n) || EXPLAIN_WRITE_OPCODES.has(String(opcode));
      });
      const shape = statementShape(sql);
      if (!isReadonly || !shape.isQuery) return { isReadonly, cols: [] };
      // Unbound parameters are NULL, and LIMIT 0 keeps the query from doing any work.
      const probe = await analysis.execute(`SELECT * FROM (\n${sql}\n) LIMIT 0`);
      return {
        isReadonly,
        cols: probe.columns.map((name, index) => ({ name, decltype: probe.columnTypes[index] || null })),
      };
    },
    async close() {
      for (const [id, session] of sessions) {
        try {
          await session.reset();
        } catch {
          // the connection is closed next anyway
        }
        drop(id, session);
      }
      idle.length = 0;
      analysis.close();
    },
  };
}
