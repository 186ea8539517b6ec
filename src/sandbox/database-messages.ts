/**
 * The messages between the sandbox and its database process (database-process.ts): requests
 * carry an id, answers repeat it with a value or with a Hrana error.
 */
import { z } from 'zod';

const ValueSchema = z.union([z.null(), z.bigint(), z.number(), z.string(), z.instanceof(ArrayBuffer)]);

/** What the sandbox asks of its database process. */
export const DatabaseCallSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('open'), url: z.string(), seed: z.number() }),
  z.object({ op: z.literal('openSession') }),
  z.object({
    op: z.literal('execute'),
    session: z.number().int(),
    statement: z.object({
      sql: z.string(),
      args: z.union([z.array(ValueSchema), z.record(z.string(), ValueSchema)]),
    }),
    readOnly: z.boolean(),
  }),
  z.object({ op: z.literal('releaseSession'), session: z.number().int() }),
  z.object({ op: z.literal('describe'), sql: z.string() }),
  z.object({ op: z.literal('close') }),
]);
export type DatabaseCall = z.infer<typeof DatabaseCallSchema>;

export const DatabaseRequestSchema = z.intersection(z.object({ id: z.number().int() }), DatabaseCallSchema);
export type DatabaseRequest = z.infer<typeof DatabaseRequestSchema>;

export const DatabaseAnswerSchema = z.discriminatedUnion('ok', [
  z.object({ id: z.number().int(), ok: z.literal(true), value: z.unknown() }),
  z.object({
    id: z.number().int(),
    ok: z.literal(false),
    error: z.object({ code: z.string(), message: z.string() }),
  }),
]);
export type DatabaseAnswer = z.infer<typeof DatabaseAnswerSchema>;

export const SqlResultSchema = z.object({
  columns: z.array(z.string()),
  columnTypes: z.array(z.string()),
  // Cells are turned into Hrana values one by one on the way out; each shape is checked there.
  rows: z.array(z.array(z.unknown())),
  rowsAffected: z.number(),
  lastInsertRowid: z.bigint().optional(),
});

export const ExecutedSchema = z.object({ result: SqlResultSchema, autocommit: z.boolean() });

export const DescribedSchema = z.object({
  isReadonly: z.boolean(),
  cols: z.array(z.object({ name: z.string(), decltype: z.string().nullable() })),
});

export const SessionIdSchema = z.number().int();
