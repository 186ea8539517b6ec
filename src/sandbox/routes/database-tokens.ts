/**
 * The database and its token management under {databaseApiUrl}: read (GET …/databases/{db}),
 * generate (PUT …/auth/generate) and revoke (POST …/auth/revoke). Errors use the database API's
 * AppError shape `{error, details?}`.
 */
import { hasAccountKey, sendEmpty, sendJson } from '../http.js';
import type { Route, RouteContext } from '../router.js';
import type { SandboxState } from '../state.js';
import { GenerateTokenBodySchema } from '../vendor-rules.js';

const DATABASE_PATH = '^/database/v2/databases/(?<db>[^/]+)/auth/';
/** The sandbox's one database, as the management API names it. */
export const SANDBOX_DATABASE_NAME = 'shop';

export function databaseTokenRoutes(state: SandboxState): Route[] {
  /** Auth and database lookup shared by both routes; false when an error was sent. */
  const admit = ({ req, res, params }: RouteContext): boolean => {
    if (!hasAccountKey(req, state.apiKey, { bearer: true })) {
      sendJson(res, 401, { error: 'Unauthorized: the AccessKey header is missing or not valid' });
      return false;
    }
    if (params.db !== state.databaseId) {
      sendJson(res, 404, { error: `Database ${params.db} not found` });
      return false;
    }
    return true;
  };

  return [
    {
      id: 'database.get',
      listener: 'api',
      method: 'GET',
      path: /^\/database\/v2\/databases\/(?<db>[^/]+)$/,
      handle(context) {
        if (!admit(context)) return;
        sendJson(context.res, 200, {
          db: { id: state.databaseId, name: SANDBOX_DATABASE_NAME, block_reads: false, block_writes: false },
        });
      },
    },
    {
      id: 'database.tokens.generate',
      listener: 'api',
      method: 'PUT',
      path: new RegExp(`${DATABASE_PATH}generate$`),
      handle(context) {
        if (!admit(context)) return;
        const { res, json } = context;
        if (!json.ok) {
          return sendJson(res, 400, {
            error: json.empty ? 'A request body is required' : 'The request body is not valid JSON',
          });
        }
        const parsed = GenerateTokenBodySchema.safeParse(json.value);
        if (!parsed.success) {
          return sendJson(res, 400, {
            error: 'Invalid token request',
            details: parsed.error.issues.map((issue) => ({
              path: issue.path.join('.'),
              message: issue.message,
            })),
          });
        }
        const expiresAt = parsed.data.expires_at ? Date.parse(parsed.data.expires_at) : null;
        if (expiresAt !== null && expiresAt <= state.now()) {
          return sendJson(res, 400, { error: 'expires_at must be in the future' });
        }
        const issued = state.tokens.generate(parsed.data.authorization, expiresAt);
        sendJson(res, 200, {
          token: issued.token,
          expires_at: issued.expiresAt === null ? null : new Date(issued.expiresAt).toISOString(),
        });
      },
    },
    {
      id: 'database.tokens.revoke',
      listener: 'api',
      method: 'POST',
      path: new RegExp(`${DATABASE_PATH}revoke$`),
      handle(context) {
        if (!admit(context)) return;
        state.tokens.revokeAll();
        sendEmpty(context.res, 204);
      },
    },
  ];
}
