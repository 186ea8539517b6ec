/**
 * `/edge shield export`: the platform's event-log CSV, passed through the formula guard
 * (csv/guard.ts, a streaming byte-level parse and re-write) on its way to the file, so every
 * cell that could run as a formula is neutralised (PRODUCT §6) and memory stays flat for a body
 * of any size; the Shield summary (shield/summary.ts) is counted in the same pass. The work runs
 * in a report worker.
 */
import type { FileSecretCount, FileSecretForms } from '../../secrets/file-scrub.js';
import { abandonReport, type ReportFailureWords, workerFailureError } from '../failures.js';
import type { ReportPool } from '../pool.js';
import { ExportWorkerResultSchema } from '../tasks.js';
import { streamToWorker } from '../worker-channel.js';
import type { ShieldSummary } from './summary.js';

export interface ShieldExportCsv {
  /** Data rows written, the header row excluded. */
  rows: number;
  /** Size of the written file. */
  bytes: number;
  /** Counted in the same pass as the file was written. */
  summary: ShieldSummary;
  /** The bot's secrets in the file, counted as it was written; none when none were given. */
  secretCount?: FileSecretCount;
}

export interface ShieldExportProgress {
  /** Body bytes received so far. */
  bytes: number;
  /** Data rows written so far. */
  rows: number;
}

export interface WriteShieldExportCsvOptions {
  /** The response body of POST /shield/event-logs/{id}/export. */
  source: AsyncIterable<Uint8Array>;
  /** Where the CSV goes; removed again when the copy fails or is cancelled. */
  path: string;
  signal?: AbortSignal;
  onProgress?: (progress: ShieldExportProgress) => void;
  /** The worker pool (the runtime's, closed with it). */
  pool: ReportPool;
  /** The bot's secrets, to count in the file as it is written, for its upload. */
  secrets?: FileSecretForms;
}

const WORDS: ReportFailureWords = {
  operation: 'shield.export',
  unreadable: 'The Shield export is not a readable CSV file',
  failed: 'Writing the Shield export failed',
  cancelled: 'The Shield export was cancelled.',
};

/** The first record of the platform's CSV is its header row. */
const dataRows = (records: number) => Math.max(0, records - 1);

export async function writeShieldExportCsv(options: WriteShieldExportCsvOptions): Promise<ShieldExportCsv> {
  const { path, signal, onProgress } = options;
  try {
    const raw = await streamToWorker({
      pool: options.pool,
      worker: 'shield/worker',
      task: { path, ...(options.secrets && { secrets: options.secrets }) },
      source: options.source,
      signal,
      onProgress: onProgress && (({ bytes, items }) => onProgress({ bytes, rows: dataRows(items) })),
    });
    const result = ExportWorkerResultSchema.parse(raw);
    if (!result.ok) throw workerFailureError(result, WORDS);
    const { summary, secretCount } = result;
    return {
      rows: dataRows(result.records),
      bytes: result.csvBytes,
      summary,
      ...(secretCount && { secretCount }),
    };
  } catch (error) {
    return abandonReport(error, path, signal, WORDS);
  }
}
