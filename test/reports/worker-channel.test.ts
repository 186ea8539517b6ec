/**
 * The event loop's side of a streamed report (worker-channel.ts), against a pool whose task reads
 * the port with the real ChunkReceiver in this thread: what a worker does with the bytes is the
 * worker's tests' business; here, what the channel does around it.
 */
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { ReportPool } from '../../src/reports/pool.js';
import {
  BATCH_BYTES,
  ChunkReceiver,
  MAX_WINDOW,
  streamToWorker,
  WINDOW,
} from '../../src/reports/worker-channel.js';
import { youngCollections } from '../../src/reports/young-collection.js';

/** A pool whose one task reads every chunk, then works on its end until the event loop cancels it. */
function slowEndPool(): { pool: ReportPool; bodyRead: Promise<number>; stopped: Promise<string> } {
  let bodyReadAs: (bytes: number) => void = () => undefined;
  let stoppedAs: (how: string) => void = () => undefined;
  const bodyRead = new Promise<number>((resolve) => {
    bodyReadAs = resolve;
  });
  const stopped = new Promise<string>((resolve) => {
    stoppedAs = resolve;
  });
  const pool: ReportPool = {
    async run(task, options) {
      const { port } = task as { port: MessagePort };
      const receiver = new ChunkReceiver(port);
      let bytes = 0;
      for await (const chunk of receiver) {
        bytes += chunk.length;
        receiver.release(chunk);
      }
      bodyReadAs(bytes);
      // The end's work (a summary's merge, the file's last write) outlasts the body.
      const how = await new Promise<string>((resolve) => {
        receiver.signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
        options.signal.addEventListener('abort', () => resolve('terminated'), { once: true });
      });
      receiver.close();
      stoppedAs(how);
      return { ok: true };
    },
    close: async () => undefined,
  };
  return { pool, bodyRead, stopped };
}

async function* body(): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < 3; i++) yield Buffer.alloc(100_000, 'x');
}

describe('streaming a body to a report worker', () => {
  it('stops the worker when cancelled after the whole body was sent, and says it was cancelled', async () => {
    const { pool, bodyRead, stopped } = slowEndPool();
    const controller = new AbortController();
    const streamed = streamToWorker({
      pool,
      worker: 'shield/worker',
      task: {},
      source: body(),
      signal: controller.signal,
    });
    const settled = streamed.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    expect(await bodyRead).toBe(300_000);
    const reason = new Error('cancelled by the requester');
    controller.abort(reason);
    expect(await settled).toBe(reason);
    expect(await stopped).toBe('cancelled');
  });

  it('returns what the worker returns when nobody cancels', async () => {
    const pool: ReportPool = {
      async run(task) {
        const receiver = new ChunkReceiver((task as { port: MessagePort }).port);
        let bytes = 0;
        for await (const chunk of receiver) {
          bytes += chunk.length;
          receiver.release(chunk);
        }
        receiver.close();
        return { bytes };
      },
      close: async () => undefined,
    };
    const controller = new AbortController();
    await expect(
      streamToWorker({ pool, worker: 'shield/worker', task: {}, source: body(), signal: controller.signal }),
    ).resolves.toEqual({ bytes: 300_000 });
  });
});

/** A pool whose task takes its first chunk, then waits for `gate` (no credit meanwhile), then counts the bytes. */
function gatedPool(gate: Promise<void>): ReportPool {
  return {
    async run(task) {
      const receiver = new ChunkReceiver((task as { port: MessagePort }).port);
      let bytes = 0;
      for await (const chunk of receiver) {
        await gate;
        bytes += chunk.length;
        receiver.release(chunk);
      }
      receiver.close();
      return bytes;
    },
    close: async () => undefined,
  };
}

describe('streaming a byte stream by its events', () => {
  it('sends every byte when the stream ends while a full batch waits for its credit', async () => {
    // All of it buffered and ended: two batches take the worker's first credits, the third waits
    // for one, and Node emits the end after the pause that wait asked for.
    const source = new Readable({ read() {} });
    for (let i = 0; i < 3; i++) source.push(Buffer.alloc(BATCH_BYTES, 'x'));
    source.push(null);
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    source.once('end', () => open());
    const bytes = await streamToWorker({ pool: gatedPool(gate), worker: 'shield/worker', task: {}, source });
    expect(bytes).toBe(3 * BATCH_BYTES);
  });

  it('reads a byte stream its holder had paused', async () => {
    const source = new Readable({ read() {} });
    source.push(Buffer.alloc(1_000, 'p'));
    source.push(null);
    source.pause();
    const bytes = await streamToWorker({
      pool: gatedPool(Promise.resolve()),
      worker: 'shield/worker',
      task: {},
      source,
    });
    expect(bytes).toBe(1_000);
  });

  it('leaves no error of a stream it is done with unhandled, stopped or read to its end', async () => {
    const source = new Readable({ read() {} });
    source.push(Buffer.alloc(1_000));
    const cancel = new AbortController();
    const streaming = streamToWorker({
      pool: gatedPool(Promise.resolve()),
      worker: 'shield/worker',
      task: {},
      source,
      signal: cancel.signal,
    });
    await once(source, 'data');
    const closed = new Promise((resolve) => source.once('close', resolve));
    // The stream fails as the export is cancelled: its error is emitted after the reading stopped.
    source.destroy(new Error('the connection was reset'));
    cancel.abort(new Error('cancelled'));
    await expect(streaming).rejects.toThrow('cancelled');
    // Emitted after its error: an 'error' event with no listener would have thrown, uncaught, by now.
    await closed;
    expect(source.errored?.message).toBe('the connection was reset');

    // One read to its end whose own destroy fails after it was read.
    let failDestroy: () => void = () => undefined;
    const failing = new Readable({
      read() {},
      destroy(_error, callback) {
        failDestroy = () => callback(new Error('the socket could not be closed'));
      },
    });
    const gone = new Promise((resolve) => failing.once('close', resolve));
    failing.push(Buffer.alloc(1_000));
    failing.push(null);
    const bytes = await streamToWorker({
      pool: gatedPool(Promise.resolve()),
      worker: 'shield/worker',
      task: {},
      source: failing,
    });
    expect(bytes).toBe(1_000);
    failDestroy();
    await gone;
    expect(failing.errored?.message).toBe('the socket could not be closed');
  });

  it('fails instead of waiting for good when the stream is destroyed without an error, or was before', async () => {
    const source = new Readable({ read() {} });
    source.push(Buffer.alloc(1_000));
    const streaming = streamToWorker({
      pool: gatedPool(Promise.resolve()),
      worker: 'shield/worker',
      task: {},
      source,
    });
    await once(source, 'data');
    source.destroy();
    await expect(streaming).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });

    const gone = new Readable({ read() {} });
    gone.destroy();
    await expect(
      streamToWorker({ pool: gatedPool(Promise.resolve()), worker: 'shield/worker', task: {}, source: gone }),
    ).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });
});

describe('a worker reading its port', () => {
  it('asks for the batches its window holds up front, never more than MAX_WINDOW', async () => {
    for (const [window, asked] of [
      [undefined, WINDOW],
      [8, 8],
      [64, MAX_WINDOW],
    ] as const) {
      const { port1, port2 } = new MessageChannel();
      const receiver = new ChunkReceiver(port2, window);
      const reading = receiver[Symbol.asyncIterator]().next();
      const [credit] = (await once(port1, 'message')) as [unknown];
      expect(credit).toEqual({ type: 'credit', count: asked, items: 0 });
      port1.postMessage({ type: 'end' });
      await expect(reading).resolves.toEqual({ done: true, value: undefined });
      port1.close();
    }
  });

  it('refuses a window that is not a whole number of batches, which would never start the stream', () => {
    const { port1, port2 } = new MessageChannel();
    for (const window of [0, -1, 2.5, Number.NaN])
      expect(() => new ChunkReceiver(port2, window)).toThrow(RangeError);
    port1.close();
  });

  it('takes what waits in its port in order, a break and the end included, without a turn of the event loop', async () => {
    const { port1, port2 } = new MessageChannel();
    const receiver = new ChunkReceiver(port2);
    const seen: string[] = [];
    receiver.onBreak = () => seen.push('break');
    for (const text of ['a', 'b']) port1.postMessage({ type: 'chunk', data: Buffer.from(text) });
    port1.postMessage({ type: 'break' });
    port1.postMessage({ type: 'chunk', data: Buffer.from('c') });
    port1.postMessage({ type: 'end' });
    // Read in one go: none of these has been delivered to the port's listener yet.
    for await (const chunk of receiver) seen.push(chunk.toString());
    expect(seen).toEqual(['a', 'b', 'break', 'c']);
    receiver.close();
    port1.close();
  });
});

/** 64 KiB chunks, as a socket gives them, `mib` MiB in all. */
function* chunks(mib: number): Generator<Buffer> {
  for (let i = 0; i < mib * 16; i++) yield Buffer.alloc(64 * 1024, i);
}

async function* pieces(mib: number): AsyncGenerator<Buffer> {
  yield* chunks(mib);
}

describe("the event loop's young collections while it forwards a body", () => {
  it('collects once every 8 MiB forwarded, from a byte stream and from any other source', async () => {
    for (const source of [() => Readable.from(chunks(20)), () => pieces(20)]) {
      const before = youngCollections();
      const bytes = await streamToWorker({
        pool: gatedPool(Promise.resolve()),
        worker: 'shield/worker',
        task: {},
        source: source(),
      });
      expect(bytes).toBe(20 * 1024 * 1024);
      // At 8 and at 16 MiB.
      expect(youngCollections() - before).toBe(2);
    }
  });
});
