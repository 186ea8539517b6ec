import { LibsqlError } from '@libsql/client';
import { describe, expect, it } from 'vitest';
import {
  createScrub,
  DatabaseError,
  errorForCode,
  errorForStatus,
  toDatabaseError,
} from '../../src/database/errors.js';
import { SecretRegistry } from '../../src/secrets/registry.js';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.registered-token.signature';
const secrets = new SecretRegistry();
secrets.add(TOKEN);
const scrub = createScrub((text) => secrets.redact(text));

describe('database errors', () => {
  it('scrubs registered tokens, tokens in URLs and bearer headers', () => {
    const text = scrub(
      `failed ${TOKEN} at https://db.example.com/v2/pipeline?authToken=other-token-123&x=1 with Bearer unregistered-token-456`,
    );
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('other-token-123');
    expect(text).not.toContain('unregistered-token-456');
    expect(text).toContain('authToken=[redacted]&x=1');
  });

  it('puts libSQL codes into plain words and keeps the code', () => {
    const cases: [string, string, RegExp][] = [
      [
        'SQL_PARSE_ERROR',
        'SQL string could not be parsed: near "SELEC": syntax error',
        /could not be parsed: near "SELEC"/,
      ],
      ['SQLITE_READONLY', 'attempt to write a readonly database', /Only read-only statements/],
      ['SQLITE_UNKNOWN', 'SQLite error: no such table: nope', /refused the statement: no such table: nope/],
      ['SQLITE_CONSTRAINT', 'UNIQUE constraint failed: users.id', /constraint refused the statement/],
      ['SQL_MANY_STATEMENTS', 'SQL string contains more than one statement', /exactly one/],
    ];
    for (const [code, message, words] of cases) {
      const error = errorForCode(code, `${code}: ${message}`, scrub);
      expect(error.userMessage).toMatch(words);
      // SQLite's catch-all code says nothing a person can act on; the others name the rule.
      if (code === 'SQLITE_UNKNOWN') expect(error.userMessage).not.toContain(code);
      else expect(error.userMessage).toContain(`(code ${code})`);
      expect(error.userMessage).not.toMatch(new RegExp(`: ${code}:`));
    }
  });

  it('points at SERVICE_DATABASE_AUTH_TOKEN when the token is refused', () => {
    const error = errorForStatus(401, 'Unauthorized: `The JWT is invalid`', scrub);
    expect(error.kind).toBe('unauthorized');
    expect(error.userMessage).toContain('SERVICE_DATABASE_AUTH_TOKEN');
    expect(error.userMessage).toContain('(HTTP 401)');
    expect(error.userMessage).not.toContain('SERVER_ERROR');
  });

  it('reads the HTTP status of a LibsqlError from its cause and scrubs its message', () => {
    const cause = Object.assign(new Error('Server returned HTTP status 503'), { status: 503 });
    const error = toDatabaseError(
      new LibsqlError(
        `Server returned HTTP status 503 for ${TOKEN}`,
        'SERVER_ERROR',
        undefined,
        undefined,
        cause,
      ),
      scrub,
    );
    expect(error).toBeInstanceOf(DatabaseError);
    expect(error.kind).toBe('server');
    expect(error.status).toBe(503);
    expect(error.userMessage).not.toContain(TOKEN);
  });

  it('reports a refused connection as unreachable, naming the URL variable', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    });
    const error = toDatabaseError(refused, scrub);
    expect(error.kind).toBe('unreachable');
    expect(error.userMessage).toContain('SERVICE_DATABASE_URL');
    expect(error.userMessage).toContain('code ECONNREFUSED');
  });
});
