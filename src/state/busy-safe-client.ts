import {
  type Client,
  type InArgs,
  type InStatement,
  LibsqlError,
  type Replicated,
  type ResultSet,
  type Transaction,
  type TransactionMode,
} from '@libsql/client';
import { isBusyError } from './busy.js';

/**
 * A `file:` client that stays usable after SQLITE_BUSY.
 *
 * The native driver (libsql 0.5.29 under @libsql/client 0.18) leaves a statement that failed
 * busy unfinalised. Its pooled connection then cannot COMMIT, and a later autocommit write on it
 * reports success while staying uncommitted and holding the write lock, which stalls every other
 * process (tursodatabase/libsql-client-ts#352, fix pending in libsql-js#237). So after any busy
 * failure this client drops every pooled connection before anything else touches the pool, and
 * reruns a call whose connection was dropped under it before the call had run anything.
 *
 * Calls run one at a time: the driver is synchronous, so this costs nothing, and it shuts the
 * window between a busy failure and the reconnect.
 */
export function busySafeClient(inner: Client): Client {
  return new BusySafeClient(inner);
}

const RERUNS_AFTER_RECONNECT = 3;

class BusySafeClient implements Client {
  readonly #inner: Client;
  #closedByCaller = false;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(inner: Client) {
    this.#inner = inner;
  }

  get closed(): boolean {
    return this.#inner.closed;
  }

  get protocol(): string {
    return this.#inner.protocol;
  }

  /** Drops every pooled connection, the one a busy statement poisoned among them. */
  discardConnections(): void {
    if (!this.#closedByCaller) this.#inner.reconnect();
  }

  #exclusive<T>(call: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(async () => {
      try {
        return await call();
      } catch (error) {
        if (isBusyError(error)) this.discardConnections();
        throw error;
      }
    });
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #guard<T>(call: () => Promise<T>): Promise<T> {
    for (let rerun = 0; ; rerun++) {
      try {
        return await this.#exclusive(call);
      } catch (error) {
        // CLIENT_CLOSED while the client is open means a reconnect took the connection before the call used it.
        const droppedUnderUs =
          error instanceof LibsqlError &&
          error.code === 'CLIENT_CLOSED' &&
          !this.#closedByCaller &&
          !this.closed;
        if (!droppedUnderUs || rerun >= RERUNS_AFTER_RECONNECT) throw error;
      }
    }
  }

  execute(stmt: InStatement, args?: InArgs): Promise<ResultSet> {
    return this.#guard(() =>
      typeof stmt === 'string' ? this.#inner.execute(stmt, args) : this.#inner.execute(stmt),
    );
  }

  batch(stmts: Array<InStatement | [string, InArgs?]>, mode?: TransactionMode): Promise<ResultSet[]> {
    return this.#guard(() => this.#inner.batch(stmts, mode));
  }

  migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    return this.#guard(() => this.#inner.migrate(stmts));
  }

  async transaction(mode?: TransactionMode): Promise<Transaction> {
    const transaction = await this.#guard(() => this.#inner.transaction(mode));
    return new BusySafeTransaction(transaction, this);
  }

  executeMultiple(sql: string): Promise<void> {
    return this.#guard(() => this.#inner.executeMultiple(sql));
  }

  sync(): Promise<Replicated> {
    return this.#inner.sync();
  }

  close(): void {
    this.#closedByCaller = true;
    this.#inner.close();
  }

  reconnect(): void {
    this.#closedByCaller = false;
    this.#inner.reconnect();
  }
}

/** A transaction whose busy failure ends it and drops the pooled connections, as above. */
class BusySafeTransaction implements Transaction {
  readonly #inner: Transaction;
  readonly #client: BusySafeClient;

  constructor(inner: Transaction, client: BusySafeClient) {
    this.#inner = inner;
    this.#client = client;
  }

  get closed(): boolean {
    return this.#inner.closed;
  }

  async #guard<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (isBusyError(error)) {
        this.#inner.close();
        this.#client.discardConnections();
      }
      throw error;
    }
  }

  execute(stmt: InStatement): Promise<ResultSet> {
    return this.#guard(() => this.#inner.execute(stmt));
  }

  batch(stmts: InStatement[]): Promise<ResultSet[]> {
    return this.#guard(() => this.#inner.batch(stmts));
  }

  executeMultiple(sql: string): Promise<void> {
    return this.#guard(() => this.#inner.executeMultiple(sql));
  }

  rollback(): Promise<void> {
    return this.#guard(() => this.#inner.rollback());
  }

  commit(): Promise<void> {
    return this.#guard(() => this.#inner.commit());
  }

  close(): void {
    this.#inner.close();
  }
}
