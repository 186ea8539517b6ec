/**
 * A response body streamed from the event loop into a report worker over a MessagePort, with
 * credit-based backpressure: the worker grants a window of batches up front (WINDOW, or its own)
 * and one more each time it has finished one, so at most that many batches sit in its port
 * whatever the body size,
 * and a slow disk slows the HTTP read instead of filling memory. A worker done with a chunk can
 * hand its memory back with the next credit, so that a long body reuses a few batches instead
 * of leaving hundreds of megabytes of spent ones for the garbage collector. One task may read
 * several bodies in turn (the days of a window): a DOCUMENT_BREAK in the source separates them.
 */
import { finished, Readable } from 'node:stream';
import { MessageChannel, type MessagePort, receiveMessageOnPort } from 'node:worker_threads';
import { EdgeopsError, InternalError } from '../errors.js';
import type { ReportPool, ReportWorkerName } from './pool.js';
import { collectYoungGarbage } from './young-collection.js';

/**
 * Small chunks from the socket are gathered into batches: fewer messages, same bytes. Each batch
 * costs a message each way and may wake a thread: two of 512 KiB in the port hold the same 1 MiB
 * as four of 256 KiB did, for half the messages (bench/export.ts: some 5% of the export's CPU
 * time). What is sized by one batch doubles: the one being gathered, a worker's output buffers.
 */
export const BATCH_BYTES = 512 * 1024;
export const WINDOW = 2;
/**
 * The most batches a worker may ask for at once. The event loop keeps at most this many spent
 * batches to reuse; a receiver asking for more is held to it.
 */
export const MAX_WINDOW = 8;
/** A batch's memory holds one more socket read than a batch needs, so returned ones fit the next. */
const BATCH_CAPACITY = BATCH_BYTES + 64 * 1024;
/**
 * The event loop collects its young garbage every this many bytes forwarded: the source's spent
 * chunks (young-collection.ts). 8 MiB of a 200 MB export's socket buffers instead of some 32.
 */
const COLLECT_EVERY = 8 * 1024 * 1024;
/** How long a worker has to stop after a cancel before its thread is terminated. */
const CANCEL_GRACE_MS = 2_000;

/** In a source, between two bodies: what follows is a new document. */
export const DOCUMENT_BREAK: unique symbol = Symbol('document break');
export type SourcePiece = Uint8Array | typeof DOCUMENT_BREAK;

// The messages are checked by hand, not with zod: loading zod would cost every export worker
// thread about 7 MB of its 150 MB budget (bench/export.ts).

type ToWorker =
  | { type: 'chunk'; data: Uint8Array }
  | { type: 'break' }
  | { type: 'end' }
  | { type: 'cancel' };

function toWorker(raw: unknown): ToWorker | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { type, data } = raw as Record<string, unknown>;
  if (type === 'chunk') return data instanceof Uint8Array ? { type, data } : undefined;
  return type === 'break' || type === 'end' || type === 'cancel' ? { type } : undefined;
}

/** The worker has read a document to its end: the next one may be fetched. */
const isDocumentRead = (raw: unknown): boolean =>
  typeof raw === 'object' && raw !== null && (raw as Record<string, unknown>).type === 'document-read';

interface Credit {
  count: number;
  /** Entries or rows the worker has handled so far. */
  items: number;
  /** The memory of chunks the worker released, for the next batches. */
  spent: ArrayBuffer[];
}

function creditOf(raw: unknown): Credit | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { type, count, items, spent = [] } = raw as Record<string, unknown>;
  if (type !== 'credit' || !Number.isSafeInteger(count) || !Number.isSafeInteger(items)) return undefined;
  if ((count as number) < 1 || (items as number) < 0) return undefined;
  if (!Array.isArray(spent) || !spent.every((buffer) => buffer instanceof ArrayBuffer)) return undefined;
  return { count: count as number, items: items as number, spent };
}

export interface StreamProgress {
  /** Body bytes handed to the worker so far. */
  bytes: number;
  /** Entries or rows the worker has handled so far. */
  items: number;
}

/** Thrown inside the worker when the event loop cancels the task. */
export class StreamCancelledError extends EdgeopsError {
  override name = 'StreamCancelledError';
  readonly kind = 'aborted';
  readonly outcome = 'failed';
  readonly unexpected = false;

  get userMessage(): string {
    return this.message;
  }
}

/** Worker side: the body as an async iterable of Buffers; pulling the next one grants a credit. */
export class ChunkReceiver implements AsyncIterable<Buffer> {
  private readonly queue: (Uint8Array | typeof DOCUMENT_BREAK)[] = [];
  private spent: ArrayBuffer[] = [];
  private ended = false;
  private readonly cancel = new AbortController();
  private wake: (() => void) | undefined;
  /** Set by the task so that credits carry its progress. */
  items = 0;
  /** Called between two documents, after every chunk of the first has been handed out. */
  onBreak: (() => void) | undefined;

  /**
   * @param window Batches asked for up front (at most MAX_WINDOW). More lets the event loop read
   * ahead through a stall of the source, for that many batches' memory.
   */
  constructor(
    private readonly port: MessagePort,
    private readonly window = WINDOW,
  ) {
    if (!Number.isInteger(window) || window < 1)
      throw new RangeError(`a worker asks for a whole number of batches, at least one: not ${window}`);
    port.on('message', this.take);
  }

  private readonly take = (raw: unknown): void => {
    const message = toWorker(raw);
    if (!message) return;
    if (message.type === 'chunk') this.queue.push(message.data);
    else if (message.type === 'break') this.queue.push(DOCUMENT_BREAK);
    else if (message.type === 'end') this.ended = true;
    else this.cancel.abort(new StreamCancelledError('cancelled'));
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  };

  /** Aborted when the event loop cancels: work between chunks should stop on it too. */
  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  private grant(count: number): void {
    const spent = this.spent;
    if (spent.length === 0) this.port.postMessage({ type: 'credit', count, items: this.items });
    else {
      this.spent = [];
      this.port.postMessage({ type: 'credit', count, items: this.items, spent }, spent);
    }
  }

  /** Gives the chunk's memory back to the sender with the next credit: the chunk must not be read again. */
  release(chunk: Buffer): void {
    if (chunk.buffer instanceof ArrayBuffer && chunk.buffer.byteLength >= BATCH_BYTES)
      this.spent.push(chunk.buffer);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    this.grant(Math.min(this.window, MAX_WINDOW));
    for (;;) {
      this.signal.throwIfAborted();
      const data = this.queue.shift();
      if (data === DOCUMENT_BREAK) {
        this.onBreak?.();
        this.port.postMessage({ type: 'document-read' });
        continue;
      }
      if (data) {
        yield Buffer.from(data.buffer, data.byteOffset, data.byteLength);
        this.grant(1);
        continue;
      }
      if (this.ended) return;
      // A batch that came while this thread was busy waits in the port: taken now, it costs no
      // turn of this thread's event loop.
      const waiting = receiveMessageOnPort(this.port);
      if (waiting !== undefined) {
        this.take(waiting.message);
        continue;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  close(): void {
    this.port.close();
  }
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface StreamToWorkerOptions {
  pool: ReportPool;
  worker: ReportWorkerName;
  /** The task's own fields; `port` is added. Must be structured-cloneable. */
  task: Record<string, unknown>;
  /** Ports among the task's fields, handed over with it. */
  transfer?: MessagePort[];
  /**
   * The body, or several separated by DOCUMENT_BREAK. A byte stream (a platform response's body)
   * is read by its events, which costs a fraction of async iteration's CPU time per chunk.
   */
  source: AsyncIterable<SourcePiece>;
  signal?: AbortSignal;
  onProgress?: (progress: StreamProgress) => void;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Resolves with the next chunk, or rejects as soon as the signal aborts. */
function nextOrAbort<T>(next: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return next;
  if (signal.aborted) {
    next.catch(() => undefined);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      next.catch(() => undefined);
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    next.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The worker ended the task before the body did (it failed, or it stopped reading). */
class WorkerSettledError extends InternalError {
  override name = 'WorkerSettledError';
  readonly kind = 'worker-settled';
}

/**
 * Event-loop side: runs `worker` on the pool and forwards `source` to it. Returns the worker's
 * result; on abort or a failing source, cancels the worker, waits for it to stop (terminating
 * the thread past a grace period) and rethrows. A result the worker returned early wins over
 * the body's remaining bytes.
 */
// One piece: the credits, the wake-ups and the worker's outcome are one task's state, which the
// forwarding of a document's pieces reads and changes between every two of its awaits.
export async function streamToWorker(options: StreamToWorkerOptions): Promise<unknown> {
  const { pool, signal, onProgress } = options;
  const { port1, port2 } = new MessageChannel();
  const terminate = new AbortController();
  let credits = 0;
  let bytes = 0;
  let breaks = 0;
  let documentsRead = 0;
  /** Batch memory the worker gave back. */
  const spare: ArrayBuffer[] = [];
  let settled = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  port1.on('message', (raw: unknown) => {
    if (isDocumentRead(raw)) {
      documentsRead++;
      notify();
      return;
    }
    const credit = creditOf(raw);
    if (!credit) return;
    credits += credit.count;
    for (const buffer of credit.spent) if (spare.length < MAX_WINDOW) spare.push(buffer);
    onProgress?.({ bytes, items: credit.items });
    notify();
  });
  signal?.addEventListener('abort', notify);

  const outcome: Promise<Outcome> = pool
    .run(
      { ...options.task, port: port2 },
      {
        worker: options.worker,
        transferList: [port2, ...(options.transfer ?? [])],
        signal: terminate.signal,
      },
    )
    .then(
      (value): Outcome => ({ ok: true, value }),
      (error: unknown): Outcome => ({ ok: false, error }),
    )
    .finally(() => {
      settled = true;
      notify();
    });

  /** Returns once the worker may take a batch; throws when the task ended or was cancelled meanwhile. */
  const creditFor = async () => {
    while (credits === 0 && !settled && !signal?.aborted)
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    signal?.throwIfAborted();
    if (settled) throw new WorkerSettledError();
  };
  /** Hands a batch over: call with a credit in hand. */
  const post = (batch: Uint8Array[], size: number) => {
    credits--;
    // A copy into memory we own (the client's chunks may be views over its own buffers): a
    // batch the worker gave back, or a new one with room for the next batch when it is returned.
    const reused = spare.pop();
    const data =
      reused && reused.byteLength >= size
        ? new Uint8Array(reused, 0, size)
        : new Uint8Array(
            new ArrayBuffer(size >= BATCH_BYTES ? Math.max(size, BATCH_CAPACITY) : size),
            0,
            size,
          );
    let offset = 0;
    for (const chunk of batch) {
      data.set(chunk, offset);
      offset += chunk.byteLength;
    }
    port1.postMessage({ type: 'chunk', data }, [data.buffer]);
    const before = bytes;
    bytes += size;
    if (Math.floor(bytes / COLLECT_EVERY) !== Math.floor(before / COLLECT_EVERY)) collectYoungGarbage();
  };
  const send = async (batch: Uint8Array[], size: number) => {
    await creditFor();
    post(batch, size);
  };

  const { source } = options;
  const byEvents = source instanceof Readable && !source.readableObjectMode;
  const iterator = byEvents ? undefined : source[Symbol.asyncIterator]();
  try {
    if (iterator) await forwardPieces(iterator);
    else
      await forwardBytes(
        source as Readable,
        { hasCredit: () => credits > 0 && !settled && !signal?.aborted, creditFor, post },
        signal,
      );
    if (!settled) port1.postMessage({ type: 'end' });
  } catch (error) {
    // Stop the HTTP read (destroying the response) without waiting for it.
    if (iterator) iterator.return?.().catch(() => undefined);
    else (source as Readable).destroy();
    if (!settled) {
      port1.postMessage({ type: 'cancel' });
      const timer = setTimeout(() => terminate.abort(), CANCEL_GRACE_MS);
      await outcome;
      clearTimeout(timer);
    }
    if (!(error instanceof WorkerSettledError)) {
      port1.close();
      throw error;
    }
  } finally {
    signal?.removeEventListener('abort', notify);
  }
  const result = await outcomeUnlessCancelled(outcome, signal);
  if (result === 'cancelled') {
    // The body is sent whole and the worker still works on its end: the cancel stops that too.
    port1.postMessage({ type: 'cancel' });
    const timer = setTimeout(() => terminate.abort(), CANCEL_GRACE_MS);
    await outcome;
    clearTimeout(timer);
    port1.close();
    throw signal?.reason;
  }
  port1.close();
  if (!result.ok) throw result.error;
  return result.value;

  /** Forwards the pieces of an async iterable, a document break between two bodies. */
  async function forwardPieces(pieces: AsyncIterator<SourcePiece>): Promise<void> {
    let batch: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const next = await nextOrAbort(pieces.next(), signal);
      if (next.done) break;
      if (next.value === DOCUMENT_BREAK) {
        if (size > 0) await send(batch, size);
        batch = [];
        size = 0;
        // Needs no credit: it holds no bytes, and the port keeps it in order after the last chunk.
        if (!settled) port1.postMessage({ type: 'break' });
        breaks++;
        // The next body is fetched only once this one is read whole: a bad one stops the rest.
        while (documentsRead < breaks && !settled && !signal?.aborted)
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        signal?.throwIfAborted();
        if (settled) throw new WorkerSettledError();
        continue;
      }
      batch.push(next.value);
      size += next.value.byteLength;
      if (size >= BATCH_BYTES) {
        await send(batch, size);
        batch = [];
        size = 0;
      }
    }
    if (size > 0) await send(batch, size);
  }
}

/** The worker's outcome, or 'cancelled' when `signal` aborts first (or has already). */
async function outcomeUnlessCancelled(
  outcome: Promise<Outcome>,
  signal: AbortSignal | undefined,
): Promise<Outcome | 'cancelled'> {
  if (!signal) return outcome;
  if (signal.aborted) return 'cancelled';
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<'cancelled'>((resolve) => {
    onAbort = () => resolve('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([outcome, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** How a forwarder hands batches to the worker (streamToWorker's credits). */
interface BatchSender {
  /** Whether the worker may take a batch now. */
  hasCredit(): boolean;
  /** Returns once the worker may take a batch; throws when the task ended or was cancelled meanwhile. */
  creditFor(): Promise<void>;
  /** Hands a batch over: call with a credit in hand. */
  post(batch: Uint8Array[], size: number): void;
}

/**
 * Forwards a byte stream's chunks as its 'data' events bring them, pausing it while the worker
 * has no credit; rejects when it fails, the task ends early or `signal` aborts.
 */
function forwardBytes(body: Readable, sender: BatchSender, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let batch: Uint8Array[] = [];
    let size = 0;
    let done = false;
    let ended = false;
    let sending = false;
    let paused = false;
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      body.off('data', onData);
      body.off('end', onEnd);
      stopWatching();
      // Read to its end or stopped, the body is done with: the caller destroys one it stopped
      // reading. An error it emits from now on (one already on its way as the export is
      // cancelled, or a failing destroy after its end) is no news, and must not go unhandled.
      body.on('error', () => undefined);
      signal?.removeEventListener('abort', onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    // Sends every full batch, and at the end the rest, each once the worker has a credit for it;
    // the stream pauses meanwhile. Node may still emit the stream's end after its pause, before
    // the batch went: the batch goes first, then what is left, then it is done.
    const pump = async () => {
      if (sending || done) return;
      sending = true;
      try {
        while (size >= BATCH_BYTES || (ended && size > 0)) {
          const full = batch;
          const fullSize = size;
          batch = [];
          size = 0;
          if (!sender.hasCredit()) {
            paused = true;
            body.pause();
            await sender.creditFor();
            if (done) return;
          }
          sender.post(full, fullSize);
        }
        if (ended) finish();
        else if (paused) {
          paused = false;
          body.resume();
        }
      } catch (error) {
        finish(error);
      } finally {
        sending = false;
      }
    };
    const onData = (chunk: Uint8Array) => {
      batch.push(chunk);
      size += chunk.byteLength;
      if (size >= BATCH_BYTES) void pump();
    };
    const onEnd = () => {
      ended = true;
      void pump();
    };
    const onAbort = () => finish(abortReason(signal!));
    body.on('data', onData);
    body.once('end', onEnd);
    // A body its holder paused flows too: a listener alone does not restart it.
    body.resume();
    // A failure, or a close before the end (a body destroyed without an error, or before this began).
    const stopWatching = finished(body, { writable: false }, (error) => {
      if (error) finish(error);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    else if (body.readableEnded) onEnd();
  });
}
