/**
 * What crosses the thread boundary between the event loop and a report worker: the task each
 * worker is given and the result it returns, both checked with zod on arrival. Kept apart from
 * the workers so the event loop does not load the parsing code it hands off.
 */
import { MessagePort } from 'node:worker_threads';
import { z } from 'zod';
import { BucketChartSchema } from './bucket-chart.js';
import { OriginDayReadSchema } from './origin-days.js';
import { OriginCountsSchema, OriginFiltersSchema, OriginViewSchema } from './origin-tally.js';

const FailureSchema = z.strictObject({
  ok: z.literal(false),
  reason: z.enum(['cancelled', 'invalid-response', 'failed']),
  message: z.string(),
});

const BytesSchema = z.number().int().nonnegative();

export const OriginTaskSchema = z.strictObject({
  port: z.instanceof(MessagePort),
  csvPath: z.string().min(1),
  filters: OriginFiltersSchema,
  view: OriginViewSchema.optional(),
  /** The body (by position) whose entries without a timestamp belong to the window. */
  untimedDay: z.number().int().nonnegative().optional(),
});

export const OriginWorkerResultSchema = z.discriminatedUnion('ok', [
  z.strictObject({
    ok: z.literal(true),
    counts: OriginCountsSchema,
    /** False when the body carried no `logs` array (`{}` or `{"logs":null}`). */
    listed: z.boolean(),
    bodyBytes: BytesSchema,
    csvBytes: BytesSchema,
    /** Each body read, in order: one per UTC day of the window and its comparisons. */
    days: z.array(OriginDayReadSchema),
  }),
  FailureSchema,
]);
export type OriginWorkerResult = z.infer<typeof OriginWorkerResultSchema>;

export const ExportTaskSchema = z.strictObject({
  port: z.instanceof(MessagePort),
  path: z.string().min(1),
});

export const ExportWorkerResultSchema = z.discriminatedUnion('ok', [
  z.strictObject({
    ok: z.literal(true),
    /** Records written, header included. */
    records: z.number().int().nonnegative(),
    bodyBytes: BytesSchema,
    csvBytes: BytesSchema,
  }),
  FailureSchema,
]);
export type ExportWorkerResult = z.infer<typeof ExportWorkerResultSchema>;

export const ChartTaskSchema = z.strictObject({
  chart: BucketChartSchema,
  /** A TrueType font file: the only font the chart is drawn with. */
  fontFile: z.string().min(1),
});

export const ChartWorkerResultSchema = z.discriminatedUnion('ok', [
  z.strictObject({
    ok: z.literal(true),
    png: z.instanceof(Uint8Array),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    altText: z.string(),
  }),
  FailureSchema,
]);
export type ChartWorkerResult = z.infer<typeof ChartWorkerResultSchema>;

export type WorkerFailure = z.infer<typeof FailureSchema>;

/** A worker's own failure as a result value: errors lose their class crossing threads. */
export function failureOf(error: unknown, cancelled: boolean, invalidResponse: boolean): WorkerFailure {
  if (cancelled) return { ok: false, reason: 'cancelled', message: 'cancelled' };
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, reason: invalidResponse ? 'invalid-response' : 'failed', message };
}
