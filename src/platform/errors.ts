/**
 * Every way a platform call can fail, as one typed error with a message a user can act on.
 * The Slack and console adapters show `userMessage`; logs get the rest (never a secret).
 */
import type { z } from 'zod';
import { EdgeopsError, type FailureLogLine } from '../errors.js';
import {
  ApiErrorDataSchema,
  DatabaseApiErrorSchema,
  ProblemDocumentSchema,
  type ShieldEnvelopeError,
  ShieldEnvelopeErrorSchema,
  StatusObjectSchema,
  ValidationErrorsSchema,
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

export class PlatformError extends EdgeopsError {
  readonly kind: PlatformErrorKind;
  readonly outcome = 'failed';
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

  override get detail(): string {
    return `${this.kind}${this.status ? ` ${this.status}` : ''}: ${this.userMessage}`;
  }

  /** Every failed platform call is worth a warning, whoever's the cause. */
  override get logLine(): FailureLogLine {
    return {
      level: 'warn',
      message: 'platform call failed',
      fields: {
        kind: this.kind,
        status: this.status,
        platformOperation: this.operation,
        attempts: this.attempts,
        message: this.userMessage,
      },
    };
  }
}

/** What a call is about, so a 404 can name the missing object ("No pull zone 42 was found"). */
export interface CallTarget {
  operation: string;
  /** A noun as it follows "No": "pull zone 42", "Shield zone 7", "video library". */
  subject?: string;
  /** The command that lists these objects, offered when one is not found. */
  lookup?: string;
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

/**
 * At most `max` characters of the platform's words as Slack text writes them (`&` as five, `<` and
 * `>` as four: reply/escape.ts), marked with `…` where cut, and never half of a surrogate pair.
 */
function clip(text: string, max = 300): string {
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    width += code === 0x26 ? 5 : code === 0x3c || code === 0x3e ? 4 : 1;
    if (width <= max) continue;
    const high = text.charCodeAt(i - 1);
    return `${text.slice(0, high >= 0xd800 && high <= 0xdbff ? i - 1 : i)}…`;
  }
  return text;
}
/**
 * The most of the platform's own words a message quotes, marked with `…` where cut: what follows
 * them (a field, an error key, the correlation id) must fit in a Slack text of 3,000 characters.
 */
const PLATFORM_WORDS_MAX = 1_000;
/** The most of a name the platform gives (an error key, a field) that a message quotes. */
const PLATFORM_NAME_MAX = 200;

/**
 * Plain words for the error keys the vendor is known to send (reference/platform-fixtures 00, 04),
 * shown when the body's own message is null. Any other key is shown as it is.
 */
export const ERROR_KEY_WORDS: Readonly<Record<string, string>> = {
  'invalid_plan_type.bot_detection':
    'The plan of this Shield zone does not include bot detection; upgrade the zone’s plan to use it.',
  'pullZone.not_found': 'The pull zone was not found on the platform; check the id.',
};

/** The body's message, else the words for its error key, else `fallback`; the key is always named. */
function messageWithKey(
  message: string | null | undefined,
  key: string | undefined,
  fallback: string,
): string {
  if (message?.trim())
    return key ? `${clip(message, PLATFORM_WORDS_MAX)} (${key})` : clip(message, PLATFORM_WORDS_MAX);
  const words = key !== undefined && Object.hasOwn(ERROR_KEY_WORDS, key) ? ERROR_KEY_WORDS[key] : undefined;
  if (words) return `${words} (${key})`;
  return key ? `${fallback} Error key: ${key}.` : fallback;
}

/**
 * A Shield envelope's error part as a PlatformError when it reports a failure: success = false,
 * or no verdict at all but a key or a message (the vendor requires none of the three).
 */
export function shieldEnvelopeFailure(
  operation: string,
  httpStatus: number,
  error: ShieldEnvelopeError | null | undefined,
  retryAfterSeconds?: number,
): PlatformError | undefined {
  if (!error || error.success === true) return undefined;
  if (error.success === undefined && !error.errorKey && !error.message) return undefined;
  const status = error.statusCode ?? httpStatus;
  const key = error.errorKey ? clip(error.errorKey, PLATFORM_NAME_MAX) : undefined;
  return new PlatformError({
    operation,
    status,
    retryAfterSeconds,
    kind: status === 404 ? 'not-found' : 'shield-error',
    errorKey: key,
    userMessage: messageWithKey(error.message, key, `The Shield API refused the request (status ${status}).`),
  });
}

/** "field: message, message" for each field error of a validation problem document. */
function validationErrorLines(errors: unknown): { field: string; line: string }[] {
  const parsed = ValidationErrorsSchema.safeParse(errors);
  if (!parsed.success) return [];
  if (Array.isArray(parsed.data))
    return parsed.data
      .filter((item) => item.message)
      .map((item) => ({
        field: item.field ?? '',
        line: item.field ? `${item.field}: ${item.message}` : String(item.message),
      }));
  return Object.entries(parsed.data).map(([field, messages]) => {
    const text = Array.isArray(messages) ? messages.join(', ') : messages;
    return { field, line: field && field !== '$' ? `${field}: ${text}` : text };
  });
}

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
 * then the status code. Whatever words the platform chose, a missing object points to the
 * command that lists those objects.
 */
export function errorFromResponse(
  target: CallTarget,
  status: number,
  bodyText: string,
  retryAfterSeconds?: number,
): PlatformError {
  const error = describeResponse(target, status, bodyText, retryAfterSeconds);
  if (error.kind !== 'not-found' || !target.lookup || error.userMessage.includes(target.lookup)) return error;
  return new PlatformError({
    kind: error.kind,
    operation: error.operation,
    status: error.status,
    errorKey: error.errorKey,
    field: error.field,
    retryAfterSeconds: error.retryAfterSeconds,
    userMessage: `${error.userMessage.replace(/\.?$/, '.')} ${/check the id/i.test(error.userMessage) ? 'Find' : 'Check the id, or find'} it with ${target.lookup}.`,
  });
}

function describeResponse(
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
  const envelopeFailure = shieldEnvelopeFailure(operation, status, envelope, retryAfterSeconds);
  if (envelopeFailure) {
    // The HTTP status decides how the failure is treated; the envelope's own code only words it.
    // A server's failure is one the reader cannot fix: it is retried, and shown with an id. One
    // that says nothing of itself is worded as the server's, not as a refusal of the request.
    const server = status >= 500;
    return new PlatformError({
      ...base,
      kind: status === 404 ? 'not-found' : server ? 'server' : 'shield-error',
      errorKey: envelopeFailure.errorKey,
      userMessage:
        server && !envelope?.message?.trim()
          ? messageWithKey(null, envelopeFailure.errorKey, `The Shield API failed (HTTP ${status}).`)
          : envelopeFailure.userMessage,
    });
  }

  const apiError = tryParse(ApiErrorDataSchema, body);
  // Words the platform sent empty or blank are no words: the status speaks instead.
  const noWords =
    status >= 500 ? `The platform failed (HTTP ${status}).` : 'The platform refused the request.';
  if (apiError && (apiError.Message || apiError.ErrorKey)) {
    const key = apiError.ErrorKey ? clip(apiError.ErrorKey, PLATFORM_NAME_MAX) : undefined;
    const where = apiError.Field ? ` Field: ${clip(apiError.Field, PLATFORM_NAME_MAX)}.` : '';
    return new PlatformError({
      ...base,
      // As with every shape of body: a 5xx is the server's failure, whatever the body says.
      kind: status === 404 ? 'not-found' : status >= 500 ? 'server' : 'bad-request',
      errorKey: key,
      field: apiError.Field ?? undefined,
      userMessage: apiError.Message?.trim()
        ? `${clip(apiError.Message, PLATFORM_WORDS_MAX)}${where}${key ? ` (${key})` : ''}`
        : `${messageWithKey(null, key, noWords)}${where}`,
    });
  }

  const problem = tryParse(ProblemDocumentSchema, body);
  const fieldErrors = validationErrorLines(problem?.errors);
  if (problem && (problem.detail || problem.title || fieldErrors.length > 0)) {
    const lead = problem.detail?.trim() || problem.title?.trim() || noWords;
    // A validation problem often has only a title; its field errors are what the user can act on.
    const unsaid = fieldErrors.filter((error) => !lead.includes(error.line));
    const said =
      unsaid.length > 0 ? `${lead.replace(/\.?$/, '.')} ${unsaid.map((e) => e.line).join('; ')}` : lead;
    return new PlatformError({
      ...base,
      kind: status === 404 ? 'not-found' : status >= 500 ? 'server' : 'problem',
      field: fieldErrors[0]?.field || undefined,
      userMessage: clip(said, PLATFORM_WORDS_MAX),
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
      userMessage: target.subject
        ? `No ${target.subject} was found on the platform. Check the id${target.lookup ? `, or find it with ${target.lookup}` : ''}.`
        : 'The platform found nothing with that id (HTTP 404). Check the id.',
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
