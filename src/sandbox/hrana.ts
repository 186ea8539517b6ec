/**
 * Hrana over HTTP, version 2 (`POST /v2/pipeline`), as sqld serves it: streams kept open between
 * requests by a single-use baton, statement errors reported per request with sqld's codes, and
 * idle streams expired after ten seconds. Each type of request is answered by a file of hrana/.
 */
import { randomBytes } from 'node:crypto';
import type { SandboxDatabase } from './database.js';
import { batch } from './hrana/batch.js';
import { describe } from './hrana/describe.js';
import { execute } from './hrana/execute.js';
import { sequence } from './hrana/sequence.js';
import { closeSql, storeSql } from './hrana/stored-sql.js';
import { ProtocolError, type RequestContext, type Stream } from './hrana/stream.js';
import {
  PipelineRequestSchema,
  type PipelineResponse,
  type StreamRequest,
  type StreamResponse,
  type StreamResult,
} from './hrana/wire.js';
import { type HranaError, StatementError, toHranaError } from './statement-error.js';

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

const STREAM_EXPIRED: HranaError = {
  message: 'The stream has expired due to inactivity',
  code: 'STREAM_EXPIRED',
};

/** Answers one request of a pipeline on its stream. */
async function handle(ctx: RequestContext, request: StreamRequest): Promise<StreamResponse> {
  if (ctx.stream.closed) throw new StatementError('STREAM_CLOSED', 'The stream has been closed');
  switch (request.type) {
    case 'close':
      ctx.stream.closed = true;
      return { type: 'close' };
    case 'execute':
      return execute(ctx, request);
    case 'batch':
      return batch(ctx, request);
    case 'sequence':
      return sequence(ctx, request);
    case 'describe':
      return describe(ctx, request);
    case 'store_sql':
      return storeSql(ctx, request);
    case 'close_sql':
      return closeSql(ctx, request);
  }
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
      const ctx: RequestContext = { stream, database, readOnly, signal };
      const results: StreamResult[] = [];
      try {
        for (const request of parsed.data.requests) {
          try {
            results.push({ type: 'ok', response: await handle(ctx, request) });
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
