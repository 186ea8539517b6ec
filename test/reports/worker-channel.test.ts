/**
 * The event loop's side of a streamed report (worker-channel.ts), against a pool whose task reads
 * the port with the real ChunkReceiver in this thread: what a worker does with the bytes is the
 * worker's tests' business; here, what the channel does around it.
 */
import type { MessagePort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { ReportPool } from '../../src/reports/pool.js';
import { ChunkReceiver, streamToWorker } from '../../src/reports/worker-channel.js';

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
