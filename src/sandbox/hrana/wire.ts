/**
 * The Hrana v2 pipeline as sqld reads and answers it: the request schemas (checked before
 * anything runs) and the response shapes.
 */
import { z } from 'zod';
import { type HranaValue, HranaValueSchema } from '../../database/hrana-value.js';
import type { HranaError } from '../statement-error.js';

export type BatchCond =
  | { type: 'ok'; step: number }
  | { type: 'error'; step: number }
  | { type: 'not'; cond: BatchCond }
  | { type: 'and'; conds: BatchCond[] }
  | { type: 'or'; conds: BatchCond[] }
  | { type: 'is_autocommit' };

const stepIndex = z.number().int().nonnegative();

const BatchCondSchema: z.ZodType<BatchCond> = z.lazy(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('ok'), step: stepIndex }),
    z.object({ type: z.literal('error'), step: stepIndex }),
    z.object({ type: z.literal('not'), cond: BatchCondSchema }),
    z.object({ type: z.literal('and'), conds: z.array(BatchCondSchema) }),
    z.object({ type: z.literal('or'), conds: z.array(BatchCondSchema) }),
    z.object({ type: z.literal('is_autocommit') }),
  ]),
);

const sqlId = z.number().int();

const StmtSchema = z.object({
  sql: z.string().nullish(),
  sql_id: sqlId.nullish(),
  args: z.array(HranaValueSchema).optional(),
  named_args: z.array(z.object({ name: z.string(), value: HranaValueSchema })).optional(),
  want_rows: z.boolean().optional(),
});
export type Stmt = z.infer<typeof StmtSchema>;

const StreamRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('close') }),
  z.object({ type: z.literal('execute'), stmt: StmtSchema }),
  z.object({
    type: z.literal('batch'),
    batch: z.object({
      steps: z.array(z.object({ condition: BatchCondSchema.nullish(), stmt: StmtSchema })),
    }),
  }),
  z.object({ type: z.literal('sequence'), sql: z.string().nullish(), sql_id: sqlId.nullish() }),
  z.object({ type: z.literal('describe'), sql: z.string().nullish(), sql_id: sqlId.nullish() }),
  z.object({ type: z.literal('store_sql'), sql_id: sqlId, sql: z.string() }),
  z.object({ type: z.literal('close_sql'), sql_id: sqlId }),
]);
export type StreamRequest = z.infer<typeof StreamRequestSchema>;
/** One type of request, e.g. `RequestOf<'batch'>`. */
export type RequestOf<T extends StreamRequest['type']> = Extract<StreamRequest, { type: T }>;

export const PipelineRequestSchema = z.object({
  baton: z.string().nullish(),
  requests: z.array(StreamRequestSchema),
});

export interface StmtResult {
  cols: { name: string; decltype: string | null }[];
  rows: HranaValue[][];
  affected_row_count: number;
  last_insert_rowid: string | null;
  replication_index: null;
}

export type StreamResponse =
  | { type: 'close' }
  | { type: 'execute'; result: StmtResult }
  | {
      type: 'batch';
      result: {
        step_results: (StmtResult | null)[];
        step_errors: (HranaError | null)[];
        replication_index: null;
      };
    }
  | { type: 'sequence' }
  | {
      type: 'describe';
      result: {
        params: { name: string | null }[];
        cols: { name: string; decltype: string | null }[];
        is_explain: boolean;
        is_readonly: boolean;
      };
    }
  | { type: 'store_sql' }
  | { type: 'close_sql' };

export type StreamResult = { type: 'ok'; response: StreamResponse } | { type: 'error'; error: HranaError };

export interface PipelineResponse {
  baton: string | null;
  base_url: string | null;
  results: StreamResult[];
}
