import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SecretRegistry } from '../../src/secrets/registry.js';

const KEY = 'sandbox-4a1f0c2e-7d3b-4e59-9a61-0c8e2f5b7d90';

/** Every run of five characters of KEY: none may survive redaction. */
const partsOf = (secret: string) =>
  Array.from({ length: secret.length - 4 }, (_, i) => secret.slice(i, i + 5));

describe('redacting values cut for display', () => {
  const secrets = new SecretRegistry();
  secrets.add(KEY);

  it('masks the start of a secret a cut ends in, and the end of one a cut goes on with', () => {
    expect(secrets.redact(`yyy…y${KEY.slice(0, 16)}…`)).toBe('yyy…y[redacted …7d90]…');
    expect(secrets.redact(`x…${KEY.slice(-20)} next`)).toBe('x…[redacted …7d90] next');
    expect(secrets.redact(`${KEY.slice(0, 4)}…`)).toBe('[redacted …7d90]…');
  });

  it('leaves whole secrets masked as before, its own masks alone, and fewer than four characters at a cut', () => {
    expect(secrets.redact(`a ${KEY} b`)).toBe('a [redacted …7d90] b');
    const once = secrets.redact(`${KEY}…${KEY.slice(0, 10)}…`);
    expect(once).toBe('[redacted …7d90]…[redacted …7d90]…');
    expect(secrets.redact(once)).toBe(once);
    expect(secrets.redact('san… and …d90')).toBe('san… and …d90');
    expect(secrets.redact(`${KEY.slice(0, 12)}…`, [KEY])).toBe(`${KEY.slice(0, 12)}…`);
  });

  it('lets no five characters of a secret through, wherever a value holding it is cut', () => {
    fc.assert(
      fc.property(fc.nat(60), fc.nat(60), fc.nat(200), fc.nat(200), (before, after, headCut, tailCut) => {
        const value = `${'y'.repeat(before)}${KEY}${'z'.repeat(after)}`;
        const head = value.slice(0, Math.min(headCut, value.length));
        const tail = value.slice(Math.min(value.length, head.length + tailCut));
        // A value kept to its head, and one shortened in its middle.
        for (const shown of [`${head}…`, `${head}…${tail}`]) {
          const out = secrets.redact(shown);
          for (const part of partsOf(KEY)) expect(out).not.toContain(part);
        }
      }),
      { numRuns: 500 },
    );
  });
});
