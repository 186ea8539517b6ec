/**
 * Phones turn `--` into an em dash, and some people type one dash: for every command with flags,
 * a line whose flags are written `—flag`, `–flag` or `-flag` parses to the same request as with
 * `--flag`, while dashes inside text arguments stay as typed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineTestbed, startEngineTestbed } from '../support/engine.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
});

/** One line per command that takes flags, each flag written `--name`. */
const LINES = [
  'dns example --page 2 --per-page 5 --lite',
  'pullzones www --page 1 --per-page 10',
  'shield zones --page 2',
  'apikeys --page 1 --per-page 20',
  'logs 308006 --last 2h --status 5xx --code http_timeout --zone DE',
  'logs 308006 --from -3h --to -1h',
  'logs 308006 yesterday --since 1h',
  'shield export 5101 --last 1h --query "wp-login — probe" --filter country:in:DE,FR',
  'db tokens create --read-only --expires 7d --db db_01SANDBOX',
  'db tokens invalidate --regenerate --db db_01SANDBOX',
  'approvals --all',
  'audit --op dns.list --since 2h --limit 5 --all --csv',
  'watch logs 308006 --status 5xx --every 2m --for 3h --alert 50/5m',
] as const;

const DASHES = ['—', '–', '-'] as const;

/** The line with each `--flag` written with the dash chosen for it. */
function dashed(line: string, choices: readonly number[]): string {
  let i = 0;
  return line.replace(
    /(^|\s)--(?=[a-z])/g,
    (_all, space: string) => `${space}${DASHES[choices[i++ % choices.length]! % 3]}`,
  );
}

describe('flags typed with other dashes', () => {
  it.each(LINES)('%s parses to the same request however its flags are dashed', (line) => {
    const expected = bed.runtime.engine.resolve(line);
    expect(expected.ok, JSON.stringify(expected)).toBe(true);
    fc.assert(
      fc.property(fc.array(fc.nat(2), { minLength: 1, maxLength: 8 }), (choices) => {
        const other = bed.runtime.engine.resolve(dashed(line, choices));
        expect(other).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('leaves dashes inside text arguments as typed', () => {
    const reset = bed.runtime.engine.resolve('pullzone reset-key 308006 —rotated after -the leak');
    expect(reset).toMatchObject({ ok: true, args: { reason: '—rotated after -the leak' } });
    const query = bed.runtime.engine.resolve('db query SELECT 1 -- —page comment');
    expect(query).toMatchObject({ ok: true, args: { sql: 'SELECT 1 -- —page comment' } });
    const search = bed.runtime.engine.resolve('shield export 5101 --last 1h --query "a —lite b"');
    expect(JSON.stringify(search)).toContain('a —lite b');
  });
});
