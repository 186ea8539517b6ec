/**
 * No test reads the real clock, and the product reads it in one place (src/time/clock.ts): a suite
 * that passes at 06:00 and fails at 18:00 is broken. This scans the sources for the ways
 * JavaScript reads the wall clock.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/block-kit.js';

/** Files allowed to read the wall clock, each with its reason. */
const ALLOWED: Record<string, string> = {
  'src/time/clock.ts': 'the system clock that the composition roots pass in',
  'test/support/signer.ts': "Slack's request timestamp, checked by Bolt against the real clock",
  'test/clock.test.ts': 'this check names the patterns it looks for',
};

// `Date.now()`, `new Date()` with no argument, and `Date()` called as a function.
const WALL_CLOCK = /\bDate\.now\(\)|\bnew Date\(\)|(?<![\w.])Date\(\)/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the clock', () => {
  it('is read only through the injected clock, in the product and in the tests', () => {
    const offenders: string[] = [];
    for (const file of [...sources(join(repoRoot, 'src')), ...sources(join(repoRoot, 'test'))]) {
      const name = relative(repoRoot, file);
      if (ALLOWED[name]) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (WALL_CLOCK.test(line) && !line.trimStart().startsWith('//'))
            offenders.push(`${name}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });
});
