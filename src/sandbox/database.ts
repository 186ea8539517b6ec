/**
 * The sandbox's customer database, as the Hrana service sees it. The connections live in a
 * child process (database-process.ts), not on the event loop that serves HTTP: embedded libSQL
 * runs a statement synchronously, so a runaway one (a recursive CTE without end) would otherwise
 * freeze the whole process, the bot too when the sandbox runs inside it (console mode, tests),
 * and no deadline could fire. A worker thread would not do: it cannot be stopped while SQLite
 * runs, and the process then cannot even exit.
 *
 * A statement whose client went away (its HTTP request closed before the answer) is stopped by
 * ending that process; the next call starts a fresh one on the same file. Streams that had a
 * transaction open in the old process lose it, as they would when a server restarts. The next
 * process starts at once, so that it is ready when the next client comes.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { z } from 'zod';
import type { DescribedStatement, SqlStatement } from './database-engine.js';
import {
  DatabaseAnswerSchema,
  type DatabaseCall,
  DescribedSchema,
  ExecutedSchema,
  SessionIdSchema,
  type SqlResultSchema,
} from './database-messages.js';
import { statementShape } from './sql-text.js';
import { StatementError } from './statement-error.js';

/** How long a stream waits for another stream's write lock by default. */
const BUSY_TIMEOUT_MS = 5_000;
const MAX_BUSY_PAUSE_MS = 20;

export type { DescribedStatement, SqlStatement } from './database-engine.js';

/** A statement's result; cells are checked as they are turned into Hrana values. */
export type SqlResult = z.infer<typeof SqlResultSchema>;

export interface SqlSession {
  /** True outside an explicit transaction. */
  readonly autocommit: boolean;
  /**
   * Runs one statement; `readOnly` is the access of the token that sent it. Aborting `signal`
   * (the client went away) stops the statement.
   */
  execute(statement: SqlStatement, readOnly: boolean, signal?: AbortSignal): Promise<SqlResult>;
}

export interface SandboxDatabase {
  /** The `file:` URL of the database. */
  readonly url: string;
  openSession(): Promise<SqlSession>;
  /** Rolls back whatever the session left open and keeps its connection for the next stream. */
  releaseSession(session: SqlSession): Promise<void>;
  /** What `describe` reports, computed without running the statement. */
  describe(sql: string, signal?: AbortSignal): Promise<DescribedStatement>;
  /** The database process's id while one runs. */
  processId(): number | undefined;
  /** Statements sent to the database process and not yet answered. */
  statementsRunning(): number;
  close(): Promise<void>;
}

export interface SandboxDatabaseOptions {
  /** `file:` URL or plain path; a fresh temporary file, removed on close, when absent. */
  path?: string;
  seed: number;
  /** How long a stream waits for another's write lock before SQLITE_BUSY; 5 s by default. */
  busyTimeoutMs?: number;
}

/** How long a database process has to close its connections before it is killed. */
const CLOSE_GRACE_MS = 2_000;

/** Under tsx or vitest this module is a `.ts` file and so is the process's; in dist/ both are `.js`. */
const runningFromSource = import.meta.url.endsWith('.ts');

const processFile = () =>
  fileURLToPath(new URL(`./database-process.${runningFromSource ? 'ts' : 'js'}`, import.meta.url));

/** A `.ts` entry point is loaded by Node itself, not by the test runner's transform: give it tsx. */
function processExecArgv(): string[] {
  if (!runningFromSource) return [];
  let loader = 'tsx';
  try {
    loader = import.meta.resolve('tsx');
  } catch {
    // Some module runners do not offer import.meta.resolve; Node then resolves `tsx` from the cwd.
  }
  return ['--import', loader];
}

const toFileUrl = (path: string) => (path.startsWith('file:') ? path : pathToFileURL(path).href);

interface Pending {
  op: DatabaseCall['op'];
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** One database process; a new one (a new generation) replaces it after it is stopped. */
interface Incarnation {
  child: ChildProcess;
  generation: number;
  pending: Map<number, Pending>;
  /** Settles once the process has opened the database. */
  ready: Promise<void>;
  exited: Promise<void>;
}

const restarted = () =>
  new StatementError(
    'SQLITE_INTERRUPT',
    'interrupted: the database stopped a statement whose client went away, and the transactions open with it',
  );

class RemoteSession implements SqlSession {
  autocommit = true;

  constructor(
    readonly id: number,
    readonly generation: number,
    private readonly run: (
      session: RemoteSession,
      statement: SqlStatement,
      readOnly: boolean,
      signal?: AbortSignal,
    ) => Promise<SqlResult>,
  ) {}

  execute(statement: SqlStatement, readOnly: boolean, signal?: AbortSignal): Promise<SqlResult> {
    return this.run(this, statement, readOnly, signal);
  }
}

/** Statements that write, by their first word: they wait for the write lock rather than meet it. */
const WRITE_WORDS = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'REPLACE',
  'CREATE',
  'DROP',
  'ALTER',
  'REINDEX',
  'VACUUM',
]);

function takesWriteLock(sql: string): boolean {
  const shape = statementShape(sql);
  if (shape.begin) return shape.begin === 'write';
  const first = /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase();
  return first !== undefined && WRITE_WORDS.has(first);
}

/** One writer at a time, the others waiting in turn: what a server's busy handler gives each stream. */
class WriteLock {
  private owner: RemoteSession | undefined;
  private readonly waiting: { session: RemoteSession; grant: () => void }[] = [];

  async acquire(session: RemoteSession, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.owner === undefined || this.owner === session) {
      this.owner = session;
      return;
    }
    let giveUp: () => void = () => {};
    const granted = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => giveUp(), timeoutMs);
      giveUp = () => resolve(false);
      signal?.addEventListener('abort', giveUp, { once: true });
      this.waiting.push({
        session,
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', giveUp);
          resolve(true);
        },
      });
    });
    if (granted) return;
    const at = this.waiting.findIndex((waiter) => waiter.session === session);
    if (at >= 0) this.waiting.splice(at, 1);
    throw new StatementError('SQLITE_BUSY', 'database is locked');
  }

  /** The owner's transaction died with its database process: the lock goes to the next in turn. */
  releaseLost(generation: number): void {
    if (this.owner?.generation === generation) this.release(this.owner);
  }

  release(session: RemoteSession): void {
    if (this.owner !== session) return;
    const next = this.waiting.shift();
    this.owner = next?.session;
    next?.grant();
  }
}

// One piece: starting, restarting and stopping the database process act on its one current process.
export async function openSandboxDatabase(options: SandboxDatabaseOptions): Promise<SandboxDatabase> {
  const temporaryDir = options.path ? undefined : mkdtempSync(join(tmpdir(), 'edgeops-sandbox-'));
  const url = options.path ? toFileUrl(options.path) : toFileUrl(join(temporaryDir ?? '', 'sandbox.db'));
  let current: Incarnation | undefined;
  let generation = 0;
  let requestId = 0;
  let closed = false;
  const writeLock = new WriteLock();
  const busyTimeoutMs = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS;

  /** An idle process does not keep the host alive; one with work to do does. */
  const holdWhileBusy = (incarnation: Incarnation) => {
    const busy = incarnation.pending.size > 0;
    if (busy) incarnation.child.ref();
    else incarnation.child.unref();
    const channel = incarnation.child.channel;
    if (busy) channel?.ref();
    else channel?.unref();
  };

  function request(incarnation: Incarnation, call: DatabaseCall, signal?: AbortSignal): Promise<unknown> {
    return new Promise((resolveCall, rejectCall) => {
      if (signal?.aborted) return rejectCall(restarted());
      const id = ++requestId;
      // One HTTP request may carry many statements: each takes its listener off when it settles.
      const onAbort = () => {
        if (!incarnation.pending.has(id)) return;
        incarnation.child.kill('SIGKILL');
        if (current === incarnation && !closed) start();
      };
      const resolve = (value: unknown) => {
        signal?.removeEventListener('abort', onAbort);
        resolveCall(value);
      };
      const reject = (error: unknown) => {
        signal?.removeEventListener('abort', onAbort);
        rejectCall(error);
      };
      incarnation.pending.set(id, { op: call.op, resolve, reject });
      holdWhileBusy(incarnation);
      incarnation.child.send({ id, ...call }, (error) => {
        // The process is gone (its exit already failed everything pending before this request).
        if (error && incarnation.pending.delete(id)) reject(restarted());
      });
      // The client is gone: stop its statement the only way SQLite on another thread allows, and
      // have the next process ready for the next client.
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Starts a database process; it becomes the current one at once, usable once `ready`. */
  function start(): Incarnation {
    const child = fork(processFile(), [], {
      execArgv: processExecArgv(),
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const incarnation: Incarnation = {
      child,
      generation: ++generation,
      pending: new Map(),
      ready: Promise.resolve(),
      exited: new Promise((resolve) => child.once('exit', () => resolve())),
    };
    child.on('message', (raw: unknown) => {
      const answer = DatabaseAnswerSchema.safeParse(raw);
      if (!answer.success) return;
      const pending = incarnation.pending.get(answer.data.id);
      if (!pending) return;
      incarnation.pending.delete(answer.data.id);
      holdWhileBusy(incarnation);
      if (answer.data.ok) pending.resolve(answer.data.value);
      else pending.reject(new StatementError(answer.data.error.code, answer.data.error.message));
    });
    child.on('error', () => child.kill('SIGKILL'));
    child.once('exit', () => {
      if (current === incarnation) current = undefined;
      writeLock.releaseLost(incarnation.generation);
      for (const pending of incarnation.pending.values()) pending.reject(restarted());
      incarnation.pending.clear();
    });
    incarnation.ready = request(incarnation, { op: 'open', url, seed: options.seed }).then(() => undefined);
    // A process that cannot open the database is replaced on the next call, which reports why.
    incarnation.ready.catch(() => child.kill('SIGKILL'));
    current = incarnation;
    return incarnation;
  }

  /** The running database process, started again after it was stopped. */
  async function running(): Promise<Incarnation> {
    if (closed) throw new StatementError('HRANA_CLOSED_ERROR', 'The database is closed');
    const incarnation = current ?? start();
    await incarnation.ready;
    return incarnation;
  }

  /**
   * A server's busy timeout, as sqld's connections have: a stream that wants to write while
   * another holds the write lock waits for it (in turn, up to the busy timeout) instead of failing
   * at once. The database process runs one statement at a time, so SQLite's own busy timeout
   * would hold the lock's owner back too: the queue is kept here. A write that still meets a
   * lock (a form this does not recognise) waits and runs again outside a transaction; inside
   * one the error is returned, as SQLite does, since waiting there could deadlock.
   */
  async function execute(
    session: RemoteSession,
    statement: SqlStatement,
    readOnly: boolean,
    signal?: AbortSignal,
  ): Promise<SqlResult> {
    const deadline = performance.now() + busyTimeoutMs;
    if (!readOnly && takesWriteLock(statement.sql)) await writeLock.acquire(session, busyTimeoutMs, signal);
    try {
      for (let pause = 1; ; pause = Math.min(pause * 2, MAX_BUSY_PAUSE_MS)) {
        const autocommit = session.autocommit;
        try {
          return await executeOnce(session, statement, readOnly, signal);
        } catch (error) {
          const busy = error instanceof StatementError && error.code.startsWith('SQLITE_BUSY');
          if (!busy || !autocommit || signal?.aborted || performance.now() + pause > deadline) throw error;
          await sleep(pause);
        }
      }
    } finally {
      // Outside a transaction again (committed, rolled back, or never begun): the next writer's turn.
      if (session.autocommit) writeLock.release(session);
    }
  }

  async function executeOnce(
    session: RemoteSession,
    statement: SqlStatement,
    readOnly: boolean,
    signal?: AbortSignal,
  ): Promise<SqlResult> {
    const incarnation = await running();
    if (incarnation.generation !== session.generation) {
      // Its transaction ended with the process it was on: it holds no lock now.
      session.autocommit = true;
      throw restarted();
    }
    const executed = ExecutedSchema.parse(
      await request(incarnation, { op: 'execute', session: session.id, statement, readOnly }, signal),
    );
    session.autocommit = executed.autocommit;
    return executed.result;
  }

  /** Lets an idle process close its connections; one still working (or starting) is killed. */
  async function stop(incarnation: Incarnation): Promise<void> {
    if (incarnation.pending.size > 0) incarnation.child.kill('SIGKILL');
    else {
      void request(incarnation, { op: 'close' }).catch(() => undefined);
      const timer = setTimeout(() => incarnation.child.kill('SIGKILL'), CLOSE_GRACE_MS);
      await incarnation.exited;
      clearTimeout(timer);
    }
    await incarnation.exited;
  }

  try {
    await start().ready;
  } catch (error) {
    closed = true;
    if (temporaryDir) rmSync(temporaryDir, { recursive: true, force: true });
    throw error;
  }

  return {
    url,
    async openSession() {
      const incarnation = await running();
      const id = SessionIdSchema.parse(await request(incarnation, { op: 'openSession' }));
      return new RemoteSession(id, incarnation.generation, execute);
    },
    async releaseSession(session) {
      if (!(session instanceof RemoteSession)) return;
      const incarnation = current;
      if (!incarnation || incarnation.generation !== session.generation) return;
      session.autocommit = true;
      writeLock.release(session);
      await request(incarnation, { op: 'releaseSession', session: session.id }).catch(() => undefined);
    },
    async describe(sql, signal) {
      const incarnation = await running();
      return DescribedSchema.parse(await request(incarnation, { op: 'describe', sql }, signal));
    },
    processId: () => current?.child.pid,
    statementsRunning: () =>
      current ? [...current.pending.values()].filter((pending) => pending.op === 'execute').length : 0,
    async close() {
      if (closed) return;
      closed = true;
      if (current) await stop(current);
      if (temporaryDir) rmSync(temporaryDir, { recursive: true, force: true });
    },
  };
}
