import { describe, expect, it } from 'vitest';
import { DatabaseUrlError, parseDatabaseUrl } from '../../src/database/url.js';

describe('parseDatabaseUrl', () => {
  it('reaches a libsql:// database over HTTPS and names it by its first host label', () => {
    expect(parseDatabaseUrl('libsql://db-01abc.lite.bunnydb.net')).toEqual({
      httpUrl: 'https://db-01abc.lite.bunnydb.net',
      authTokenFromUrl: undefined,
      databaseId: 'db-01abc',
    });
  });

  it('uses plain HTTP for libsql:// with ?tls=0 and an explicit port', () => {
    expect(parseDatabaseUrl('libsql://127.0.0.1:8080?tls=0').httpUrl).toBe('http://127.0.0.1:8080');
    expect(() => parseDatabaseUrl('libsql://db.example.com?tls=0')).toThrow(DatabaseUrlError);
  });

  it('keeps http(s) URLs and maps ws(s) to http(s), dropping the query and trailing slash', () => {
    expect(parseDatabaseUrl('https://db.example.com/').httpUrl).toBe('https://db.example.com');
    expect(parseDatabaseUrl('http://127.0.0.1:4011').httpUrl).toBe('http://127.0.0.1:4011');
    expect(parseDatabaseUrl('wss://db.example.com').httpUrl).toBe('https://db.example.com');
    expect(parseDatabaseUrl('ws://127.0.0.1:9000').httpUrl).toBe('http://127.0.0.1:9000');
  });

  it('takes a token out of the authToken parameter so that it never travels in a URL', () => {
    const parsed = parseDatabaseUrl('libsql://db.example.com?authToken=secret-token-value');
    expect(parsed.authTokenFromUrl).toBe('secret-token-value');
    expect(parsed.httpUrl).not.toContain('secret-token-value');
  });

  it('refuses local files, which have no HTTP endpoint to describe statements', () => {
    expect(() => parseDatabaseUrl('file:data/customer.db')).toThrow(/remote database/);
    expect(() => parseDatabaseUrl(':memory:')).toThrow(DatabaseUrlError);
  });
});
