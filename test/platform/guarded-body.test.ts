/**
 * The streamed body the platform client hands over (src/platform/http.ts: GuardedBody): the
 * client's chunks as they come, held back while the reader is behind, and a read failure as a
 * PlatformError. The client's side is a plain Readable here; test/platform/client.test.ts reads
 * real responses from the sandbox.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PlatformError } from '../../src/platform/errors.js';
import { GuardedBody } from '../../src/platform/http.js';

const KiB = 1024;
/** What reading `body` to its end rejected with; undefined when it read whole. */
const failureOfReading = (body: Readable) =>
  (async () => {
    for await (const _ of body);
  })().then(
    () => undefined,
    (reason: unknown) => reason,
  );

/** Lets the streams pass what they will: event-loop turns, not time. */
const settle = async () => {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
};

/** A body whose first bytes came and whose reader waits for more; `source` is the client's side. */
async function readingMidBody() {
  const source = new Readable({ read() {} });
  const body = new GuardedBody(source, { operation: 'shield.export' });
  source.push(Buffer.from('timestamp,action\r\n'));
  const reading = failureOfReading(body);
  await settle();
  return { source, body, reading };
}

describe('a streamed platform body', () => {
  it('holds the client back while its reader is behind, and hands over every byte in order', async () => {
    const source = new Readable({ read() {} });
    const body = new GuardedBody(source, { operation: 'shield.export' });
    const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(64 * KiB, i));
    for (const chunk of chunks) source.push(chunk);
    source.push(null);
    // Nothing is taken from the client before the first read.
    await settle();
    expect(source.readableLength).toBe(40 * 64 * KiB);
    const reader = body[Symbol.asyncIterator]();
    const read: Buffer[] = [(await reader.next()).value as Buffer];
    await settle();
    // A chunk or two wait in the body; the rest stay with the client, which stops reading the socket.
    expect(body.readableLength).toBeLessThanOrEqual(2 * 64 * KiB);
    expect(source.readableLength).toBeGreaterThan(30 * 64 * KiB);
    for (let next = await reader.next(); !next.done; next = await reader.next())
      read.push(next.value as Buffer);
    expect(Buffer.concat(read).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('fails as a platform network error when the client closes the body before its end, without an error', async () => {
    const { source, reading } = await readingMidBody();
    source.destroy();
    const error = await reading;
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).kind).toBe('network');
  });

  it('keeps a failure that comes before anyone reads, and gives it to the first read', async () => {
    const source = new Readable({ read() {} });
    const body = new GuardedBody(source, { operation: 'logs.origin' });
    source.destroy(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    await settle();
    const error = await failureOfReading(body);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).kind).toBe('network');
  });

  it('fails as a platform network error when the client fails mid-body, and stops the client when destroyed', async () => {
    const { source, reading } = await readingMidBody();
    source.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    const error = await reading;
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).userMessage).toContain('Could not reach the platform (ECONNRESET)');

    const next = new Readable({ read() {} });
    new GuardedBody(next, { operation: 'shield.export' }).destroy();
    expect(next.destroyed).toBe(true);
  });
});
