/**
 * Response and request plumbing shared by the sandbox routes: the vendor's error shapes, body
 * reading with a size limit, and the AccessKey check.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EdgeopsError } from '../errors.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  contentType = 'application/json; charset=utf-8',
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'content-length': 0 });
  res.end();
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Core API 400 body (ApiErrorData). */
export function sendApiError(
  res: ServerResponse,
  errorKey: string,
  field: string | null,
  message: string,
): void {
  sendJson(res, 400, { ErrorKey: errorKey, Field: field, Message: message });
}

const PROBLEM_TYPES: Readonly<Record<number, string>> = {
  400: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
  401: 'https://tools.ietf.org/html/rfc9110#section-15.5.2',
  404: 'https://tools.ietf.org/html/rfc9110#section-15.5.5',
  415: 'https://tools.ietf.org/html/rfc9110#section-15.5.16',
};
const PROBLEM_TITLES: Readonly<Record<number, string>> = {
  400: 'One or more validation errors occurred.',
  401: 'Unauthorized',
  404: 'Not Found',
  415: 'Unsupported Media Type',
};

/** Shield problem document (RFC 7807 as ASP.NET writes it). */
export function sendProblem(
  res: ServerResponse,
  status: number,
  detail: string,
  instance: string,
  extra: Record<string, unknown> = {},
): void {
  sendJson(
    res,
    status,
    {
      type: PROBLEM_TYPES[status] ?? 'about:blank',
      title: PROBLEM_TITLES[status] ?? 'Error',
      status,
      detail,
      instance,
      ...extra,
    },
    'application/problem+json; charset=utf-8',
  );
}

/** A request body over the sandbox's limit: refused with 413, as the platform does. */
export class BodyTooLargeError extends EdgeopsError {
  override name = 'BodyTooLargeError';
  readonly kind = 'body-too-large';
  readonly outcome = 'refused';
  readonly unexpected = false;

  get userMessage(): string {
    return this.message;
  }
}

export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        reject(new BodyTooLargeError(`request body over ${limitBytes} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; empty: boolean };

export function parseJson(body: Buffer): ParsedJson {
  const text = body.toString('utf8');
  if (text.trim() === '') return { ok: false, empty: true };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, empty: false };
  }
}

/** application/json, text/json and application/*+json, as the Shield endpoints accept. */
export function isJsonContentType(header: string | undefined): boolean {
  const type = header?.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type === 'text/json' || /^application\/[^/]+\+json$/.test(type);
}

/** The AccessKey header, or with `bearer` also `Authorization: Bearer <key>`, equals the account key. */
export function hasAccountKey(
  req: IncomingMessage,
  apiKey: string,
  options: { bearer?: boolean } = {},
): boolean {
  if (req.headers.accesskey === apiKey) return true;
  if (!options.bearer) return false;
  return req.headers.authorization === `Bearer ${apiKey}`;
}

/** Query parameters as integers when they look like integers, so zod reports range errors, not type errors. */
export function queryNumber(url: URL, name: string): number | string | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  return /^-?\d+$/.test(raw) ? Number(raw) : raw;
}
