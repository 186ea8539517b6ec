/**
 * The database listener: `POST /v2/pipeline` (Hrana over HTTP) and `GET /v2`, the version probe
 * some clients send (@libsql/client 0.18 itself goes straight to /v2/pipeline). Bearer tokens are
 * checked on every request; failures answer 401 `{"error":"Unauthorized: …"}` as sqld does.
 */
import type { ServerResponse } from 'node:http';
import { sendEmpty, sendJson, sendText } from '../http.js';
import type { Route } from '../router.js';
import type { SandboxState } from '../state.js';

const UNAUTHORIZED: Readonly<Record<'missing' | 'invalid' | 'expired', string>> = {
  missing: 'Unauthorized: `Expected authorization header but none given`',
  invalid: 'Unauthorized: `The JWT is invalid`',
  expired: 'Unauthorized: `The JWT has expired`',
};

/** @libsql/client parses an error body as JSON only when the content type is exactly application/json. */
function sendHranaJson(res: ServerResponse, status: number, body: unknown): void {
  sendJson(res, status, body, 'application/json');
}

export function databasePipelineRoutes(state: SandboxState): Route[] {
  return [
    {
      id: 'database.version',
      listener: 'database',
      method: 'GET',
      path: /^\/v2\/?$/,
      handle({ res }) {
        sendEmpty(res, 200);
      },
    },
    {
      id: 'database.pipeline',
      listener: 'database',
      method: 'POST',
      path: /^\/v2\/pipeline$/,
      async handle({ req, res, json }) {
        const check = state.tokens.check(req.headers.authorization);
        if (!check.ok) return sendHranaJson(res, 401, { error: UNAUTHORIZED[check.reason] });
        if (!json.ok) return sendText(res, 400, 'Invalid pipeline request: the body is not JSON');
        // A client that gives up (its deadline passed) closes the request: stop what runs for it.
        const abandoned = new AbortController();
        res.once('close', () => {
          if (!res.writableFinished) abandoned.abort();
        });
        const outcome = await state.hrana.pipeline(
          json.value,
          check.access === 'read-only',
          abandoned.signal,
        );
        if (outcome.status === 400) return sendText(res, 400, outcome.text);
        sendHranaJson(res, outcome.status, outcome.json);
      },
    },
  ];
}
