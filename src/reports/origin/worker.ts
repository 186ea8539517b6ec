/**
 * Runs in a report worker thread: the origin-log body arrives in batches, is split into
 * entries, counted, and written to the CSV, so none of it blocks the event loop.
 */

import { CsvFileWriter } from '../csv/file.js';
import { csvRecord } from '../csv/safety.js';
import { JsonArraySplitter, JsonStreamError } from '../json-entries.js';
import { failureOf, OriginTaskSchema, type OriginWorkerResult } from '../tasks.js';
import { ChunkReceiver, StreamCancelledError } from '../worker-channel.js';
import { OriginDayLedger } from './days.js';
import { type OriginDayIndex, OriginHourIndexer } from './hours.js';
import { CSV_HEADER, OriginTally } from './tally.js';

export default async function summariseOriginLogsInWorker(input: unknown): Promise<OriginWorkerResult> {
  const task = OriginTaskSchema.parse(input);
  const receiver = new ChunkReceiver(task.port);
  const tally = new OriginTally(task.filters, task.view);
  const days = new OriginDayLedger(tally, task.untimedDay, task.comparisonsFrom);
  const indexes: (OriginDayIndex | null)[] = [];
  let indexer: OriginHourIndexer | undefined;
  const begin = (next: JsonArraySplitter) => {
    indexer = task.indexHours ? new OriginHourIndexer() : undefined;
    if (indexer) next.onElements = indexer.add;
    return next;
  };
  // Called once the ledger has recorded the day `closed` read.
  const finish = (closed: JsonArraySplitter) => {
    const read = days.days[indexes.length];
    indexes.push((read && !read.broken && indexer?.finish(read.entries, closed.bytes)) || null);
  };
  let splitter = begin(new JsonArraySplitter('logs'));
  receiver.onBreak = () => {
    const closed = splitter;
    const next = days.next(splitter);
    finish(closed);
    splitter = begin(next);
  };
  const csv = new CsvFileWriter(task.csvPath);
  try {
    await csv.write(csvRecord(CSV_HEADER));
    for await (const chunk of receiver) {
      if (days.skipping) continue;
      let text = '';
      try {
        for (const element of splitter.push(chunk)) {
          const row = tally.add(element);
          if (row) text += csvRecord(row);
        }
      } catch (error) {
        days.broke(splitter, error);
      }
      receiver.items = tally.scannedCount + days.skipped + splitter.skipped;
      // One write per batch of the body: the fs stream queues it while the next batch is parsed.
      if (text.length > 0) await csv.write(text, receiver.signal);
    }
    days.close(splitter);
    finish(splitter);
    await csv.close();
    const counts = tally.counts();
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
  }
}
