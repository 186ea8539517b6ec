/**
 * Runs one query in a read transaction over Hrana (`BEGIN TRANSACTION READONLY`, the statement,
 * `COMMIT`, as @libsql/client sends them) and hands its rows on one by one as the response
 * streams in, within a row cap and a cap on the bytes of values read. @libsql/client would hold
 * the whole result set, and then copy it; a 100,000-row result took the bot past 800 MB.
 * A single value is weighed while it arrives: one that passes what is left of the byte cap ends
 * the download there, before it is held whole (a 300 MB blob took the bot to 2.1 GB).
 */
import { z } from 'zod';
import { InternalError } from '../errors.js';
import { BatchRowScanner, BatchRowsError } from './batch-rows.js';
import { DatabaseError, errorForCode, errorForStatus, type Scrub } from './errors.js';
import { type Cell, decodeHranaValue, type HranaValue, HranaValueSchema } from './hrana-value.js';

/** How much one query may keep: rows, and bytes of values (text as UTF-8, blobs as their size). */
export interface QueryLimits {
  maxRows: number;
  maxBytes: number;
}

/** Why reading stopped before the end of the result: the cap reached and its value. */
export interface QueryStop {
  cap: 'rows' | 'bytes';
  limit: number;
}

/** Where the rows go as they arrive; a promise holds the next row back (a slow disk, say). */
export interface RowSink {
  /** The column names, once, before the first row. */
  columns(names: string[]): void | Promise<void>;
  row(cells: Cell[]): void | Promise<void>;
}

/** The sink failed (a full disk, say), not the database: the caller gets `cause` as it was. */
export class RowSinkError extends InternalError {
  override name = 'RowSinkError';
  readonly kind = 'row-sink';

  constructor(override readonly cause: unknown) {
    super('the rows could not be handed on');
  }
}

/** Calls the sink, marking what it throws as its own. */
async function handOn(work: () => void | Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    throw new RowSinkError(error);
  }
}

export interface QuerySummary {
  columns: string[];
  /** Rows handed to the sink. */
  rows: number;
  /** Bytes of values in those rows. */
  bytes: number;
  /** Set when a cap stopped the reading: the result has more than was read. */
  stopped?: QueryStop;
}

export interface ReadQueryRequest {
  httpUrl: string;
  authToken?: string;
  /** The statement as it runs (possibly wrapped with a LIMIT). */
  sql: string;
  limits: QueryLimits;
  sink: RowSink;
  fetch: typeof fetch;
  signal: AbortSignal;
  scrub: Scrub;
}

/** The statement's step in the batch: BEGIN is step 0. */
const STATEMENT_STEP = 1;

const RowSchema = z.array(HranaValueSchema);
const ColsSchema = z.array(z.looseObject({ name: z.string().nullish() }));

const HranaErrorSchema = z.looseObject({ message: z.string(), code: z.string().nullish() });
const SkeletonSchema = z.looseObject({
  results: z
    .array(
      z.union([
        z.looseObject({
          type: z.literal('ok'),
          response: z.looseObject({
            type: z.string(),
            result: z
              .looseObject({
                step_results: z.array(z.unknown().nullable()),
                step_errors: z.array(HranaErrorSchema.nullable()),
              })
              .optional(),
          }),
        }),
        z.looseObject({ type: z.literal('error'), error: HranaErrorSchema }),
      ]),
    )
    .min(1),
});

const CodedErrorBodySchema = z.looseObject({ message: z.string(), code: z.string().min(1) });
const PlainErrorBodySchema = z.looseObject({ error: z.string() });

const unreadable = () =>
  new DatabaseError(
    'server',
    'HRANA_PROTO_ERROR',
    'The database answered the query in a way the bot could not read (code HRANA_PROTO_ERROR).',
  );

/** A cell's value; `bytes` are its blob's, when they were decoded apart from the row. */
function cellOf(value: HranaValue, bytes: ArrayBuffer | undefined): Cell {
  if (!bytes) return decodeHranaValue(value);
  if (value.type !== 'blob') throw unreadable();
  return bytes;
}

/** What a cell weighs against the byte cap. */
function sizeOf(cell: Cell): number {
  if (cell === null) return 0;
  if (typeof cell === 'string') return Buffer.byteLength(cell, 'utf8');
  if (cell instanceof ArrayBuffer) return cell.byteLength;
  return String(cell).length;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function batchBody(sql: string): string {
  return JSON.stringify({
    requests: [
      {
        type: 'batch',
        batch: {
          steps: [
            { stmt: { sql: 'BEGIN TRANSACTION READONLY', want_rows: false } },
            { condition: { type: 'ok', step: 0 }, stmt: { sql, want_rows: true } },
            { condition: { type: 'ok', step: 1 }, stmt: { sql: 'COMMIT', want_rows: false } },
            {
              condition: { type: 'not', cond: { type: 'ok', step: 2 } },
              stmt: { sql: 'ROLLBACK', want_rows: false },
            },
          ],
        },
      },
      { type: 'close' },
    ],
  });
}

/** The first failure the finished document reports: the stream's, BEGIN's or the statement's. */
function failureIn(skeleton: unknown, scrub: Scrub): DatabaseError | undefined {
  const parsed = SkeletonSchema.safeParse(skeleton);
  if (!parsed.success) return unreadable();
  const first = parsed.data.results[0]!;
  if (first.type === 'error') return errorForCode(first.error.code ?? 'UNKNOWN', first.error.message, scrub);
  const result = first.response.result;
  if (first.response.type !== 'batch' || !result) return unreadable();
  for (const step of [0, STATEMENT_STEP]) {
    const error = result.step_errors[step];
    if (error) return errorForCode(error.code ?? 'UNKNOWN', error.message, scrub);
  }
  return result.step_results[STATEMENT_STEP] == null ? unreadable() : undefined;
}

export async function readQuery(request: ReadQueryRequest): Promise<QuerySummary> {
  const { limits, sink } = request;
  // Stopping at a cap ends the download too; the deadline's signal ends it as well.
  const reading = new AbortController();
  const stopReading = () => reading.abort();
  request.signal.addEventListener('abort', stopReading, { once: true });
  try {
    const response = await request.fetch(`${request.httpUrl}/v2/pipeline`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(request.authToken ? { authorization: `Bearer ${request.authToken}` } : {}),
      },
      body: batchBody(request.sql),
      signal: reading.signal,
    });
    if (!response.ok) {
      const text = await response.text();
      const json = parseJson(text);
      const coded = CodedErrorBodySchema.safeParse(json);
      if (coded.success)
        throw errorForCode(coded.data.code, coded.data.message, request.scrub, response.status);
      const plain = PlainErrorBodySchema.safeParse(json);
      throw errorForStatus(response.status, plain.success ? plain.data.error : text, request.scrub);
    }
    if (!response.body) throw unreadable();

    const scanner = new BatchRowScanner(STATEMENT_STEP, { maxValueBytes: limits.maxBytes });
    const decoder = new TextDecoder('utf-8');
    let columns: string[] | undefined;
    /** Rows that came before their column names (no server we know sends them so). */
    const early: Cell[][] = [];
    const summary: QuerySummary = { columns: [], rows: 0, bytes: 0 };

    const deliver = async (cells: Cell[]): Promise<boolean> => {
      if (summary.rows >= limits.maxRows) {
        summary.stopped = { cap: 'rows', limit: limits.maxRows };
        return false;
      }
      const bytes = cells.reduce<number>((total, cell) => total + sizeOf(cell), 0);
      if (summary.bytes + bytes > limits.maxBytes) {
        summary.stopped = { cap: 'bytes', limit: limits.maxBytes };
        return false;
      }
      summary.rows += 1;
      summary.bytes += bytes;
      await handOn(() => sink.row(cells));
      return true;
    };
    const named = async (names: string[]) => {
      columns = names;
      summary.columns = names;
      await handOn(() => sink.columns(names));
    };

    reader: for await (const chunk of response.body) {
      for (const event of scanner.push(decoder.decode(chunk, { stream: true }))) {
        if (event.kind === 'cols') {
          const cols = ColsSchema.safeParse(event.value);
          if (!cols.success) throw unreadable();
          await named(cols.data.map((col, index) => col.name ?? `column${index + 1}`));
          for (const row of early.splice(0)) if (!(await deliver(row))) break reader;
          continue;
        }
        if (event.kind === 'over-budget') {
          summary.stopped = { cap: 'bytes', limit: limits.maxBytes };
          break reader;
        }
        const row = RowSchema.safeParse(event.value);
        if (!row.success) throw unreadable();
        const { blobs } = event;
        const cells = row.data.map((value, index) =>
          cellOf(value, blobs?.find((blob) => blob.cell === index)?.bytes),
        );
        if (!columns) {
          early.push(cells);
          continue;
        }
        // The wire may carry fewer or more values than columns; the columns decide.
        const width = columns.length;
        const fitted =
          cells.length === width ? cells : Array.from({ length: width }, (_, i) => cells[i] ?? null);
        if (!(await deliver(fitted))) break reader;
      }
    }
    if (summary.stopped) return summary;
    scanner.push(decoder.decode());
    const failure = failureIn(scanner.end(), request.scrub);
    if (failure) throw failure;
    if (!columns) await named([]);
    for (const row of early.splice(0)) if (!(await deliver(row))) break;
    return summary;
  } catch (error) {
    if (error instanceof BatchRowsError) throw unreadable();
    throw error;
  } finally {
    request.signal.removeEventListener('abort', stopReading);
    // Whatever was not read is not wanted: close the download.
    reading.abort();
  }
}
