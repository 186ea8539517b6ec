/**
 * A CSV file written as it streams: writes queue in the fs stream while the caller keeps
 * working, and the caller waits only when the stream's buffer is full (backpressure).
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';

export class CsvFileWriter {
  private readonly stream: WriteStream;
  private failure: Error | undefined;

  constructor(path: string) {
    this.stream = createWriteStream(path, { highWaterMark: 1024 * 1024 });
    // Kept on for the file's whole life: a failed write surfaces at the next write or at close.
    this.stream.on('error', (error) => {
      this.failure = error;
    });
  }

  get bytesWritten(): number {
    return this.stream.bytesWritten;
  }

  /** Text is written as UTF-8; bytes as they are. */
  async write(data: string | Buffer, signal?: AbortSignal): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.stream.write(data)) await once(this.stream, 'drain', { signal });
  }

  /** Flushes and closes the file; resolves once the descriptor is closed. */
  async close(): Promise<void> {
    if (this.failure) throw this.failure;
    const closed = once(this.stream, 'close');
    this.stream.end();
    await closed;
    if (this.failure) throw this.failure;
  }

  /** Drops what is queued and closes the descriptor; the caller removes the file. */
  async discard(): Promise<void> {
    if (this.stream.closed) return;
    const closed = once(this.stream, 'close').catch(() => undefined);
    this.stream.destroy();
    await closed;
  }
}
