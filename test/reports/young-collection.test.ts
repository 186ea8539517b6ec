/**
 * The event loop's young collections while it forwards a body (young-collection.ts): they happen
 * every 8 MiB forwarded, whatever the source, and give no context a global `gc`.
 */
import { Readable } from 'node:stream';
import { runInNewContext } from 'node:vm';
import type { MessagePort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { ReportPool } from '../../src/reports/pool.js';
import { ChunkReceiver, streamToWorker } from '../../src/reports/worker-channel.js';
import { collectYoungGarbage, youngCollections } from '../../src/reports/young-collection.js';

const MIB = 1024 * 1024;

/** A pool whose task reads the whole body in this thread and answers with its length. */
const readingPool: ReportPool = {
  async run(task) {
    const receiver = new ChunkReceiver((task as { port: MessagePort }).port);
    let bytes = 0;
    for await (const chunk of receiver) {
      bytes += chunk.length;
      receiver.release(chunk);
    }
    receiver.close();
    return bytes;
  },
  close: async () => undefined,
};

/** 64 KiB chunks, as a socket gives them, `mib` MiB in all. */
function* chunks(mib: number): Generator<Buffer> {
  for (let i = 0; i < mib * 16; i++) yield Buffer.alloc(64 * 1024, i);
}

async function* pieces(mib: number): AsyncGenerator<Buffer> {
  yield* chunks(mib);
}

describe("the event loop's young collections", () => {
  it('collects on this runtime, and leaves no global gc in this context or a new one', () => {
    const before = youngCollections();
    collectYoungGarbage();
    expect(youngCollections()).toBe(before + 1);
    expect('gc' in globalThis).toBe(false);
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });

  it('collects once every 8 MiB forwarded, from a byte stream and from any other source', async () => {
    for (const source of [() => Readable.from(chunks(20)), () => pieces(20)]) {
      const before = youngCollections();
      const bytes = await streamToWorker({
        pool: readingPool,
        worker: 'shield/worker',
        task: {},
        source: source(),
      });
      expect(bytes).toBe(20 * MIB);
      // At 8 and at 16 MiB.
      expect(youngCollections() - before).toBe(2);
    }
  });
});
