import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { repoRoot } from './support/block-kit.js';

type Version = readonly [number, number, number];

/**
 * Whether `version` satisfies an npm `engines` range: `||` alternatives of space-separated
 * comparators (`>=`, `>`, `<=`, `<`, `=`, `^`, `~`, and bare or `x` partial versions), as the
 * node-semver grammar has them; enough for every `engines.node` in the lock file.
 */
function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((alternative) => {
    const comparators = alternative
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter((c) => c !== '' && c !== '*');
    return comparators.every((comparator) => matches(version, comparator));
  });
}

function matches(version: Version, comparator: string): boolean {
  const match = /^(>=|<=|>|<|=|\^|~)?v?(\d+|x|X|\*)(?:\.(\d+|x|X|\*))?(?:\.(\d+|x|X|\*))?$/.exec(comparator);
  if (!match) throw new Error(`unsupported range comparator ${comparator}`);
  const [, operator = '', ...raw] = match;
  const parts = raw.map((p) => (p === undefined || /^[xX*]$/.test(p) ? undefined : Number(p)));
  const given = parts.indexOf(undefined);
  const precision = given === -1 ? 3 : given;
  const low: Version = [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
  const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  // The exclusive upper end of a partial version (`20` is <21.0.0) or of a caret/tilde range.
  const bump = (index: number): Version =>
    index === 0 ? [low[0] + 1, 0, 0] : index === 1 ? [low[0], low[1] + 1, 0] : [low[0], low[1], low[2] + 1];
  const partialEnd = precision === 0 ? undefined : precision < 3 ? bump(precision - 1) : undefined;
  switch (operator) {
    case '>=':
      return compare(version, low) >= 0;
    case '>':
      return partialEnd ? compare(version, partialEnd) >= 0 : compare(version, low) > 0;
    case '<':
      return compare(version, low) < 0;
    case '<=':
      return partialEnd ? compare(version, partialEnd) < 0 : compare(version, low) <= 0;
    case '^': {
      const end = low[0] > 0 || precision === 1 ? bump(0) : low[1] > 0 || precision === 2 ? bump(1) : bump(2);
      return compare(version, low) >= 0 && compare(version, end) < 0;
    }
    case '~': {
      const end = precision === 1 ? bump(0) : bump(1);
      return compare(version, low) >= 0 && compare(version, end) < 0;
    }
    default:
      if (precision === 0) return true;
      return partialEnd
        ? compare(version, low) >= 0 && compare(version, partialEnd) < 0
        : compare(version, low) === 0;
  }
}

const v = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text.replace(/^v/, '').split('.').map(Number);
  return [major, minor, patch];
};

const packageJson = z
  .object({
    engines: z.object({ node: z.string() }),
    devDependencies: z.object({ '@types/node': z.string() }),
  })
  .parse(JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')));
const lock = z
  .object({
    packages: z.record(
      z.string(),
      z.object({
        version: z.string().optional(),
        engines: z.unknown().optional(),
        dev: z.boolean().optional(),
      }),
    ),
  })
  .parse(JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')));

const engines = packageJson.engines.node;
/** The first release of each line the project admits: the oldest Node it must run on. */
const FIRST_ADMITTED = ['20.19.0', '22.13.0', '24.0.0'];

describe('the Node versions edgeops runs on', () => {
  it('admits the LTS lines 20 (from 20.19), 22 (from 22.13) and 24, and nothing older or untested', () => {
    for (const version of [...FIRST_ADMITTED, '20.20.2', '22.22.0', '24.20.0', '24.99.0'])
      expect(satisfies(v(version), engines), version).toBe(true);
    for (const version of ['18.20.0', '20.18.9', '21.7.0', '22.12.0', '23.11.0', '25.0.0', '26.1.0'])
      expect(satisfies(v(version), engines), version).toBe(false);
  });

  it('is the Node this checkout is tested on', () => {
    expect(satisfies(v(process.versions.node), engines), process.versions.node).toBe(true);
  });

  it('type-checks against the oldest admitted line, so no newer Node API slips in', () => {
    const oldestMajor = Math.min(...FIRST_ADMITTED.map((version) => v(version)[0]));
    expect(packageJson.devDependencies['@types/node']).toMatch(new RegExp(`^\\^?${oldestMajor}\\.`));
    const installed = lock.packages['node_modules/@types/node']?.version ?? '';
    expect(v(installed)[0]).toBe(oldestMajor);
  });

  it('needs no Node version a dependency refuses: every engines.node in the lock admits each line', () => {
    const refusals: string[] = [];
    let checked = 0;
    for (const [where, info] of Object.entries(lock.packages)) {
      if (where === '') continue;
      const range = z.object({ node: z.string() }).safeParse(info.engines);
      if (!range.success) continue;
      checked++;
      for (const version of [...FIRST_ADMITTED, '24.99.0'])
        if (!satisfies(v(version), range.data.node))
          refusals.push(`${where}@${info.version ?? '?'} (${range.data.node}) refuses Node ${version}`);
    }
    expect(checked).toBeGreaterThan(50);
    expect(refusals).toEqual([]);
  });
});

describe('the engines range reader', () => {
  it('reads the ranges found in the lock file as npm does', () => {
    const cases: [string, string, boolean][] = [
      ['20.19.0', '>=20.19', true],
      ['20.18.1', '>=20.18.1', true],
      ['20.18.0', '>=20.18.1', false],
      ['20.0.0', '>=20.x', true],
      ['19.9.9', '>=20.x', false],
      ['0.10.0', '>= 0.10', true],
      ['22.11.0', '^20.19.0 || >=22.12.0', false],
      ['22.12.0', '^20.19.0 || >=22.12.0', true],
      ['21.0.0', '^20.0.0 || ^22.0.0 || >=24.0.0', false],
      ['24.1.0', '^16 || ^18 || >=20', true],
      ['17.0.0', '^16 || ^18 || >=20', false],
      ['11.0.0', '^8.16.0 || ^10.6.0 || >=11.0.0', true],
      ['10.5.0', '^8.16.0 || ^10.6.0 || >=11.0.0', false],
      ['23.5.0', '^20.19.0 || ^22.13.0 || >=23.5.0', true],
      ['22.12.0', '^20.19.0 || ^22.13.0 || >=23.5.0', false],
      ['14.17.0', '~14.17', true],
      ['14.18.0', '~14.17', false],
      ['25.0.0', '<25', false],
      ['24.9.9', '<=24', true],
      ['25.0.0', '>24', true],
      ['24.5.0', '>24', false],
      ['24.5.0', '24.x', true],
      ['24.5.0', '*', true],
    ];
    for (const [version, range, expected] of cases)
      expect(satisfies(v(version), range), `${version} in ${range}`).toBe(expected);
  });
});
