/**
 * Every way a platform call can fail, as one typed error with a message a user can act on.
 * The Slack and console adapters show `userMessage`; logs get the rest (never a secret).
 */
import type { z } from 'zod';
import {
  ApiErrorDataSchema,
  DatabaseApiErrorSchema,
  ProblemDocumentSchema,
  ShieldEnvelopeErrorSchema,
  StatusObjectSchema,
} from './schemas.js';

export type PlatformErrorKind =
  /** Refused before sending: the request did not match the spec. */
  | 'invalid-request'
  /** 400 with ApiErrorData {ErrorKey, Field, Message}. */
  | 'bad-request'
  /** A problem document {type, title, status, detail, instance}. */
  | 'problem'
  /** A Shield envelope with error.success = false. */
  | 'shield-error'
  /** A database management API error {error, details}. */
  | 'database-api'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'rate-limited'
  | 'server'
  /** Connection refused or reset, timeouts. */
  | 'network'
  /** A body that is not what the spec says: malformed JSON, a truncated body, a wrong shape. */
  | 'invalid-response'
  /** The caller cancelled the call. */
  | 'aborted';

export interface PlatformErrorInit {
  kind: PlatformErrorKind;
  operation: string;
  userMessage: string;
  status?: number;
  errorKey?: string;
  field?: string;
  retryAfterSeconds?: number;
  /** How many attempts were made before giving up. */
  attempts?: number;
  cause?: unknown;
}

export class PlatformError extends Error {
  readonly kind: PlatformErrorKind;
  readonly operation: string;
  readonly userMessage: string;
  readonly status?: number;
  readonly errorKey?: string;
  readonly field?: string;
  readonly retryAfterSeconds?: number;
  attempts: number;

  constructor(init: PlatformErrorInit) {
    super(`${init.operation}: ${init.userMessage}`, { cause: init.cause });
    this.name = 'PlatformError';
    this.kind = init.kind;
    this.operation = init.operation;
    this.userMessage = init.userMessage;
    this.status = init.status;
    this.errorKey = init.errorKey;
    this.field = init.field;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.attempts = init.attempts ?? 1;
  }

  /** Failures whose cause is unknown to the user: they are shown with a correlation id. */
  get unexpected(): boolean {
    return this.kind === 'server' || this.kind === 'network' || this.kind === 'invalid-response';
  }
}

/** What a call is about, so a 404 can name the missing object ("Pull zone 42"). */
export interface CallTarget {
  operation: string;
  /** e.g. "Pull zone 42", "Shield zone 7"; used in not-found messages. */
  subject?: string;
}

const tryParse = <T extends z.ZodType>(schema: T, value: unknown): z.infer<T> | undefined => {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
};

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const clip = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Parses a Retry-After header (seconds or an HTTP date) into whole seconds. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * Turns an unsuccessful response into a PlatformError. The body shape decides the message
 * first (ApiErrorData, problem document, Shield envelope, status object, database error),
 * then the status code.
 */
export function errorFromResponse(
  target: CallTarget,
  status: number,
  bodyText: string,
  retryAfterSeconds?: number,
): PlatformError {
  const { operation } = target;
  const body = bodyText.trim() === '' ? undefined : parseJson(bodyText);
  const base = { operation, status, retryAfterSeconds };

  if (status === 401)
    return new PlatformError({
      ...base,
      kind: 'unauthorized',
      userMessage:
        'The platform refused the API key (HTTP 401). Check that PLATFORM_API_KEY is a valid account API key.',
    });
  if (status === 429) {
    const wait =
      retryAfterSeconds !== undefined ? ` Try again in ${retryAfterSeconds} s.` : ' Try again shortly.';
    return new PlatformError({
      ...base,
      kind: 'rate-limited',
      userMessage: `The platform is rate limiting requests (HTTP 429).${wait}`,
    });
  }

  const envelope = tryParse(ShieldEnvelopeErrorSchema, (body as { error?: unknown } | undefined)?.error);
  if (envelope && envelope.success === false) {
    const key = envelope.errorKey ?? undefined;
    return new PlatformError({
      ...base,
      kind: status === 404 ? 'not-found' : 'shield-error',
      errorKey: key,
      userMessage: `${envelope.message ?? 'The Shield API reported a failure.'}${key ? ` (${key})` : ''}`,
    });
  }

  const apiError = tryParse(ApiErrorDataSchema, body);
  if (apiError && (apiError.Message || apiError.ErrorKey)) {
    const where = apiError.Field ? ` Field: ${apiError.Field}.` : '';
    const key = apiError.ErrorKey ? ` (${apiError.ErrorKey})` : '';
    return new PlatformError({
      ...base,
      kind: status === 404 ? 'not-found' : 'bad-request',
      errorKey: apiError.ErrorKey ?? undefined,
      field: apiError.Field ?? undefined,
      userMessage: `${apiError.Message ?? 'The platform refused the request.'}${where}${key}`,
    });
  }

  const problem = tryParse(ProblemDocumentSchema, body);
  if (problem && (problem.detail || problem.title)) {
    return new PlatformError({
      ...base,
      kind: status === 404 ? 'not-found' : status >= 500 ? 'server' : 'problem',
      userMessage: problem.detail ?? problem.title ?? 'The platform refused the request.',
    });
  }

  const databaseError = tryParse(DatabaseApiErrorSchema, body);
  if (databaseError) {
    return new PlatformError({
      ...base,
      kind: status === 404 ? 'not-found' : status >= 500 ? 'server' : 'database-api',
      userMessage: `The database API said: ${clip(databaseError.error)}`,
    });
  }

  const statusObject = tryParse(StatusObjectSchema, body);
  const effective = statusObject?.statusCode ?? status;

  if (effective === 404 || status === 404)
    return new PlatformError({
      ...base,
      kind: 'not-found',
      userMessage: `${target.subject ?? 'The requested object'} was not found on the platform (HTTP 404). Check the id.`,
    });
  if (effective === 403)
    return new PlatformError({
      ...base,
      kind: 'forbidden',
      userMessage:
        'The platform forbids this for the configured API key (HTTP 403). Check the key’s roles or the plan.',
    });
  if (status >= 500)
    return new PlatformError({
      ...base,
      kind: 'server',
      userMessage: `The platform failed (HTTP ${status}). Try again in a minute; if it persists, check the platform's status.`,
    });
  return new PlatformError({
    ...base,
    kind: 'bad-request',
    userMessage: `The platform refused the request (HTTP ${status})${body === undefined && bodyText.trim() ? `: ${clip(bodyText)}` : '.'}`,
  });
}

/** A request that fails our own validation; never sent. */
export function invalidRequest(operation: string, error: z.ZodError): PlatformError {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return new PlatformError({
    kind: 'invalid-request',
    operation,
    userMessage: `${where}${issue?.message ?? 'the request is not valid'}`,
    cause: error,
  });
}

/** Errors from a response body that could not be read or understood. */
export function invalidResponse(operation: string, what: string, cause?: unknown): PlatformError {
  return new PlatformError({
    kind: 'invalid-response',
    operation,
    userMessage: `The platform sent a response that could not be read (${what}). Try again; if it persists, report it with the correlation id.`,
    cause,
  });
}
