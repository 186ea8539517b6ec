/**
 * Posts to a command's or button's response_url with undici (the same client as the rest of
 * the bot) instead of the SDK's respond(), whose HTTP stack costs several times more CPU per
 * message: on a busy bot that is time every other acknowledgement waits for.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RespondArguments } from '@slack/bolt';
import { Agent, request } from 'undici';
import { InternalError } from '../errors.js';

const agent = new Agent({ keepAliveTimeout: 30_000, connect: { timeout: 5_000 }, headersTimeout: 10_000 });

/** Slack answers a refused response_url post with a status and a one-word body (`invalid_blocks`). */
export class ResponseUrlError extends InternalError {
  override name = 'ResponseUrlError';
  readonly kind = 'response-url';

  constructor(
    readonly status: number,
    /** Slack's word for the refusal, e.g. `invalid_blocks`, `expired_url`, `used_url`. */
    readonly code: string,
  ) {
    super(`response_url answered ${status}: ${code}`);
  }
}

export type PostResponse = (message: RespondArguments) => Promise<void>;

/** A rate-limited post is tried again after Slack's Retry-After, at most this often. */
const RATE_LIMIT_TRIES = 3;
const MAX_RETRY_AFTER_S = 30;

export function responseUrlPoster(url: string): PostResponse {
  return async (message) => {
    for (let attempt = 1; ; attempt++) {
      const response = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(message),
        dispatcher: agent,
      });
      const text = await response.body.text();
      if (response.statusCode < 300) return;
      const retryAfter = Number(response.headers['retry-after'] ?? 1);
      if (response.statusCode === 429 && attempt < RATE_LIMIT_TRIES && retryAfter <= MAX_RETRY_AFTER_S) {
        await sleep(Math.max(0, retryAfter) * 1000);
        continue;
      }
      const code = /^[a-z_]+$/.test(text.trim()) ? text.trim() : `http_${response.statusCode}`;
      throw new ResponseUrlError(response.statusCode, code);
    }
  };
}
