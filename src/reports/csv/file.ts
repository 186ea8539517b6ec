/**
 * A CSV file written as it streams: writes queue in the fs stream while the caller keeps
 * working, and the caller waits only when the stream's buffer is full (backpressure).
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { open, stat, truncate } from 'node:fs/promises';
import { CSV_WRITE_FLAGS } from './temp-file.js';

export class CsvFileWriter {
  /** The file's stream, once the file is open. */
  private stream: WriteStream | undefined;
  private readonly opening: Promise<WriteStream>;
  private failure: Error | undefined;

  /** `path`: a new file, or temporaryCsvPath's empty one, opened without truncating it (CSV_WRITE_FLAGS). */
  constructor(private readonly path: string) {
    this.opening = open(path, CSV_WRITE_FLAGS).then((file) => {
      const stream = createWriteStream(path, { fd: file, highWaterMark: 1024 * 1024 });
      // Kept on for the file's whole life: a failed write surfaces at the next write or at close.
      stream.on('error', (error) => {
        this.failure = error;
      });
      this.stream = stream;
      return stream;
    });
    // A file that cannot be opened fails the first write, or close.
    this.opening.catch(() => undefined);
  }

  get bytesWritten(): number {
    return this.stream?.bytesWritten ?? 0;
  }

  /** Text is written as UTF-8; bytes as they are. */
  async write(data: string | Buffer, signal?: AbortSignal): Promise<void> {
    const stream = this.stream ?? (await this.opening);
    if (this.failure) throw this.failure;
    if (!stream.write(data)) await once(stream, 'drain', { signal });
  }

  /** Flushes and closes the file; resolves once the descriptor is closed and the file is the CSV alone. */
  async close(): Promise<void> {
    const stream = this.stream ?? (await this.opening);
    if (this.failure) throw this.failure;
    const closed = once(stream, 'close');
    stream.end();
    await closed;
    if (this.failure) throw this.failure;
    // A file that held more before it was written is cut to the CSV (see cutToWritten).
    if ((await stat(this.path)).size > stream.bytesWritten) await truncate(this.path, stream.bytesWritten);
  }

  /** Drops what is queued and closes the descriptor; the caller removes the file. */
  async discard(): Promise<void> {
    const stream = this.stream ?? (await this.opening.catch(() => undefined));
    if (stream === undefined || stream.closed) return;
    const closed = once(stream, 'close').catch(() => undefined);
    stream.destroy();
    await closed;
  }
}
