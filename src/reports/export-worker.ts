/**
 * Runs in a report worker thread: the platform's event-log CSV is parsed as it arrives and
 * written again with every cell neutralised, stream to stream, so memory stays flat whatever
 * the export's size and the event loop never parses a byte of it.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import { safeCsvOptions } from './csv-safety.js';
import { ExportTaskSchema, type ExportWorkerResult, failureOf } from './tasks.js';
import { ChunkReceiver, StreamCancelledError } from './worker-channel.js';

/** One record larger than this is refused: it would otherwise sit whole in memory. */
const MAX_RECORD_BYTES = 8 * 1024 * 1024;

export default async function rewriteShieldExportInWorker(input: unknown): Promise<ExportWorkerResult> {
  const task = ExportTaskSchema.parse(input);
  const receiver = new ChunkReceiver(task.port);
  const parser = parse({
    bom: true,
    // The export's columns are not documented: pass ragged rows through as they are.
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  const file = createWriteStream(task.path, { highWaterMark: 1024 * 1024 });
  let bodyBytes = 0;
  async function* body(): AsyncGenerator<Buffer> {
    for await (const chunk of receiver) {
      bodyBytes += chunk.length;
      yield chunk;
      receiver.items = parser.info.records;
    }
  }
  try {
    await pipeline(Readable.from(body(), { objectMode: false }), parser, stringify(safeCsvOptions()), file, {
      signal: receiver.signal,
    });
    return { ok: true, records: parser.info.records, bodyBytes, csvBytes: file.bytesWritten };
  } catch (error) {
    if (!file.closed) await once(file, 'close').catch(() => undefined);
    const cancelled = error instanceof StreamCancelledError || receiver.signal.aborted;
    return failureOf(error, cancelled, error instanceof CsvError);
  } finally {
    receiver.close();
  }
}
