/**
 * What crosses the thread boundary between the event loop and a report worker: the task each
 * worker is given and the result it returns, both checked with zod on arrival. Kept apart from
 * the workers so the event loop does not load the parsing code it hands off. The export worker
 * loads none of this (shield/worker.ts checks its task itself), and so no zod.
 */
import { MessagePort } from 'node:worker_threads';
import { z } from 'zod';
import { BucketChartSchema } from './chart/bucket.js';
import { SeriesChartSchema } from './chart/series.js';
import { OriginDayReadSchema } from './origin/days.js';
import { OriginDayIndexSchema } from './origin/hours.js';
import {
  MAX_COMPARISONS,
  OriginCountsSchema,
  OriginFiltersSchema,
  OriginViewSchema,
} from './origin/tally.js';
import type { ShieldSummary } from './shield/summary.js';
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
  view: OriginViewSchema.optional(),
  /** The body (by position) whose entries without a timestamp belong to the window. */
  untimedDay: z.number().int().nonnegative().optional(),
  /** Bodies from this position on serve only comparisons: one that breaks leaves its comparisons out. */
  comparisonsFrom: z.number().int().nonnegative().optional(),
  /** Note where each hour's entries lie in every body, so that a kept copy can be read in part. */
  indexHours: z.boolean().optional(),
  /** The counter thread's end of a channel (origin/counter.ts): the texts are counted there. */
  counter: z.instanceof(MessagePort).optional(),
});

/** The counter thread's task: the reader's channel, and how many earlier windows are compared. */
export const CounterTaskSchema = z.strictObject({
  port: z.instanceof(MessagePort),
  comparisons: z.number().int().min(0).max(MAX_COMPARISONS),
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
    /** With `indexHours`: each body's index, in order; null for one broken or too mixed to index. */
    indexes: z.array(OriginDayIndexSchema.nullable()).optional(),
  }),
  FailureSchema,
]);
export type OriginWorkerResult = z.infer<typeof OriginWorkerResultSchema>;

const CountSchema = z.number().int().nonnegative();
const BreakdownSchema = z.strictObject({
  values: z.array(z.strictObject({ value: z.string(), count: CountSchema })),
  other: CountSchema,
});
const InstantSchema = z.number().finite();

export const ShieldSummarySchema = z.strictObject({
  events: CountSchema,
  columns: z.strictObject({
    timestamp: z.string().optional(),
    action: z.string().optional(),
    ruleId: z.string().optional(),
    ruleName: z.string().optional(),
    country: z.string().optional(),
    asn: z.string().optional(),
    ip: z.string().optional(),
  }),
  byAction: BreakdownSchema.optional(),
  byCountry: BreakdownSchema.optional(),
  byAsn: BreakdownSchema.optional(),
  byRule: z
    .strictObject({
      rules: z.array(z.strictObject({ id: z.string(), name: z.string(), count: CountSchema })),
      other: CountSchema,
    })
    .optional(),
  topIps: z
    .strictObject({
      ips: z.array(z.strictObject({ ip: z.string(), count: CountSchema, overcount: CountSchema })),
    })
    .optional(),
  timeline: z
    .strictObject({
      startMs: InstantSchema,
      bucketMs: z.number().int().positive(),
      counts: z.array(CountSchema),
      firstMs: InstantSchema.nullable(),
      lastMs: InstantSchema.nullable(),
      untimed: CountSchema,
    })
    .optional(),
}) satisfies z.ZodType<ShieldSummary>;

export const ExportWorkerResultSchema = z.discriminatedUnion('ok', [
  z.strictObject({
    ok: z.literal(true),
    /** Records written, header included. */
    records: z.number().int().nonnegative(),
    bodyBytes: BytesSchema,
    csvBytes: BytesSchema,
    summary: ShieldSummarySchema,
    /** The bot's secrets in the file, counted as it was written (secrets/file-scrub.ts). */
    secretCount: z
      .strictObject({
        masked: z.number().int().nonnegative(),
        bytes: BytesSchema,
        fileBytes: BytesSchema,
        generation: z.number().int(),
        stamp: z.string().min(1),
      })
      .optional(),
  }),
  FailureSchema,
]);
export type ExportWorkerResult = z.infer<typeof ExportWorkerResultSchema>;

/** A chart of either kind: counts per bucket, or series of percentages or milliseconds. */
export const ChartSchema = z.union([BucketChartSchema, SeriesChartSchema]);

/** The most charts one task draws: the pictures of one answer, drawn side by side. */
export const MAX_CHARTS_PER_TASK = 4;

export const ChartTaskSchema = z.strictObject({
  charts: z.array(ChartSchema).min(1).max(MAX_CHARTS_PER_TASK),
  /** A TrueType font file: the only font the charts are drawn with. */
  fontFile: z.string().min(1),
});

export const ChartPictureSchema = z.strictObject({
  png: z.instanceof(Uint8Array),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  altText: z.string(),
});

export const ChartWorkerResultSchema = z.discriminatedUnion('ok', [
  z.strictObject({ ok: z.literal(true), pictures: z.array(ChartPictureSchema).min(1) }),
  FailureSchema,
]);
export type ChartWorkerResult = z.infer<typeof ChartWorkerResultSchema>;

export type { WorkerFailure } from './task-failure.js';
export { failureOf } from './task-failure.js';
