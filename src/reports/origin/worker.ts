/**
 * Runs in a report worker thread: the origin-log body arrives in batches, is split into
 * entries, counted, and written to the CSV, so none of it blocks the event loop. The entries
 * are read straight from the bytes (scan.ts), and their CSV rows written as bytes; their texts
 * are counted here, or on the counter thread when the task has one (counter.ts).
 */

import { CsvByteWriter } from '../csv/bytes.js';
import { CsvFileWriter } from '../csv/file.js';
import { csvRecord } from '../csv/safety.js';
import { JsonArraySplitter, JsonStreamError } from '../json-entries.js';
import { failureOf, OriginTaskSchema, type OriginWorkerResult } from '../tasks.js';
import { ChunkReceiver, StreamCancelledError } from '../worker-channel.js';
import { TextCountsSender } from './counter.js';
import { OriginDayLedger } from './days.js';
import { type OriginDayIndex, OriginHourIndexer } from './hours.js';
import { OriginEntryReader } from './scan.js';
import { CSV_HEADER, OriginTally } from './tally.js';

/** CSV bytes written at once. */
const WRITE_BYTES = 1024 * 1024;
/**
 * Batches of the body asked for ahead (worker-channel.ts): 4 MiB. This thread is the summary's
 * slowest part, and with two it waited for the event loop 125–186 ms in a million-entry day read
 * from disk, some 40 stalls of the source of a few milliseconds each; with eight, 2–16 ms.
 */
const READ_AHEAD = 8;

export default async function summariseOriginLogsInWorker(input: unknown): Promise<OriginWorkerResult> {
  const task = OriginTaskSchema.parse(input);
  const receiver = new ChunkReceiver(task.port, READ_AHEAD);
  const counter = task.counter && new TextCountsSender(task.counter);
  const tally = new OriginTally(task.filters, task.view, counter);
  const rows = new CsvByteWriter(WRITE_BYTES + WRITE_BYTES / 4);
  const reader = new OriginEntryReader(tally, rows);
  const days = new OriginDayLedger(tally, task.untimedDay, task.comparisonsFrom);
  const indexes: (OriginDayIndex | null)[] = [];
  const begin = (next: JsonArraySplitter) => {
    reader.indexer = task.indexHours ? new OriginHourIndexer() : undefined;
    return next;
  };
  // Called once the ledger has recorded the day `closed` read.
  const finish = (closed: JsonArraySplitter) => {
    const read = days.days[indexes.length];
    indexes.push((read && !read.broken && reader.indexer?.finish(read.entries, closed.bytes)) || null);
  };
  let splitter = begin(new JsonArraySplitter('logs', reader));
  receiver.onBreak = () => {
    const closed = splitter;
    const next = days.next(splitter, reader);
    finish(closed);
    splitter = begin(next);
  };
  const csv = new CsvFileWriter(task.csvPath);
  try {
    await csv.write(csvRecord(CSV_HEADER));
    for await (const chunk of receiver) {
      if (!days.skipping)
        try {
          splitter.push(chunk);
        } catch (error) {
          days.broke(splitter, error);
        }
      // Nothing keeps the chunk: its memory goes back for the next batches.
      receiver.release(chunk);
      receiver.items = tally.scannedCount + days.skipped + splitter.skipped;
      // The fs stream queues a write while the next batches are read; a few large ones cost less than many.
      if (rows.length >= WRITE_BYTES) await csv.write(rows.take(), receiver.signal);
    }
    days.close(splitter);
    finish(splitter);
    if (rows.length > 0) await csv.write(rows.take(), receiver.signal);
    await csv.close();
    const counts = tally.counts(await counter?.finish());
    return {
      ok: true,
      counts: {
        ...counts,
        scanned: counts.scanned + days.skipped,
        skipped: counts.skipped + days.skipped,
      },
      listed: days.listed,
      bodyBytes: days.bytes,
      csvBytes: csv.bytesWritten,
      days: [...days.days],
      ...(task.indexHours ? { indexes } : {}),
    };
  } catch (error) {
    await csv.discard();
    const cancelled = error instanceof StreamCancelledError || receiver.signal.aborted;
    return failureOf(error, cancelled, error instanceof JsonStreamError);
  } finally {
    receiver.close();
    counter?.close();
  }
}
