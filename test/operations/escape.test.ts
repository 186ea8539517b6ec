import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeBlock, escapeMrkdwn, inlineCode, truncate } from '../../src/reply/escape.js';
import { sectionsByLine, textSections } from '../../src/reply/fit.js';

// A high surrogate without its low half, or a low one without its high half.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

// Anything Slack would turn into a mention or a link starts with `<`; a bare `@channel` is parsed too.
const PINGS_OR_LINKS = /<[!@#]|<https?:|@(channel|here|everyone)\b/i;

describe('escapeMrkdwn', () => {
  it.each([
    ['<!channel>', '&lt;!channel&gt;'],
    ['<!here>', '&lt;!here&gt;'],
    ['<@U123>', '&lt;@U123&gt;'],
    ['<https://x|y>', '&lt;https://x|y&gt;'],
    ['<!subteam^S0ONCALL>', '&lt;!subteam^S0ONCALL&gt;'],
    ['&amp;', '&amp;amp;'],
  ])('shows %s as literal text', (input, expected) => {
    const escaped = escapeMrkdwn(input);
    expect(escaped).toBe(expected);
    expect(escaped).not.toMatch(PINGS_OR_LINKS);
  });

  it('keeps bare broadcast words from notifying anyone', () => {
    const escaped = escapeMrkdwn('ping @channel and @here and @Everyone');
    expect(escaped).not.toMatch(PINGS_OR_LINKS);
    // Only an invisible character is added, so the words still read the same.
    expect(escaped.replaceAll('\u2060', '')).toBe('ping @channel and @here and @Everyone');
  });

  it('leaves ordinary text untouched', () => {
    expect(escapeMrkdwn('502 Bad Gateway from origin a.example (dns_lookup)')).toBe(
      '502 Bad Gateway from origin a.example (dns_lookup)',
    );
  });

  it('never lets a control character through, whatever the input', () => {
    fc.assert(
      fc.property(fc.string(), (input) => {
        const escaped = escapeMrkdwn(input);
        expect(escaped).not.toMatch(/[<>]/);
        // Every & starts one of the three entities, so Slack cannot read a new one out of the text.
        expect(escaped.replace(/&(amp|lt|gt);/g, '')).not.toContain('&');
      }),
    );
  });
});

describe('codeBlock', () => {
  it('keeps a value containing ``` inside the block', () => {
    const block = codeBlock('SELECT 1; ```\n<!channel> escaped?``` ````');
    expect(block.startsWith('```\n')).toBe(true);
    expect(block.endsWith('\n```')).toBe(true);
    const inner = block.slice(4, -4);
    expect(inner).not.toContain('``');
    expect(inner).toContain('&lt;!channel&gt;');
  });

  it('never contains a fence except its own, for any input', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('`', 'a', '\n', '<', '&') }), (input) => {
        const block = codeBlock(input);
        expect(block.split('```')).toHaveLength(3);
      }),
    );
  });

  it('fits the limit it is given, fences included', () => {
    const block = codeBlock('x'.repeat(5000), 3000);
    expect(block.length).toBeLessThanOrEqual(3000);
    expect(block.endsWith('…\n```')).toBe(true);
  });

  it('shows an empty value as an empty block rather than stray backticks', () => {
    expect(codeBlock('')).toBe('```\n \n```');
  });
});

describe('inlineCode', () => {
  it('cannot be closed early by a backtick or broken by a newline', () => {
    const code = inlineCode('a`b\nc<@U1>');
    expect(code).toBe('`aˋb c&lt;@U1&gt;`');
    expect(code.slice(1, -1)).not.toContain('`');
  });
});

describe('truncate', () => {
  it('returns short text unchanged', () => {
    expect(truncate('abc', 3)).toBe('abc');
  });

  it('cuts to the limit with the suffix included', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abcdef', 4, '...')).toBe('a...');
  });

  it('never splits a surrogate pair', () => {
    // '😀' is two UTF-16 code units; cutting after 3 units would keep half of the second one.
    const cut = truncate('a😀😀😀', 4);
    expect(cut).toBe('a😀…');
    expect(cut).not.toMatch(LONE_SURROGATE);
  });

  it('never splits an escaped entity', () => {
    expect(truncate(escapeMrkdwn('ab<cd'), 5)).toBe('ab…');
  });

  it('keeps every result within the limit and well formed', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: 0, max: 40 }), (input, max) => {
        const cut = truncate(input, max);
        expect(cut.length).toBeLessThanOrEqual(Math.max(max, 0));
        expect(cut).not.toMatch(LONE_SURROGATE);
        if (input.length <= max) expect(cut).toBe(input);
      }),
    );
  });
});

describe('text sections', () => {
  it('the one-section shortcut gives what the line-by-line split gives', () => {
    const line = fc.oneof(fc.constantFrom('', ' ', '  ', '\t', '*bold*', 'a line of text'), fc.string());
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.nat({ max: 3_100 }), (lines, pad) => {
        const text = [...lines, 'x'.repeat(pad)].join('\n');
        const fast = { value: false };
        const slow = { value: false };
        expect(textSections(text, fast)).toEqual(sectionsByLine(text, slow));
        expect(fast.value).toBe(slow.value);
      }),
      { numRuns: 500 },
    );
  });
});
