/**
 * Runs in a report worker thread: the platform's event-log CSV goes through the formula guard
 * as it arrives and on to the file, chunk by chunk, and is counted for the summary on the way,
 * so memory stays flat whatever the export's size and the event loop never scans a byte of it.
 * Nothing of a chunk's size is allocated per chunk: the body's batches go back to the event loop
 * once scanned, and the guard writes into two buffers in turn, one being scanned into while the
 * other is on its way to the disk. Given the bot's secrets, it counts them in what it writes
 * while the bytes are in the cache, for the upload (secrets/file-scrub.ts: FileSecretCounter),
 * which then need not read the file back.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { MessagePort } from 'node:worker_threads';
import { FileSecretCounter, type FileSecretForms, fileStamp } from '../../secrets/file-scrub.js';
import { CsvFormulaGuard, CsvShapeError } from '../csv/guard.js';
import { CSV_FILE_MODE, CSV_WRITE_FLAGS, cutToWritten } from '../csv/temp-file.js';
import { failureOf } from '../task-failure.js';
import type { ExportWorkerResult } from '../tasks.js';
import { ChunkReceiver, StreamCancelledError } from '../worker-channel.js';
import { ShieldTally } from './summary.js';

interface ExportTask {
  port: MessagePort;
  /** Where the CSV goes. */
  path: string;
  /** The bot's secrets, counted in the CSV as it is written: the upload need not read it back. */
  secrets?: FileSecretForms;
}

/** The fields of what a message carried, none when it is not an object. */
const fieldsOf = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

function secretFormsOf(secrets: unknown): FileSecretForms | undefined {
  if (secrets === undefined) return undefined;
  const { generation, forms } = fieldsOf(secrets);
  const isForm = (form: unknown) =>
    typeof fieldsOf(form).form === 'string' && typeof fieldsOf(form).masked === 'string';
  if (!Number.isSafeInteger(generation) || !Array.isArray(forms) || !forms.every(isForm))
    throw new TypeError("an export task's secrets need a generation and forms");
  return secrets as FileSecretForms;
}

/** Checked by hand: zod would cost this thread about 7 MB of the export's 150 MB (bench/export.ts). */
function exportTaskOf(input: unknown): ExportTask {
  const { port, path, secrets } = fieldsOf(input);
  if (!(port instanceof MessagePort) || typeof path !== 'string' || path.length === 0)
    throw new TypeError('an export task needs a port and a path');
  return { port, path, secrets: secretFormsOf(secrets) };
}

export default async function rewriteShieldExportInWorker(input: unknown): Promise<ExportWorkerResult> {
  const task = exportTaskOf(input);
  const receiver = new ChunkReceiver(task.port);
  let bodyBytes = 0;
  let csvBytes = 0;
  let writing: Promise<void> | undefined;
  let file: FileHandle | undefined;
  const write = async (csv: Buffer) => {
    for (let at = 0; at < csv.length; ) at += (await file!.write(csv, at, csv.length - at)).bytesWritten;
    csvBytes += csv.length;
  };
  let tally: ShieldTally | undefined;
  let secrets: FileSecretCounter | undefined;
  try {
    secrets = task.secrets && new FileSecretCounter(task.secrets);
    // The summary is counted from the cells the guard reads anyway: no second pass over the body.
    tally = new ShieldTally();
    const guard = new CsvFormulaGuard({ reuseOutput: true, cells: tally });
    file = await open(task.path, CSV_WRITE_FLAGS, CSV_FILE_MODE);
    for await (const chunk of receiver) {
      bodyBytes += chunk.length;
      const csv = guard.push(chunk);
      receiver.release(chunk);
      // Counted while the bytes are in the cache, before the guard writes into this buffer again.
      secrets?.push(csv);
      receiver.items = guard.records;
      // The previous chunk's write, from the other buffer, must be done before this one starts.
      await writing;
      writing = csv.length > 0 ? write(csv) : undefined;
    }
    const last = guard.end();
    secrets?.push(last);
    await writing;
    if (last.length > 0) await write(last);
    await cutToWritten(file, csvBytes);
    // What the upload checks before it takes the count: the file as written.
    const secretCount = secrets?.end(fileStamp(await file.stat({ bigint: true })));
    await file.close();
    const summary = tally.summary();
    return {
      ok: true,
      records: guard.records,
      bodyBytes,
      csvBytes,
      summary,
      ...(secretCount && { secretCount }),
    };
  } catch (error) {
    await writing?.catch(() => undefined);
    await file?.close().catch(() => undefined);
    const cancelled = error instanceof StreamCancelledError || receiver.signal.aborted;
    return failureOf(error, cancelled, error instanceof CsvShapeError);
  } finally {
    secrets?.discard();
    tally?.release();
    receiver.close();
  }
}
