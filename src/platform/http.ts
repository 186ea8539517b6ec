/**
 * All platform HTTP goes through here: one keep-alive undici Pool per origin, connect /
 * header / body timeouts, the AccessKey header, retries for reads only, and one mapping
 * from failed responses to PlatformError.
 */
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { Pool, errors as undiciErrors } from 'undici';
import type { z } from 'zod';
import type { Logger } from '../telemetry/log.js';
import type { PlatformCallEvent } from '../telemetry/metrics.js';
import type { Clock } from '../time/clock.js';
import {
  type CallTarget,
  errorFromResponse,
  invalidResponse,
  PlatformError,
  parseRetryAfter,
} from './errors.js';

export interface RetryPolicy {
  /** Total tries for a read, the first included (PRODUCT §6: "3 tries"). */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is reported instead. */
  maxRetryAfterSeconds: number;
}

export interface PlatformHttpOptions {
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** Largest JSON body read into memory; the streamed operations have no such limit. */
  maxJsonBytes?: number;
  retry?: Partial<RetryPolicy>;
  logger?: Logger;
  onCall?: (event: PlatformCallEvent) => void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Reads a Retry-After date against this clock. */
  now: Clock;
}

export interface PlatformRequest extends CallTarget {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute URL of the endpoint, without the query string. */
  url: string;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  json?: unknown;
  /** Reads retry on 429, 5xx and connection errors; writes never do. */
  read: boolean;
  /** Status codes that count as success. */
  expect: readonly number[];
  signal?: AbortSignal;
}

export interface PlatformStream {
  body: Readable;
  contentType?: string;
  contentLength?: number;
}

const DEFAULT_RETRY: RetryPolicy = {
  attempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  maxRetryAfterSeconds: 30,
};

type UndiciResponse = Awaited<ReturnType<Pool['request']>>;

function networkError(operation: string, error: unknown, signal?: AbortSignal): PlatformError {
  if (signal?.aborted || (error instanceof Error && error.name === 'AbortError'))
    return new PlatformError({
      kind: 'aborted',
      operation,
      userMessage: 'The request was cancelled.',
      cause: error,
    });
  let what = 'the connection failed';
  if (error instanceof undiciErrors.ConnectTimeoutError) what = 'connecting timed out';
  else if (error instanceof undiciErrors.HeadersTimeoutError) what = 'the platform did not answer in time';
  else if (error instanceof undiciErrors.BodyTimeoutError) what = 'the response stalled';
  else if (error instanceof undiciErrors.ResponseContentLengthMismatchError)
    what = 'the response was cut short';
  else if (error instanceof undiciErrors.SocketError) what = 'the connection was closed mid-response';
  else if (error instanceof Error && 'code' in error && typeof error.code === 'string') what = error.code;
  return new PlatformError({
    kind: 'network',
    operation,
    userMessage: `Could not reach the platform (${what}). Try again; if it persists, check PLATFORM_API_URL and the platform's status.`,
    cause: error,
  });
}

/**
 * The caller stopped the call while it waited to try again: cancelled, with the platform's last
 * answer as the cause, since the platform did answer (a caller's own time limit may say so).
 */
function stoppedBeforeRetry(
  operation: string,
  error: unknown,
  signal: AbortSignal | undefined,
  last: PlatformError,
): PlatformError {
  const stopped = networkError(operation, error, signal);
  if (stopped.kind !== 'aborted') return stopped;
  return new PlatformError({
    kind: 'aborted',
    operation,
    userMessage: stopped.userMessage,
    cause: last,
    attempts: last.attempts,
  });
}

export class PlatformHttp {
  private readonly pools = new Map<string, Pool>();
  private readonly retry: RetryPolicy;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly maxJsonBytes: number;

  constructor(
    private readonly defaultHeaders: Record<string, string>,
    private readonly options: PlatformHttpOptions,
  ) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.sleep = options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
    this.random = options.random ?? Math.random;
    this.maxJsonBytes = options.maxJsonBytes ?? 64 * 1024 * 1024;
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: 32,
        keepAliveTimeout: 30_000,
        connect: { timeout: this.options.connectTimeoutMs ?? 5_000 },
        headersTimeout: this.options.headersTimeoutMs ?? 15_000,
        bodyTimeout: this.options.bodyTimeoutMs ?? 30_000,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** Full-jitter exponential backoff, or the server's Retry-After when it gave one. */
  private backoffMs(attempt: number, retryAfterSeconds?: number): number {
    if (retryAfterSeconds !== undefined) return retryAfterSeconds * 1000;
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  private canRetry(request: PlatformRequest, attempt: number, error: PlatformError): boolean {
    if (!request.read || attempt >= this.retry.attempts) return false;
    // A Retry-After longer than the policy's is not waited for, whatever failed: it is reported.
    if ((error.retryAfterSeconds ?? 0) > this.retry.maxRetryAfterSeconds) return false;
    return error.kind === 'rate-limited' || error.kind === 'server' || error.kind === 'network';
  }

  private async sendOnce(request: PlatformRequest): Promise<UndiciResponse> {
    const url = new URL(request.url);
    for (const [name, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.defaultHeaders,
      ...request.headers,
    };
    let body: string | undefined;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    }
    return this.pool(url.origin).request({
      method: request.method,
      path: `${url.pathname}${url.search}`,
      headers,
      body,
      signal: request.signal,
    });
  }

  /**
   * Sends with retries. `consume` turns a successful response into the value; a connection
   * fault while it reads (a body cut short) counts as a failed try like any other. On an
   * unsuccessful status the body is read (bounded) to build the PlatformError.
   */
  private async call<T>(
    request: PlatformRequest,
    consume: (response: UndiciResponse) => Promise<T>,
  ): Promise<{ value: T; attempts: number }> {
    for (let attempt = 1; ; attempt++) {
      let failure: PlatformError;
      try {
        const response = await this.sendOnce(request);
        if (request.expect.includes(response.statusCode))
          return { value: await consume(response), attempts: attempt };
        const text = await readBounded(response.body, 64 * 1024).catch(() => '');
        failure = errorFromResponse(
          request,
          response.statusCode,
          text,
          parseRetryAfter(response.headers['retry-after'], this.options.now()),
        );
      } catch (error) {
        failure =
          error instanceof PlatformError ? error : networkError(request.operation, error, request.signal);
      }
      failure.attempts = attempt;
      if (!this.canRetry(request, attempt, failure)) throw failure;
      const wait = this.backoffMs(attempt, failure.retryAfterSeconds);
      this.options.logger?.warn('platform call retried', {
        operation: request.operation,
        attempt,
        kind: failure.kind,
        status: failure.status,
        waitMs: wait,
      });
      try {
        await this.sleep(wait, request.signal);
      } catch (error) {
        throw stoppedBeforeRetry(request.operation, error, request.signal, failure);
      }
    }
  }

  private async observe<T>(request: PlatformRequest, work: () => Promise<{ value: T; attempts: number }>) {
    const started = performance.now();
    try {
      const { value, attempts } = await work();
      this.options.onCall?.({
        operation: request.operation,
        outcome: 'ok',
        durationMs: performance.now() - started,
        attempts,
      });
      return value;
    } catch (error) {
      const platformError = error instanceof PlatformError ? error : networkError(request.operation, error);
      this.options.onCall?.({
        operation: request.operation,
        outcome: 'error',
        kind: platformError.kind,
        status: platformError.status,
        durationMs: performance.now() - started,
        attempts: platformError.attempts,
      });
      throw platformError;
    }
  }

  /** A call whose success body is JSON, parsed leniently with `schema`. */
  async json<S extends z.ZodType>(request: PlatformRequest, schema: S): Promise<z.infer<S>> {
    return (await this.jsonWithStatus(request, schema)).body;
  }

  /** Like `json`, with the success status too, for APIs whose 2xx codes differ in meaning. */
  jsonWithStatus<S extends z.ZodType>(
    request: PlatformRequest,
    schema: S,
  ): Promise<{ status: number; body: z.infer<S> }> {
    return this.observe(request, () =>
      this.call(request, async (response) => {
        const text = await readBounded(response.body, this.maxJsonBytes, request.operation);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (error) {
          throw invalidResponse(request.operation, 'malformed JSON', error);
        }
        const result = schema.safeParse(parsed);
        if (!result.success) throw invalidResponse(request.operation, 'unexpected shape', result.error);
        return { status: response.statusCode, body: result.data as z.infer<S> };
      }),
    );
  }

  /** A call whose success has no body worth reading (204, or a body we ignore). */
  empty(request: PlatformRequest): Promise<void> {
    return this.observe(request, () => this.call(request, (response) => response.body.dump()));
  }

  /** A call whose success body is streamed to the caller, never buffered here. */
  stream(request: PlatformRequest): Promise<PlatformStream> {
    return this.observe(request, () =>
      this.call(request, async (response) => {
        const contentType = response.headers['content-type'];
        const length = Number(response.headers['content-length']);
        return {
          body: new GuardedBody(response.body, request),
          contentType: Array.isArray(contentType) ? contentType[0] : contentType,
          contentLength: Number.isFinite(length) ? length : undefined,
        };
      }),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.pools.clear();
  }
}

/**
 * A streamed body whose read failures (a connection cut mid-body) become PlatformErrors. Its
 * chunks pass on as the client emits them, paused when the reader is behind: an async generator
 * in between cost some 100 ms of CPU time per 200 MB export (bench/export.ts).
 */
export class GuardedBody extends Readable {
  private reading = false;
  /** A failure that came while nobody listened for one here: given at the next read. */
  private failure: PlatformError | undefined;

  constructor(
    private readonly source: Readable,
    request: Pick<PlatformRequest, 'operation' | 'signal'>,
  ) {
    super();
    // Taken at once, whenever it comes: an error the source emitted with no listener would end the process.
    const fail = (error: unknown) => {
      if (this.destroyed || this.failure) return;
      const failure = networkError(request.operation, error, request.signal);
      if (this.listenerCount('error') > 0) this.destroy(failure);
      else this.failure = failure;
    };
    source.once('error', fail);
    // Closed before its end with no error: cut short all the same.
    source.once('close', () => {
      if (!source.readableEnded) fail(new Error('the response closed before its end'));
    });
  }

  override _read(): void {
    if (this.failure) {
      this.destroy(this.failure);
      return;
    }
    // The source flows from the first read on, as its reader asks for more.
    if (!this.reading) {
      this.reading = true;
      this.source.on('data', (chunk: Buffer) => {
        if (!this.push(chunk)) this.source.pause();
      });
      this.source.once('end', () => this.push(null));
    }
    this.source.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.source.destroy();
    callback(error);
  }
}

/** Reads a body as text, refusing more than `limit` bytes so a runaway body cannot fill memory. */
async function readBounded(body: Readable, limit: number, operation = 'platform'): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) {
      body.destroy();
      throw new PlatformError({
        kind: 'invalid-response',
        operation,
        userMessage: `The platform's response exceeded ${Math.round(limit / 1024 / 1024)} MB.`,
      });
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
