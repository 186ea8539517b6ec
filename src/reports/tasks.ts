/**
 * What crosses the thread boundary between the event loop and a report worker: the task each
 * worker is given and the result it returns, both checked with zod on arrival. Kept apart from
 * the workers so the event loop does not load the parsing code it hands off. The export worker
 * loads none of this (export-worker.ts checks its task itself), and so no zod.
 */
import { MessagePort } from 'node:worker_threads';
import { z } from 'zod';
import { OriginCountsSchema, OriginFiltersSchema } from './origin-tally.js';
import type { WorkerFailure } from './task-failure.js';

const FailureSchema = z.strictObject({
  ok: z.literal(false),
  reason: z.enum(['cancelled', 'invalid-response', 'failed']),
  message: z.string(),
}) satisfies z.ZodType<WorkerFailure>;

const BytesSchema = z.number().int().nonnegative();

export const OriginTaskSchema = z.strictObject({
  port: z.instanceof(MessagePort),
  csvPath: z.string().min(1),
  filters: OriginFiltersSchema,
});

export const OriginWorkerResultSchema = z.discriminatedUnion('ok', [
  z.strictObject({
    ok: z.literal(true),
    counts: OriginCountsSchema,
    /** False when the body carried no `logs` array (`{}` or `{"logs":null}`). */
    listed: z.boolean(),
    bodyBytes: BytesSchema,
    csvBytes: BytesSchema,
  }),
  FailureSchema,
]);
export type OriginWorkerResult = z.infer<typeof OriginWorkerResultSchema>;

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

export type { WorkerFailure } from './task-failure.js';
export { failureOf } from './task-failure.js';
