/**
 * Signs requests the way Slack does ("Verifying requests from Slack"): HMAC-SHA256 over
 * `v0:{timestamp}:{raw body}` with the signing secret, hex, prefixed `v0=`.
 */
import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

export interface SlackSignatureHeaders {
  'x-slack-signature': string;
  'x-slack-request-timestamp': string;
  'content-type': string;
  [header: string]: string;
}

export interface SignOptions {
  signingSecret: string;
  body: string;
  /** Seconds since the epoch; slackRequestTimestamp() by default. */
  timestamp?: number;
  contentType?: string;
}

/**
 * The request timestamp Slack would send: the system clock in seconds. The one place a test
 * reads the real clock, because Bolt checks signatures against it (within 5 minutes); it never
 * reaches an answer, so no result depends on the hour.
 */
export const slackRequestTimestamp = (): number => Math.floor(Date.now() / 1000);

export function signSlackRequest({
  signingSecret,
  body,
  timestamp = slackRequestTimestamp(),
  contentType = FORM_CONTENT_TYPE,
}: SignOptions): SlackSignatureHeaders {
  const signature = createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex');
  return {
    'x-slack-signature': `v0=${signature}`,
    'x-slack-request-timestamp': String(timestamp),
    'content-type': contentType,
  };
}

export interface PostSignedOptions {
  signingSecret: string;
  timestamp?: number;
  /** Sends `x-slack-retry-num` (and a retry reason) as Slack does when it redelivers. */
  retryNum?: number;
  retryReason?: string;
  contentType?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface SignedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Time from sending to the whole response body, in milliseconds. */
  elapsedMs: number;
}

/** A body from payloads.ts, or a raw string sent as a form. */
export type SignedBody = string | { body: string; contentType: string };

/** POSTs a signed request to `url` (e.g. `http://127.0.0.1:PORT/slack/events`). */
export async function postSigned(
  url: string,
  body: SignedBody,
  options: PostSignedOptions,
): Promise<SignedResponse> {
  const text = typeof body === 'string' ? body : body.body;
  const contentType =
    options.contentType ?? (typeof body === 'string' ? FORM_CONTENT_TYPE : body.contentType);
  const headers: Record<string, string> = {
    ...signSlackRequest({
      signingSecret: options.signingSecret,
      body: text,
      timestamp: options.timestamp,
      contentType,
    }),
    ...options.headers,
  };
  if (options.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(options.retryNum);
    headers['x-slack-retry-reason'] = options.retryReason ?? 'http_timeout';
  }
  const started = performance.now();
  const response = await request(url, { method: 'POST', headers, body: text, signal: options.signal });
  const responseBody = await response.body.text();
  const elapsedMs = performance.now() - started;
  const responseHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { status: response.statusCode, headers: responseHeaders, body: responseBody, elapsedMs };
}
