/**
 * Hrana over HTTP, version 2 (`POST /v2/pipeline`), as sqld serves it: streams kept open between
 * requests by a single-use baton, statement errors reported per request with sqld's codes, and
 * idle streams expired after ten seconds.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { EdgeopsError } from '../errors.js';
import { type HranaValue, HranaValueSchema } from '../platform/schemas.js';
import type { SandboxDatabase, SqlResult, SqlSession } from './database.js';
import type { SqlValue } from './database-engine.js';
import { splitStatements, statementParams, statementShape } from './sql-text.js';
import { type HranaError, StatementError, toHranaError } from './statement-error.js';

// ---------------------------------------------------------------- wire schemas

type BatchCond =
  | { type: 'ok'; step: number }
  | { type: 'error'; step: number }
  | { type: 'not'; cond: BatchCond }
  | { type: 'and'; conds: BatchCond[] }
  | { type: 'or'; conds: BatchCond[] }
  | { type: 'is_autocommit' };

const stepIndex = z.number().int().nonnegative();

const BatchCondSchema: z.ZodType<BatchCond> = z.lazy(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('ok'), step: stepIndex }),
    z.object({ type: z.literal('error'), step: stepIndex }),
    z.object({ type: z.literal('not'), cond: BatchCondSchema }),
    z.object({ type: z.literal('and'), conds: z.array(BatchCondSchema) }),
    z.object({ type: z.literal('or'), conds: z.array(BatchCondSchema) }),
    z.object({ type: z.literal('is_autocommit') }),
  ]),
);

const sqlId = z.number().int();

const StmtSchema = z.object({
  sql: z.string().nullish(),
  sql_id: sqlId.nullish(),
  args: z.array(HranaValueSchema).optional(),
  named_args: z.array(z.object({ name: z.string(), value: HranaValueSchema })).optional(),
  want_rows: z.boolean().optional(),
});
type Stmt = z.infer<typeof StmtSchema>;

const StreamRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('close') }),
  z.object({ type: z.literal('execute'), stmt: StmtSchema }),
  z.object({
    type: z.literal('batch'),
    batch: z.object({
      steps: z.array(z.object({ condition: BatchCondSchema.nullish(), stmt: StmtSchema })),
    }),
  }),
  z.object({ type: z.literal('sequence'), sql: z.string().nullish(), sql_id: sqlId.nullish() }),
  z.object({ type: z.literal('describe'), sql: z.string().nullish(), sql_id: sqlId.nullish() }),
  z.object({ type: z.literal('store_sql'), sql_id: sqlId, sql: z.string() }),
  z.object({ type: z.literal('close_sql'), sql_id: sqlId }),
]);
type StreamRequest = z.infer<typeof StreamRequestSchema>;

export const PipelineRequestSchema = z.object({
  baton: z.string().nullish(),
  requests: z.array(StreamRequestSchema),
});

// ---------------------------------------------------------------- results

interface StmtResult {
  cols: { name: string; decltype: string | null }[];
  rows: HranaValue[][];
  affected_row_count: number;
  last_insert_rowid: string | null;
  replication_index: null;
}

type StreamResponse =
  | { type: 'close' }
  | { type: 'execute'; result: StmtResult }
  | {
      type: 'batch';
      result: {
        step_results: (StmtResult | null)[];
        step_errors: (HranaError | null)[];
        replication_index: null;
      };
    }
  | { type: 'sequence' }
  | {
      type: 'describe';
      result: {
        params: { name: string | null }[];
        cols: { name: string; decltype: string | null }[];
        is_explain: boolean;
        is_readonly: boolean;
      };
    }
  | { type: 'store_sql' }
  | { type: 'close_sql' };

type StreamResult = { type: 'ok'; response: StreamResponse } | { type: 'error'; error: HranaError };

export interface PipelineResponse {
  baton: string | null;
  base_url: string | null;
  results: StreamResult[];
}

/** What the HTTP layer sends: sqld answers protocol errors in plain text and expiry as JSON. */
export type HranaOutcome =
  | { status: 200; json: PipelineResponse }
  | { status: 400; text: string }
  | { status: 500; json: HranaError };

export interface HranaService {
  /** Aborting `signal` (the client went away) stops the statement running for it. */
  pipeline(body: unknown, readOnly: boolean, signal?: AbortSignal): Promise<HranaOutcome>;
  /** Streams currently held open by a baton. */
  openStreams(): number;
  close(): Promise<void>;
}

export interface HranaOptions {
  database: SandboxDatabase;
  now: () => number;
  /** Idle time after which a stream's baton stops working; sqld uses about ten seconds. */
  streamIdleMs?: number;
}

/** A malformed request: the whole pipeline fails with 400, as sqld does. */
class ProtocolError extends EdgeopsError {
  override name = 'ProtocolError';
  readonly kind = 'hrana-protocol';
  readonly outcome = 'refused';
  readonly unexpected = false;

  get userMessage(): string {
    return this.message;
  }
}

const STREAM_EXPIRED: HranaError = {
  message: 'The stream has expired due to inactivity',
  code: 'STREAM_EXPIRED',
};

// ---------------------------------------------------------------- values

function toArg(value: HranaValue): SqlValue {
  switch (value.type) {
    case 'null':
      return null;
    case 'integer':
      return BigInt(value.value);
    case 'float':
      return value.value;
    case 'text':
      return value.value;
    case 'blob': {
      const bytes = Buffer.from(value.base64, 'base64');
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    }
  }
}

function toHranaValue(value: unknown): HranaValue {
  if (value === null || value === undefined) return { type: 'null' };
  if (typeof value === 'bigint') return { type: 'integer', value: value.toString() };
  if (typeof value === 'number') return { type: 'float', value };
  if (typeof value === 'string') return { type: 'text', value };
  if (value instanceof ArrayBuffer) {
    return { type: 'blob', base64: Buffer.from(value).toString('base64').replace(/=+$/, '') };
  }
  return { type: 'text', value: String(value) };
}

function toStmtResult(result: SqlResult, wantRows: boolean): StmtResult {
  const width = result.columns.length;
  return {
    cols: result.columns.map((name, index) => ({ name, decltype: result.columnTypes[index] || null })),
    rows: wantRows
      ? result.rows.map((row) => Array.from({ length: width }, (_, i) => toHranaValue(row[i])))
      : [],
    affected_row_count: result.rowsAffected,
    last_insert_rowid: result.lastInsertRowid === undefined ? null : result.lastInsertRowid.toString(),
    replication_index: null,
  };
}

// ---------------------------------------------------------------- streams

interface Stream {
  session: SqlSession;
  sqls: Map<number, string>;
  lastUsed: number;
  closed: boolean;
}

function singleStatement(sql: string): string {
  const statements = splitStatements(sql);
  if (statements.length === 0) {
    throw new StatementError('SQL_NO_STATEMENT', 'SQL string does not contain any statement');
  }
  if (statements.length > 1) {
    throw new StatementError('SQL_MANY_STATEMENTS', 'SQL string contains more than one statement');
  }
  return statements[0] ?? '';
}

export function createHranaService(options: HranaOptions): HranaService {
  const { database, now } = options;
  const idleMs = options.streamIdleMs ?? 10_000;
  const streams = new Map<string, Stream>();
  // Batons of expired streams, so a late request learns why rather than seeing "invalid baton".
  const expired = new Map<string, number>();

  const expire = (baton: string, stream: Stream) => {
    streams.delete(baton);
    expired.set(baton, now());
    if (expired.size > 10_000) {
      const oldest = expired.keys().next().value;
      if (oldest !== undefined) expired.delete(oldest);
    }
    void database.releaseSession(stream.session);
  };

  const sweep = setInterval(() => {
    const cutoff = now() - idleMs;
    for (const [baton, stream] of streams) if (stream.lastUsed < cutoff) expire(baton, stream);
  }, 1_000);
  sweep.unref();

  const resolveSql = (stream: Stream, sql: string | null | undefined, id: number | null | undefined) => {
    if (sql != null && id != null) throw new ProtocolError('Received both sql and sql_id');
    if (sql != null) return sql;
    if (id == null) throw new ProtocolError('Received neither sql nor sql_id');
    const stored = stream.sqls.get(id);
    if (stored === undefined) throw new ProtocolError(`SQL text with id ${id} was not found`);
    return stored;
  };

  const execute = async (
    stream: Stream,
    stmt: Stmt,
    readOnly: boolean,
    signal: AbortSignal | undefined,
  ): Promise<StmtResult> => {
    const sql = resolveSql(stream, stmt.sql, stmt.sql_id);
    singleStatement(sql);
    const positional = (stmt.args ?? []).map(toArg);
    const named = stmt.named_args ?? [];
    if (positional.length > 0 && named.length > 0) {
      throw new StatementError(
        'ARGS_BOTH_POSITIONAL_AND_NAMED',
        'Statement has both positional and named arguments',
      );
    }
    const args =
      named.length > 0
        ? Object.fromEntries(named.map(({ name, value }) => [name, toArg(value)]))
        : positional;
    const result = await stream.session.execute({ sql, args }, readOnly, signal);
    return toStmtResult(result, stmt.want_rows !== false);
  };

  const evaluate = (
    cond: BatchCond,
    step: number,
    results: readonly (StmtResult | null)[],
    errors: readonly (HranaError | null)[],
    stream: Stream,
  ): boolean => {
    switch (cond.type) {
      case 'ok':
      case 'error':
        if (cond.step >= step)
          throw new ProtocolError(`Batch condition refers to step ${cond.step} from step ${step}`);
        return cond.type === 'ok' ? results[cond.step] != null : errors[cond.step] != null;
      case 'not':
        return !evaluate(cond.cond, step, results, errors, stream);
      case 'and':
        return cond.conds.every((inner) => evaluate(inner, step, results, errors, stream));
      case 'or':
        return cond.conds.some((inner) => evaluate(inner, step, results, errors, stream));
      case 'is_autocommit':
        return stream.session.autocommit;
    }
  };

  const handle = async (
    stream: Stream,
    request: StreamRequest,
    readOnly: boolean,
    signal: AbortSignal | undefined,
  ): Promise<StreamResponse> => {
    if (stream.closed) throw new StatementError('STREAM_CLOSED', 'The stream has been closed');
    switch (request.type) {
      case 'close':
        stream.closed = true;
        return { type: 'close' };
      case 'execute':
        return { type: 'execute', result: await execute(stream, request.stmt, readOnly, signal) };
      case 'batch': {
        const results: (StmtResult | null)[] = [];
        const errors: (HranaError | null)[] = [];
        for (const [index, step] of request.batch.steps.entries()) {
          const run = step.condition == null || evaluate(step.condition, index, results, errors, stream);
          if (!run) {
            results.push(null);
            errors.push(null);
            continue;
          }
          try {
            results.push(await execute(stream, step.stmt, readOnly, signal));
            errors.push(null);
          } catch (error) {
            if (error instanceof ProtocolError) throw error;
            results.push(null);
            errors.push(toHranaError(error));
          }
        }
        return {
          type: 'batch',
          result: { step_results: results, step_errors: errors, replication_index: null },
        };
      }
      case 'sequence': {
        const sql = resolveSql(stream, request.sql, request.sql_id);
        for (const statement of splitStatements(sql)) {
          await stream.session.execute({ sql: statement, args: [] }, readOnly, signal);
        }
        return { type: 'sequence' };
      }
      case 'describe': {
        const sql = singleStatement(resolveSql(stream, request.sql, request.sql_id));
        const shape = statementShape(sql);
        const params = statementParams(sql).map((name) => ({ name }));
        if (shape.isExplain) {
          const cols = ['addr', 'opcode', 'p1', 'p2', 'p3', 'p4', 'p5', 'comment'].map((name) => ({
            name,
            decltype: null,
          }));
          return { type: 'describe', result: { params, cols, is_explain: true, is_readonly: true } };
        }
        const described = await database.describe(sql, signal);
        return {
          type: 'describe',
          result: { params, cols: described.cols, is_explain: false, is_readonly: described.isReadonly },
        };
      }
      case 'store_sql':
        if (stream.sqls.has(request.sql_id)) {
          throw new ProtocolError(`SQL text with id ${request.sql_id} is already stored`);
        }
        stream.sqls.set(request.sql_id, request.sql);
        return { type: 'store_sql' };
      case 'close_sql':
        stream.sqls.delete(request.sql_id);
        return { type: 'close_sql' };
    }
  };

  const checkOut = async (baton: string | null | undefined): Promise<Stream | HranaOutcome> => {
    if (baton == null) {
      return { session: await database.openSession(), sqls: new Map(), lastUsed: now(), closed: false };
    }
    const stream = streams.get(baton);
    if (stream) {
      if (stream.lastUsed < now() - idleMs) {
        expire(baton, stream);
        return { status: 500, json: STREAM_EXPIRED };
      }
      // Batons are single-use: a second request with the same one is refused.
      streams.delete(baton);
      return stream;
    }
    if (expired.has(baton)) return { status: 500, json: STREAM_EXPIRED };
    return { status: 400, text: 'Received an invalid baton' };
  };

  return {
    async pipeline(body, readOnly, signal) {
      const parsed = PipelineRequestSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return { status: 400, text: `Invalid pipeline request: ${issue?.path.join('.')}: ${issue?.message}` };
      }
      const checkedOut = await checkOut(parsed.data.baton);
      if ('status' in checkedOut) return checkedOut;
      const stream = checkedOut;
      const results: StreamResult[] = [];
      try {
        for (const request of parsed.data.requests) {
          try {
            results.push({ type: 'ok', response: await handle(stream, request, readOnly, signal) });
          } catch (error) {
            if (error instanceof ProtocolError) throw error;
            results.push({ type: 'error', error: toHranaError(error) });
          }
        }
      } catch (error) {
        await database.releaseSession(stream.session);
        return { status: 400, text: error instanceof Error ? error.message : String(error) };
      }
      if (stream.closed) {
        await database.releaseSession(stream.session);
        return { status: 200, json: { baton: null, base_url: null, results } };
      }
      const baton = randomBytes(24).toString('base64url');
      stream.lastUsed = now();
      streams.set(baton, stream);
      return { status: 200, json: { baton, base_url: null, results } };
    },
    openStreams: () => streams.size,
    async close() {
      clearInterval(sweep);
      for (const [baton, stream] of streams) expire(baton, stream);
    },
  };
}
