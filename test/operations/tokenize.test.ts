import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type FlagSpecs,
  parseArgs,
  splitCommandHead,
  tokenize,
  unescapeSlackText,
} from '../../src/operations/engine/tokenize.js';

const tokensOf = (line: string) => {
  const result = tokenize(line);
  if (!result.ok) throw new Error(`expected tokens, got error: ${result.error}`);
  return result.tokens;
};

describe('tokenize', () => {
  it.each([
    ['dns example.com --page 2', ['dns', 'example.com', '--page', '2']],
    ['  spaced \t out\nlines  ', ['spaced', 'out', 'lines']],
    ['"two words" \'and more\'', ['two words', 'and more']],
    ['a"b c"d', ['ab cd']],
    ['""', ['']],
    ['#general is # not a comment', ['#general', 'is', '#', 'not', 'a', 'comment']],
    ['$HOME "$x" $\'\\x41\'', ['$HOME', '$x', '$\\x41']],
  ])('splits %j like a shell line', (line, tokens) => {
    expect(tokensOf(line)).toEqual(tokens);
  });

  it.each([
    ['“hello world” x', ['hello world', 'x']],
    ['”hello world” x', ['hello world', 'x']],
    ['‘hello world’ x', ['hello world', 'x']],
    ['“say "hi" now”', ['say "hi" now']],
    ['"say “hi” now"', ['say “hi” now']],
    ["“it's fine”", ["it's fine"]],
  ])('treats Slack curly quotes as quotes: %j', (line, tokens) => {
    expect(tokensOf(line)).toEqual(tokens);
  });

  it.each([
    ['key leaked, don’t wait', ['key', 'leaked,', 'don’t', 'wait']],
    ['the users’ keys', ['the', 'users’', 'keys']],
    ['‘don’t stop’ now', ['don’t stop', 'now']],
    ['rock’n’roll', ['rock’n’roll']],
  ])('keeps a curly apostrophe inside or after a word as text: %j', (line, tokens) => {
    expect(tokensOf(line)).toEqual(tokens);
  });

  it.each([
    ['a\\ b', ['a b']],
    ['\\"quoted\\"', ['"quoted"']],
    ['"a \\"b\\" \\\\ \\n"', ['a "b" \\ \\n']],
    ["'a\\b\\'", ['a\\b\\']],
    ['C:\\', ['C:\\']],
    // shlex on its own would unescape the second segment twice and give \x.
    ['"\\\\\\\\""x"', ['\\\\x']],
  ])('handles backslashes as a shell does: %j', (line, tokens) => {
    expect(tokensOf(line)).toEqual(tokens);
  });

  it.each([
    ['say "hello', '"'],
    ["it's", "'"],
    ['“open', '”'],
    ['‘open', '’'],
  ])('names the missing quote when one is not closed: %j', (line, quote) => {
    expect(tokenize(line)).toEqual({
      ok: false,
      error: expect.stringContaining(`a quote is not closed: add the closing ${quote} or remove it`),
    });
  });

  it('suggests double quotes when a straight apostrophe is left open', () => {
    const result = tokenize("don't");
    expect(!result.ok && result.error).toContain('"don\'t"');
  });

  it('unescapes what Slack escapes before splitting', () => {
    expect(tokensOf('a &amp;&lt;b&gt; "x &gt; y" &amp;lt;')).toEqual(['a', '&<b>', 'x > y', '&lt;']);
  });

  it('refuses control characters and names the one it found', () => {
    expect(tokenize('dns\u0000 x')).toEqual({ ok: false, error: expect.stringContaining('U+0000') });
    expect(tokenize('"\u001b[2J"')).toEqual({ ok: false, error: expect.stringContaining('U+001B') });
  });

  it('splits on the no-break spaces some Slack clients send', () => {
    expect(tokensOf('logs\u00a0123\u202ftoday')).toEqual(['logs', '123', 'today']);
  });

  it('never throws and never lets a control character through, whatever the line', () => {
    const anyText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc
        .array(fc.constantFrom('"', "'", '“', '”', '‘', '’', '\\', '$', ' ', 'a', '&amp;', '--', '='), {
          maxLength: 60,
        })
        .map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(anyText, (line) => {
        const result = tokenize(line);
        return result.ok
          ? result.tokens.every((token) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(token))
          : result.error.length > 0;
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('splitCommandHead', () => {
  it('keeps the text after the subcommand untouched apart from Slack escapes', () => {
    expect(splitCommandHead("  db  query SELECT 'a b' FROM t WHERE x &lt; 3", 2)).toEqual({
      words: ['db', 'query'],
      rest: "SELECT 'a b' FROM t WHERE x < 3",
    });
  });

  it('returns what there is when the line is shorter', () => {
    expect(splitCommandHead('db', 2)).toEqual({ words: ['db'], rest: '' });
  });
});

describe('unescapeSlackText', () => {
  it('unescapes in one pass so an escaped entity stays an entity', () => {
    expect(unescapeSlackText('&amp;amp; &lt;!channel&gt; &quot;')).toBe('&amp; <!channel> &quot;');
  });
});

const dnsFlags = {
  page: { kind: 'number' },
  'per-page': { kind: 'number' },
  lite: { kind: 'boolean' },
  filter: { kind: 'repeatable' },
  from: { kind: 'string' },
} as const satisfies FlagSpecs;

describe('parseArgs', () => {
  it('reads flags in both forms and keeps positionals in order', () => {
    const result = parseArgs(
      [
        'zone',
        '--page',
        '2',
        '--per-page=50',
        'more',
        '--lite',
        '--filter',
        'ip:eq:1.2.3.4',
        '--filter=asn:in:1,2',
      ],
      dnsFlags,
    );
    expect(result).toEqual({
      ok: true,
      flags: {
        page: 2,
        'per-page': 50,
        lite: true,
        filter: ['ip:eq:1.2.3.4', 'asn:in:1,2'],
        from: undefined,
      },
      positionals: ['zone', 'more'],
    });
  });

  it('gives booleans false and repeatable flags an empty list when absent', () => {
    const result = parseArgs([], dnsFlags);
    expect(result.ok && result.flags).toEqual({
      page: undefined,
      'per-page': undefined,
      lite: false,
      filter: [],
      from: undefined,
    });
  });

  it('types the flags from the spec', () => {
    const result = parseArgs(['--page', '3'], dnsFlags);
    if (!result.ok) throw new Error(result.error);
    const page: number | undefined = result.flags.page;
    const lite: boolean = result.flags.lite;
    const filters: string[] = result.flags.filter;
    expect([page, lite, filters]).toEqual([3, false, []]);
  });

  it('accepts a value that starts with a single dash, such as a relative time', () => {
    const result = parseArgs(['--from', '-3h', '--page', '-1'], dnsFlags);
    expect(result.ok && result.flags.from).toBe('-3h');
    expect(result.ok && result.flags.page).toBe(-1);
  });

  it('treats everything after -- as positionals', () => {
    const result = parseArgs(['--lite', '--', '--page', '2'], dnsFlags);
    expect(result).toMatchObject({ ok: true, positionals: ['--page', '2'] });
  });

  it('names an unknown flag and lists the known ones', () => {
    expect(parseArgs(['--pge', '2'], dnsFlags)).toEqual({
      ok: false,
      error:
        'unknown flag --pge (did you mean --page?) (known flags: --page, --per-page, --lite, --filter, --from)',
    });
    expect(parseArgs(['--x'], {})).toEqual({
      ok: false,
      error: 'unknown flag --x (this command takes no flags)',
    });
  });

  it.each(['--constructor', '--__proto__', '--toString', '--hasOwnProperty'])(
    'does not mistake %s for a flag',
    (flag) => {
      expect(parseArgs([flag, 'x'], dnsFlags)).toMatchObject({
        ok: false,
        error: expect.stringContaining('unknown flag'),
      });
    },
  );

  it('refuses a flag without its value', () => {
    expect(parseArgs(['--page'], dnsFlags)).toEqual({
      ok: false,
      error: expect.stringContaining('--page needs a value'),
    });
    expect(parseArgs(['--from', '--lite'], dnsFlags)).toEqual({
      ok: false,
      error: expect.stringContaining('write --from=VALUE'),
    });
  });

  it('refuses a value for a boolean flag', () => {
    expect(parseArgs(['--lite=yes'], dnsFlags)).toEqual({ ok: false, error: '--lite takes no value' });
  });

  it('refuses a flag given twice unless it is repeatable', () => {
    expect(parseArgs(['--page', '1', '--page=2'], dnsFlags)).toEqual({
      ok: false,
      error: '--page is given more than once',
    });
    expect(parseArgs(['--lite', '--lite'], dnsFlags).ok).toBe(false);
  });

  it.each(['abc', '', '1e3', '0x10', 'Infinity', '1,5', '99999999999999999999'])(
    'refuses %j as a number',
    (value) => {
      expect(parseArgs(['--page', value], dnsFlags)).toEqual({
        ok: false,
        error: expect.stringContaining('--page needs a number'),
      });
    },
  );

  it('survives any tokens without throwing', () => {
    const token = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom('--page', '--per-page', '--lite', '--filter', '--from', '--', '--=', '--page=', '-1'),
      fc.string({ maxLength: 10 }).map((name) => `--${name}`),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 50 }), (tokens) => {
        const result = parseArgs(tokens, dnsFlags);
        if (!result.ok) expect(result.error.length).toBeLessThan(200);
      }),
      { numRuns: 2_000 },
    );
  });

  it.each([
    ['—lite', 'an em dash'],
    ['–lite', 'an en dash'],
    ['-lite', 'a single hyphen'],
    ['--LITE', 'capitals'],
  ])('reads %s (%s) as --lite', (word) => {
    expect(parseArgs(['example.com', word], dnsFlags)).toEqual(
      parseArgs(['example.com', '--lite'], dnsFlags),
    );
  });

  it('reads dashed flags with values, in both forms', () => {
    const expected = parseArgs(['--page', '2', '--from=-3h'], dnsFlags);
    expect(parseArgs(['—page', '2', '–from=-3h'], dnsFlags)).toEqual(expected);
    expect(parseArgs(['-page', '2', '-from', '-3h'], dnsFlags)).toEqual(expected);
  });

  it('suggests the flag a typo was meant to be, dashed or not', () => {
    for (const typo of ['--pgae', '—pgae', '-pgae'])
      expect(parseArgs([typo, '2'], dnsFlags)).toMatchObject({
        ok: false,
        error: expect.stringContaining('unknown flag --pgae (did you mean --page?)'),
      });
  });

  it('leaves dashed words that are no flag of the command as typed', () => {
    expect(parseArgs(['-3h', '—rotated', '-5', '-', '—'], dnsFlags)).toMatchObject({
      ok: true,
      positionals: ['-3h', '—rotated', '-5', '-', '—'],
    });
    expect(parseArgs(['—lite'], {})).toMatchObject({ ok: true, positionals: ['—lite'] });
  });

  it('reads an alias as its flag, and counts both as one', () => {
    const spec = { last: { kind: 'string', aliases: ['since'] } } as const satisfies FlagSpecs;
    expect(parseArgs(['--since', '2h'], spec)).toEqual(parseArgs(['--last', '2h'], spec));
    expect(parseArgs(['—since', '2h'], spec)).toEqual(parseArgs(['--last', '2h'], spec));
    expect(parseArgs(['--since', '2h', '--last', '1h'], spec)).toEqual({
      ok: false,
      error: '--last is given more than once',
    });
  });

  it('any flag typed with an em dash, an en dash or one hyphen parses as with two; text stays as typed', () => {
    const flagNames = Object.keys(dnsFlags) as (keyof typeof dnsFlags)[];
    const value = fc.oneof(fc.constantFrom('2', '-3h', '5'), fc.stringMatching(/^[a-z0-9.]{1,8}$/));
    const part = fc.oneof(
      fc.tuple(fc.constantFrom(...flagNames), value).map(([name, v]) => ({ name, v })),
      fc.stringMatching(/^[a-z0-9.—–' ]{1,10}$/).map((text) => ({ text })),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 8 }), fc.constantFrom('—', '–', '-'), (parts, dash) => {
        const words = (prefix: string) =>
          parts.flatMap((p) =>
            'text' in p
              ? [p.text]
              : dnsFlags[p.name].kind === 'boolean'
                ? [`${prefix}${p.name}`]
                : [`${prefix}${p.name}`, p.v],
          );
        // Positional text that itself looks like a flag of the command is not "text as typed".
        fc.pre(parts.every((p) => !('text' in p) || !/^[—–-]/.test(p.text)));
        expect(parseArgs(words(dash), dnsFlags)).toEqual(parseArgs(words('--'), dnsFlags));
      }),
      { numRuns: 1_000 },
    );
  });

  it('survives whole garbage lines through tokenize and parseArgs, long ones included', () => {
    const line = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.string({ unit: 'binary', minLength: 3_900, maxLength: 4_000 }),
      fc
        .array(fc.constantFrom('--page', '--filter', '--lite', 'x', '"', '“', '’', ' ', '\\', '\u0000'), {
          maxLength: 400,
        })
        .map((parts) => parts.join(' ')),
    );
    fc.assert(
      fc.property(line, (text) => {
        const tokens = tokenize(text);
        if (tokens.ok) parseArgs(tokens.tokens, dnsFlags);
      }),
      { numRuns: 500 },
    );
  });
});
