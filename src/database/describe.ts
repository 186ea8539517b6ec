/**
 * Hrana `describe` over HTTP: asks the server whether a statement is read-only without running
 * it (`POST {database_url}/v2/pipeline` with a describe request and a close). Sent directly rather
 * than through @libsql/client, which has no describe, so that the deadline, the error mapping and
 * the scrubbing of what comes back stay in our hands.
 */
import { z } from 'zod';
import { DatabaseError, errorForCode, errorForStatus, type Scrub } from './errors.js';

const HranaErrorSchema = z.looseObject({ message: z.string(), code: z.string().nullish() });

const DescribeResultSchema = z.looseObject({
  is_readonly: z.boolean(),
  is_explain: z.boolean().optional(),
});

const PipelineResponseSchema = z.looseObject({
  results: z
    .array(
      z.union([
        z.looseObject({
          type: z.literal('ok'),
          response: z.looseObject({ type: z.string(), result: DescribeResultSchema.optional() }),
        }),
        z.looseObject({ type: z.literal('error'), error: HranaErrorSchema }),
      ]),
    )
    .min(1),
});

/** sqld answers stream errors as `{"message", "code"}` and auth failures as `{"error": …}`. */
const CodedErrorBodySchema = z.looseObject({ message: z.string(), code: z.string().min(1) });
const PlainErrorBodySchema = z.looseObject({ error: z.string() });

export interface DescribeRequest {
  httpUrl: string;
  authToken?: string;
  sql: string;
  fetch: typeof fetch;
  signal: AbortSignal;
  scrub: Scrub;
}

export interface Described {
  isReadonly: boolean;
  isExplain: boolean;
}

const unreadable = () =>
  new DatabaseError(
    'server',
    'HRANA_PROTO_ERROR',
    'The database did not confirm that the statement is read-only (its describe answer could not be read), so it was not run (code HRANA_PROTO_ERROR).',
  );

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function describeStatement(request: DescribeRequest): Promise<Described> {
  const response = await request.fetch(`${request.httpUrl}/v2/pipeline`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(request.authToken ? { authorization: `Bearer ${request.authToken}` } : {}),
    },
    body: JSON.stringify({ requests: [{ type: 'describe', sql: request.sql }, { type: 'close' }] }),
    signal: request.signal,
  });
  const text = await response.text();
  if (!response.ok) {
    const json = parseJson(text);
    const coded = CodedErrorBodySchema.safeParse(json);
    if (coded.success)
      throw errorForCode(coded.data.code, coded.data.message, request.scrub, response.status);
    const plain = PlainErrorBodySchema.safeParse(json);
    throw errorForStatus(response.status, plain.success ? plain.data.error : text, request.scrub);
  }
  const parsed = PipelineResponseSchema.safeParse(parseJson(text));
  if (!parsed.success) throw unreadable();
  const first = parsed.data.results[0]!;
  if (first.type === 'error')
    throw errorForCode(first.error.code ?? 'UNKNOWN', first.error.message, request.scrub);
  if (first.response.type !== 'describe' || !first.response.result) throw unreadable();
  return {
    isReadonly: first.response.result.is_readonly,
    isExplain: first.response.result.is_explain ?? false,
  };
}
