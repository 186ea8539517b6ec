/**
 * The command-line parser under generated input: whatever a person (or a phone keyboard, or a
 * paste from a terminal) sends, `tokenize` and `parseArgs` answer with words or a short error,
 * and never throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FlagSpecs, parseArgs, tokenize } from '../../src/operations/engine/tokenize.js';
import { operations } from '../../src/operations/registry.js';

/** Generated lines per run; 100,000 fits in about 10 s on the 2-core CI machine. */
const RUNS = 100_000;
const LONG_LINE = 4_000;

// C0 controls (tab and line breaks included), DEL, C1 controls: what tokenize refuses or keeps.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** Every distinct flag spec of the registry's operations, plus no flags at all. */
const SPECS: FlagSpecs[] = [
  ...new Map(operations.map((op) => [JSON.stringify(op.flags), op.flags as FlagSpecs])).values(),
];
const FLAG_NAMES = [...new Set(SPECS.flatMap((spec) => Object.keys(spec)))];

const QUOTES = ['"', "'", '“', '”', '‘', '’', '\\', '\\"', "\\'", '""', "''", '“”', '‘’'];
const ENTITIES = ['&amp;', '&lt;', '&gt;', '&amp;lt;', '&amp;amp;', '&', '<!channel>', '<@U123>', '&#39;'];
const SPACES = [' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\u2028', '\u3000'];
const ODD = [
  '$',
  '$HOME',
  "$'\\x41'",
  '#',
  '`',
  '|',
  ';',
  '*',
  '\ud83d',
  '\udc00',
  '😀',
  'é',
  'e\u0301',
  '\u200b',
];
const CONTROLS = ['\u0000', '\u0001', '\u0007', '\u001b', '\u007f', '\u0085', '\u009f', '\u000b', '\u000c'];

const flagToken = fc.oneof(
  fc.constantFrom(...FLAG_NAMES).map((name) => `--${name}`),
  fc.constantFrom(...FLAG_NAMES).map((name) => `--${name}=`),
  fc
    .tuple(fc.constantFrom(...FLAG_NAMES), fc.string({ maxLength: 8 }))
    .map(([name, value]) => `--${name}=${value}`),
  fc.constantFrom('--', '---', '--=', '--x=', '--x', '-x', '--constructor', '--__proto__', '--toString'),
  fc.string({ minLength: 1, maxLength: 10 }).map((name) => `--${name}`),
);

const numberToken = fc.oneof(
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('1e999', '-0', '0x10', '9007199254740993', '-3h', '+5', '.5', '5.', 'NaN', 'Infinity'),
);

const fragment = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 3, arbitrary: flagToken },
  { weight: 2, arbitrary: numberToken },
  { weight: 3, arbitrary: fc.constantFrom(...QUOTES) },
  { weight: 2, arbitrary: fc.constantFrom(...ENTITIES) },
  { weight: 4, arbitrary: fc.constantFrom(...SPACES) },
  { weight: 1, arbitrary: fc.constantFrom(...ODD) },
  { weight: 1, arbitrary: fc.constantFrom(...CONTROLS) },
);

/** Mostly chat-sized lines; one in fifty is a 4,000-character paste. */
const line = fc.oneof(
  { weight: 49, arbitrary: fc.array(fragment, { maxLength: 24 }).map((parts) => parts.join('')) },
  {
    weight: 1,
    arbitrary: fc
      .array(fragment, { minLength: 1, maxLength: 24 })
      .map((parts) => parts.join(' ') || 'x')
      .map((text) => text.repeat(Math.ceil(LONG_LINE / text.length)).slice(0, LONG_LINE)),
  },
);

/** Checks one parse against its spec: the right kinds, or a short error that does not echo the line. */
function checkParsed(tokens: string[], spec: FlagSpecs): boolean {
  const parsed = parseArgs(tokens, spec);
  if (!parsed.ok) {
    expect(parsed.error.length).toBeGreaterThan(0);
    expect(parsed.error.length).toBeLessThan(300);
    return false;
  }
  for (const [name, flag] of Object.entries(spec)) {
    const value = parsed.flags[name];
    if (flag.kind === 'boolean') expect(typeof value).toBe('boolean');
    else if (flag.kind === 'repeatable') expect(Array.isArray(value)).toBe(true);
    else if (flag.kind === 'number')
      expect(value === undefined || (typeof value === 'number' && Number.isFinite(value))).toBe(true);
    else expect(value === undefined || typeof value === 'string').toBe(true);
  }
  expect(parsed.positionals.every((word) => typeof word === 'string')).toBe(true);
  return true;
}

describe('the command-line parser under generated input', () => {
  it('never throws: every line becomes words or a short error, and every word list parses or is refused', () => {
    expect(SPECS.length).toBeGreaterThan(3);
    const seen = { refusedLine: 0, refusedFlags: 0, parsed: 0 };
    fc.assert(
      fc.property(line, fc.nat(SPECS.length - 1), (text, which) => {
        const result = tokenize(text);
        if (!result.ok) {
          expect(result.error.length).toBeGreaterThan(0);
          expect(result.error.length).toBeLessThan(300);
          seen.refusedLine++;
          return;
        }
        // A refused control character never reaches a word.
        for (const token of result.tokens) expect(CONTROL.test(token)).toBe(false);
        if (checkParsed(result.tokens, SPECS[which]!)) seen.parsed++;
        else seen.refusedFlags++;
      }),
      { numRuns: RUNS },
    );
    // The generator reaches every outcome often, so no branch goes untested by accident.
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(RUNS / 20);
  }, 60_000);

  it('reads a 4,000-character line of every quote style without throwing', () => {
    const styles = ['"a b" ', "'a b' ", '“a b” ', '‘a b’ ', 'don’t ', '\\" ', '&amp;&lt;&gt; ', '--x= '];
    for (const style of styles) {
      const text = style.repeat(Math.ceil(LONG_LINE / style.length)).slice(0, LONG_LINE);
      const result = tokenize(text);
      if (result.ok) for (const spec of SPECS) checkParsed(result.tokens, spec);
      else expect(result.error).toMatch(/quote|control/);
    }
  });
});
