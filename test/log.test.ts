import { describe, expect, it } from 'vitest';
import { SecretRegistry } from '../src/secrets/registry.js';
import { createLogger } from '../src/telemetry/log.js';
import { pinnedClock } from './support/clock.js';

/** A logger redacting `secrets`, and the lines it wrote. */
function loggerInto(secrets: SecretRegistry) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', secrets, clock: pinnedClock(), write: (l) => lines.push(l) });
  return { lines, logger };
}

describe('the logger', () => {
  it('redacts a secret that JSON escapes (a quote, a backslash, a control character)', () => {
    const secrets = new SecretRegistry();
    const key = 'pk_live"9f\\a1b2\tc3d4';
    secrets.add(key);
    const { lines, logger } = loggerInto(secrets);
    logger.error('the platform refused the key', { error: new Error(`bad key ${key}`), key });
    const line = lines.join('\n');
    expect(line).not.toContain(JSON.stringify(key).slice(1, -1));
    expect(line).not.toContain('9f');
    expect(JSON.parse(line).key).toMatch(/^\[redacted …/);
    // The plain form is redacted as before, in what is not JSON.
    expect(secrets.redact(`key=${key}`)).toBe('key=[redacted …c3d4]');
  });

  it('keeps its lines JSON whatever the secret starts or ends with', () => {
    const secrets = new SecretRegistry();
    const endsInEscape = 'pk_live_12345\\abc';
    const startsWithQuote = '"pk_live_abcdef';
    secrets.add(endsInEscape, startsWithQuote);
    const { lines, logger } = loggerInto(secrets);
    logger.warn('refused', { a: endsInEscape, b: startsWithQuote });
    const parsed = JSON.parse(lines[0]!);
    expect(parsed.a).toBe('[redacted …5abc]');
    expect(parsed.b).toBe('[redacted …cdef]');
  });

  it('redacts a secret with &, < or > in Slack text, where those are escaped as entities', () => {
    const secrets = new SecretRegistry();
    const key = 'ak_<live>&9f1b2c3d4';
    secrets.add(key);
    const escaped = 'key ak_&lt;live&gt;&amp;9f1b2c3d4 rotated';
    expect(secrets.redact(escaped)).toBe('key [redacted …c3d4] rotated');
    // Delivered privately to the person who asked, it stays, in either form.
    expect(secrets.redact(escaped, [key])).toBe(escaped);
  });
});
