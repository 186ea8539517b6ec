import { endpoint, type PlatformContext } from './context.js';
import { invalidRequest } from './errors.js';
import {
  DatabaseIdSchema,
  type DatabaseRecord,
  DatabaseRecordSchema,
  type GeneratedToken,
  GeneratedTokenSchema,
  type GenerateTokenRequest,
  GenerateTokenRequestSchema,
} from './schemas.js';

/**
 * GET {database_api}/v2/databases/{db} → {db: {id, name, url, …}} (reference 10): whether the
 * database exists, and its name, before anyone is asked to approve a change to its tokens.
 */
export async function getDatabase(
  ctx: PlatformContext,
  databaseId: string,
  options: { signal?: AbortSignal } = {},
): Promise<DatabaseRecord> {
  const id = DatabaseIdSchema.safeParse(databaseId);
  if (!id.success) throw invalidRequest('database.get', id.error);
  return ctx.http.json(
    {
      operation: 'database.get',
      subject: `database ${id.data}`,
      method: 'GET',
      url: endpoint(ctx.databaseApiUrl, `/v2/databases/${encodeURIComponent(id.data)}`),
      read: true,
      expect: [200],
      signal: options.signal,
    },
    DatabaseRecordSchema,
  );
}

/**
 * PUT {database_api}/v2/databases/{db}/auth/generate → {token, expires_at} (reference 10).
 * The token is a secret: callers deliver it once, privately, and never log it.
 */
export async function generateDatabaseToken(
  ctx: PlatformContext,
  databaseId: string,
  input: GenerateTokenRequest,
): Promise<GeneratedToken> {
  const id = DatabaseIdSchema.safeParse(databaseId);
  if (!id.success) throw invalidRequest('database.tokens.generate', id.error);
  const body = GenerateTokenRequestSchema.safeParse(input);
  if (!body.success) throw invalidRequest('database.tokens.generate', body.error);
  return ctx.http.json(
    {
      operation: 'database.tokens.generate',
      subject: `database ${id.data}`,
      method: 'PUT',
      url: endpoint(ctx.databaseApiUrl, `/v2/databases/${encodeURIComponent(id.data)}/auth/generate`),
      json: body.data,
      read: false,
      expect: [200, 201],
    },
    GeneratedTokenSchema,
  );
}

/** POST {database_api}/v2/databases/{db}/auth/revoke → 204: every token of the database stops working. */
export async function revokeDatabaseTokens(ctx: PlatformContext, databaseId: string): Promise<void> {
  const id = DatabaseIdSchema.safeParse(databaseId);
  if (!id.success) throw invalidRequest('database.tokens.revoke', id.error);
  await ctx.http.empty({
    operation: 'database.tokens.revoke',
    subject: `database ${id.data}`,
    method: 'POST',
    url: endpoint(ctx.databaseApiUrl, `/v2/databases/${encodeURIComponent(id.data)}/auth/revoke`),
    read: false,
    expect: [200, 204],
  });
}
