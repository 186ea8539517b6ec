/**
 * Access tokens of the sandbox database. Tokens look like the vendor's JWTs but are checked by
 * lookup; revoking drops every token of the database at once, as the real revoke endpoint does.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { TokenAuthorization } from './vendor-rules.js';

export type TokenAccess = TokenAuthorization;

export interface IssuedToken {
  token: string;
  /** Unix milliseconds, or null for a token that lives until revoked. */
  expiresAt: number | null;
}

export type TokenCheck =
  | { ok: true; access: TokenAccess }
  | { ok: false; reason: 'missing' | 'invalid' | 'expired' };

export interface DatabaseTokens {
  generate(access: TokenAccess, expiresAt?: number | null): IssuedToken;
  /** Invalidates every token issued so far. */
  revokeAll(): void;
  /** Checks an `Authorization` header value (`Bearer …`). */
  check(authorization: string | undefined): TokenCheck;
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

export function createDatabaseTokens(databaseId: string, now: () => number): DatabaseTokens {
  const secret = randomBytes(32);
  const issued = new Map<string, { access: TokenAccess; expiresAt: number | null }>();

  return {
    generate(access, expiresAt = null) {
      const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
      const claims: Record<string, unknown> = {
        a: access === 'read-only' ? 'ro' : 'rw',
        id: databaseId,
        iat: Math.floor(now() / 1000),
        jti: randomUUID(),
      };
      if (expiresAt !== null) claims.exp = Math.floor(expiresAt / 1000);
      const payload = base64url(JSON.stringify(claims));
      const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
      const token = `${header}.${payload}.${signature}`;
      issued.set(token, { access, expiresAt });
      return { token, expiresAt };
    },
    revokeAll() {
      issued.clear();
    },
    check(authorization) {
      if (!authorization) return { ok: false, reason: 'missing' };
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      const entry = match?.[1] ? issued.get(match[1]) : undefined;
      if (!entry) return { ok: false, reason: 'invalid' };
      if (entry.expiresAt !== null && entry.expiresAt <= now()) return { ok: false, reason: 'expired' };
      return { ok: true, access: entry.access };
    },
  };
}
