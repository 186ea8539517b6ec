/**
 * A CSV file written as it streams: writes queue in the fs stream while the caller keeps
 * working, and the caller waits only when the stream's buffer is full (backpressure).
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { CSV_FILE_MODE, CSV_WRITE_FLAGS, cutToWritten } from './temp-file.js';

interface OpenFile {
  file: FileHandle;
  stream: WriteStream;
}

export class CsvFileWriter {
  /** The file and its stream, once it is open. */
  private opened: OpenFile | undefined;
  private readonly opening: Promise<OpenFile>;
  private failure: Error | undefined;
  private discarded = false;

  /**
   * `path`: a new file, or temporaryCsvPath's empty one, opened without truncating it
   * (CSV_WRITE_FLAGS). A file that held more is cut to the CSV when it is closed; after a failure
   * or a discard it holds what it held, partly written over: the caller removes it.
   */
  constructor(path: string) {
    this.opening = open(path, CSV_WRITE_FLAGS, CSV_FILE_MODE).then((file) => {
      // Not closed when it ends: it is cut to what was written first (close).
      const stream = createWriteStream(path, { fd: file, autoClose: false, highWaterMark: 1024 * 1024 });
      // Kept on for the file's whole life: a failed write surfaces at the next write or at close.
      stream.on('error', (error) => {
        this.failure = error;
      });
      this.opened = { file, stream };
      return this.opened;
    });
    // A file that cannot be opened fails the first write, or close.
    this.opening.catch(() => undefined);
  }

  get bytesWritten(): number {
    return this.opened?.stream.bytesWritten ?? 0;
  }

  /** Text is written as UTF-8; bytes as they are. */
  async write(data: string | Buffer, signal?: AbortSignal): Promise<void> {
    const { stream } = this.opened ?? (await this.opening);
    if (this.discarded) throw new DiscardedError();
    if (this.failure) throw this.failure;
    if (!stream.write(data)) await drained(stream, signal);
  }

  /** Flushes and closes the file; resolves once it holds the CSV alone and its descriptor is closed. */
  async close(): Promise<void> {
    const { file, stream } = this.opened ?? (await this.opening);
    try {
      if (this.discarded) throw new DiscardedError();
      if (this.failure) throw this.failure;
      // Settles, rather than waits for ever, when the stream is discarded first.
      const done = finished(stream);
      stream.end();
      await done.catch((error: unknown) => {
        throw this.failure ?? (stream.destroyed ? new DiscardedError() : error);
      });
      if (this.failure) throw this.failure;
      // finished() takes a stream destroyed with nothing left to write for one that finished.
      if (stream.destroyed) throw new DiscardedError();
      await cutToWritten(file, stream.bytesWritten);
    } finally {
      await shut(stream);
    }
    // A write the file system refuses only when the file is closed (NFS, FUSE, quotas) fails here.
    if (this.failure) throw this.failure;
  }

  /** Drops what is queued and closes the descriptor; the caller removes the file. */
  async discard(): Promise<void> {
    this.discarded = true;
    const opened = this.opened ?? (await this.opening.catch(() => undefined));
    if (opened) await shut(opened.stream);
  }
}

/** A write or close of a CSV file that was discarded meanwhile. */
class DiscardedError extends Error {
  constructor() {
    super('the CSV file was discarded before it was written');
  }
}

/** Until the stream takes writes again: rejects when it is discarded or closed first, or `signal` aborts. */
async function drained(stream: WriteStream, signal: AbortSignal | undefined): Promise<void> {
  // One signal of its own, with listeners it removes: AbortSignal.any keeps an entry on a
  // long-lived signal for each call in Node 20.
  const stop = new AbortController();
  const onClose = () => stop.abort(new DiscardedError());
  const onAbort = () => stop.abort(signal?.reason);
  stream.once('close', onClose);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (signal?.aborted) onAbort();
    await once(stream, 'drain', { signal: stop.signal });
  } catch (error) {
    throw stop.signal.reason instanceof DiscardedError ? stop.signal.reason : error;
  } finally {
    stream.off('close', onClose);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Closes a stream's file: the stream holds its handle open until it is destroyed. */
async function shut(stream: WriteStream): Promise<void> {
  if (stream.closed) return;
  const closed = once(stream, 'close').catch(() => undefined);
  stream.destroy();
  await closed;
}
