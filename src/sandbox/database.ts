/**
 * The sandbox's customer database: a real libSQL file opened through @libsql/client.
 *
 * Each Hrana stream gets a session with its own connection, because an interactive transaction
 * must stay on one connection between HTTP requests. Read-only access is enforced by the engine
 * itself with `PRAGMA query_only`: embedded libSQL accepts `BEGIN TRANSACTION READONLY` and still
 * lets writes through (PRODUCT §4), so the session switches query_only on for read-only tokens and
 * for the length of a read transaction.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type Client,
  createClient,
  type InStatement,
  type ResultSet,
  type Transaction,
} from '@libsql/client';
import { createRandom } from './random.js';
import { statementShape } from './sql-text.js';

/** A refusal decided by the sandbox rather than by the engine, carrying a Hrana error code. */
export class StatementError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'StatementError';
  }
}

export interface SqlSession {
  /** True outside an explicit transaction. */
  readonly autocommit: boolean;
  /** Runs one statement; `readOnly` is the access of the token that sent it. */
  execute(statement: InStatement & object, readOnly: boolean): Promise<ResultSet>;
}

export interface DescribedStatement {
  isReadonly: boolean;
  cols: { name: string; decltype: string | null }[];
}

export interface SandboxDatabase {
  /** The `file:` URL of the database. */
  readonly url: string;
  openSession(): Promise<SqlSession>;
  /** Rolls back whatever the session left open and keeps its connection for the next stream. */
  releaseSession(session: SqlSession): Promise<void>;
  /** What `describe` reports, computed without running the statement. */
  describe(sql: string): Promise<DescribedStatement>;
  close(): Promise<void>;
}

export interface SandboxDatabaseOptions {
  /** `file:` URL or plain path; a fresh temporary file when absent. */
  path?: string;
  seed: number;
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

class Session implements SqlSession {
  private transaction: Transaction | undefined;
  private inReadTransaction = false;
  private queryOnly = false;

  constructor(
    readonly client: Client,
    private readonly analysis: Client,
  ) {}

  get autocommit(): boolean {
    return this.transaction === undefined;
  }

  async execute(statement: InStatement & object, readOnly: boolean): Promise<ResultSet> {
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
      const result = await this.run(statement);
      return await this.exactRowid(result);
    } finally {
      this.settle();
    }
  }

  async reset(): Promise<void> {
    this.transaction?.close();
    this.settle();
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

function toFileUrl(path: string): string {
  return path.startsWith('file:') ? path : pathToFileURL(path).href;
}

const MAX_IDLE_SESSIONS = 8;

export async function openSandboxDatabase(options: SandboxDatabaseOptions): Promise<SandboxDatabase> {
  const temporaryDir = options.path ? undefined : mkdtempSync(join(tmpdir(), 'edgeops-sandbox-'));
  const url = options.path ? toFileUrl(options.path) : toFileUrl(join(temporaryDir ?? '', 'sandbox.db'));
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
  const idle: Session[] = [];
  const all = new Set<Session>();

  return {
    url,
    async openSession() {
      const reused = idle.pop();
      if (reused) return reused;
      const session = new Session(connect(), analysis);
      all.add(session);
      return session;
    },
    async releaseSession(session) {
      const owned = session instanceof Session && all.has(session) ? session : undefined;
      if (!owned) return;
      try {
        await owned.reset();
      } catch {
        all.delete(owned);
        owned.client.close();
        return;
      }
      if (idle.length < MAX_IDLE_SESSIONS) {
        idle.push(owned);
      } else {
        all.delete(owned);
        owned.client.close();
      }
    },
    async describe(sql) {
      const plan = await analysis.execute(`EXPLAIN ${sql}`);
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
      for (const session of all) {
        try {
          await session.reset();
        } catch {
          // the connection is closed next anyway
        }
        session.client.close();
      }
      all.clear();
      idle.length = 0;
      analysis.close();
      if (temporaryDir) rmSync(temporaryDir, { recursive: true, force: true });
    },
  };
}
