import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonArraySplitter, JsonStreamError, JsonStringEnd } from '../../src/reports/json-entries.js';
import { JSON_PARSE_READS_ESCAPED_KEYS, writtenWithoutEscape } from '../support/json-parse-keys.js';

function splitAll(text: string, chunkSize: number, key = 'logs'): unknown[] {
  const splitter = new JsonArraySplitter(key);
  const bytes = Buffer.from(text, 'utf8');
  const out: unknown[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize)
    out.push(...splitter.push(bytes.subarray(i, i + chunkSize)));
  splitter.end();
  return out;
}

const tricky = {
  before: { logs: 'not this one', nested: [{ a: 1 }] },
  logs: [
    {
      logId: 'a',
      log: '{"RequestUrl":"/x?y={z}","Message":"brace } and ] inside"}',
      labels: { ServerZone: 'DE' },
    },
    { logId: 'b', log: 'not json at all [', note: 'quote \\" and backslash \\\\ and ünïcødé 🚀' },
    { logId: 'c', deep: { a: [{ b: { c: [1, 2, { d: '}' }] } }] } },
  ],
  after: [{ logId: 'ignored' }],
};

describe('streaming the entries of a JSON array', () => {
  it.each([1, 2, 3, 7, 64, 100_000])(
    'yields exactly what JSON.parse sees, whatever the chunk size (%i bytes)',
    (size) => {
      expect(splitAll(JSON.stringify(tricky), size)).toEqual(tricky.logs);
    },
  );

  it('finds the array after whitespace and a key split across chunks', () => {
    const text = `{ \n "logs" :\n [ ${JSON.stringify({ logId: 'x' })} , ${JSON.stringify({ logId: 'y' })} ] }`;
    expect(splitAll(text, 2)).toEqual([{ logId: 'x' }, { logId: 'y' }]);
  });

  it('returns nothing for an empty array', () => {
    expect(splitAll('{"logs":[]}', 3)).toEqual([]);
  });

  it('reports a document that was cut short', () => {
    const text = JSON.stringify(tricky);
    expect(() => splitAll(text.slice(0, text.length - 40), 16)).toThrow(JsonStreamError);
  });

  it.each([
    ['{}', false],
    ['{"logs":null}', false],
    [' { "other" : [ {"logId":"x"} ] , "logs" : null } ', false],
    ['{"logs":[]}', true],
  ])('reads %s, which the vendor allows, as no entries', (text, listed) => {
    for (const size of [1, 3, 100]) {
      const splitter = new JsonArraySplitter('logs');
      const bytes = Buffer.from(text);
      const out: unknown[] = [];
      for (let i = 0; i < bytes.length; i += size) out.push(...splitter.push(bytes.subarray(i, i + size)));
      splitter.end();
      expect(out).toEqual([]);
      expect(splitter.listed).toBe(listed);
    }
  });

  it.each([
    ['a logs value that is not a list', '{"logs":"none"}', /neither an array nor null/],
    ['a logs value that is an object', '{"logs":{"a":[]}}', /neither an array nor null/],
    ['a document that is a list', '[{"logId":"x"}]', /not a JSON object/],
    ['an empty body', '', /not a JSON object/],
  ])('reports %s', (_what, text, error) => {
    expect(() => splitAll(text, 4)).toThrow(error);
  });

  it('reports an entry that is not valid JSON', () => {
    expect(() => splitAll('{"logs":[{"a":1,,}]}', 4)).toThrow(JsonStreamError);
  });

  it('says where an entry broke without quoting it: an entry may hold a secret the platform echoed', () => {
    const body = '{"logs":[{"key":"sk_live_SECRET123","b":x}]}';
    // V8's own message quotes the text around the fault.
    expect(() => JSON.parse('{"key":"sk_live_SECRET123","b":x}')).toThrow(/T123/);
    for (const size of [3, body.length]) {
      let message = '';
      try {
        splitAll(body, size);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^an entry is not valid JSON( \(at its character \d+\))?$/);
      expect(message).not.toMatch(/SECRET|T123|sk_live/);
    }
  });

  it('refuses a bracket that closes one of the other kind, as JSON.parse does, even when their count balances', () => {
    // The first was read as an empty day: its count of brackets balances.
    for (const body of ['{"logs":[[{"a":1]}]}', '{"logs":[[1},{"a":1]]}', '{"x":[1},"logs":[]]}']) {
      expect(() => JSON.parse(body)).toThrow(SyntaxError);
      for (const size of [1, 3, body.length])
        expect(() => splitAll(body, size)).toThrow('closes one of the other kind');
    }
    // Deep nesting is still read: the kinds of open brackets are kept however deep.
    const deep = `{"logs":[{"a":${'['.repeat(2_000)}${']'.repeat(2_000)}},${'[{"k":'.repeat(600)}1${'}]'.repeat(600)}]}`;
    expect(() => JSON.parse(deep)).not.toThrow();
    expect(splitAll(deep, 7)).toEqual((JSON.parse(deep) as { logs: unknown[] }).logs.slice(0, 1));
  });
});

/** Text that looks like the boundary between two entries, or breaks out of a string if mishandled. */
const hostileText = fc.oneof(
  { weight: 3, arbitrary: fc.string() },
  { weight: 1, arbitrary: fc.string({ unit: 'binary' }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '},{',
      '},{"',
      '"},{"',
      '}',
      '{',
      ']',
      '[',
      '\\',
      '"',
      '\\"',
      ',',
      'ünï 🚀',
      '\u2028',
    ),
  },
);

/** Object keys: hostile ones too, unless this runtime's JSON.parse misreads escaped keys (support/json-parse-keys.ts). */
const keyText = JSON_PARSE_READS_ESCAPED_KEYS ? hostileText : hostileText.filter(writtenWithoutEscape);

const anyValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileText,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(keyText, tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** Log entries as the vendor sends them, and hostile ones: strings ending in `},{`, nested lists of objects. */
const entry = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        logId: hostileText,
        timestamp: fc.integer(),
        log: fc.oneof(
          hostileText,
          fc.dictionary(keyText, anyValue).map((detail) => JSON.stringify(detail)),
        ),
        labels: fc.dictionary(keyText, hostileText, { maxKeys: 3 }),
        nested: fc.array(fc.dictionary(keyText, anyValue, { maxKeys: 2 }), { maxLength: 3 }),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: anyValue },
);

/** `{"logs":[…]}` with other keys around it, written compact (as the vendor does) or indented. */
const document = fc
  .tuple(
    fc.array(entry, { maxLength: 40 }),
    fc.dictionary(
      keyText.filter((key) => key !== 'logs'),
      anyValue,
      { maxKeys: 2 },
    ),
    fc.dictionary(
      keyText.filter((key) => key !== 'logs'),
      anyValue,
      { maxKeys: 2 },
    ),
    fc.constantFrom(0, 0, 0, 2),
  )
  .map(([logs, before, after, indent]) => ({
    logs,
    text: JSON.stringify({ ...before, logs, ...after }, null, indent),
  }));

/** What JSON.parse sees: the object elements of `logs`, and how many elements are lists. */
function expected(logs: unknown[]): { entries: unknown[]; skipped: number } {
  return {
    entries: logs.filter(
      (element) => typeof element === 'object' && element !== null && !Array.isArray(element),
    ),
    skipped: logs.filter((element) => Array.isArray(element)).length,
  };
}

describe('streaming entries against JSON.parse', () => {
  it('yields exactly the entries JSON.parse finds, cut at random chunk boundaries or in one piece', () => {
    fc.assert(
      fc.property(document, fc.array(fc.nat(), { maxLength: 6 }), ({ logs, text }, cuts) => {
        const bytes = Buffer.from(text);
        const { entries, skipped } = expected(JSON.parse(text).logs as unknown[]);
        for (const points of [[], cuts.map((cut) => cut % (bytes.length + 1))]) {
          const splitter = new JsonArraySplitter('logs');
          const out: unknown[] = [];
          let from = 0;
          for (const point of [...new Set(points)].sort((a, b) => a - b).concat(bytes.length)) {
            out.push(...splitter.push(bytes.subarray(from, point)));
            from = point;
          }
          splitter.end();
          expect(out).toEqual(entries);
          expect(splitter.skipped).toBe(skipped);
          expect(splitter.listed).toBe(true);
          expect(logs).toHaveLength(entries.length + skipped + (logs.length - entries.length - skipped));
        }
      }),
      { numRuns: 1_500 },
    );
  });

  it.each([
    ['a string that ends the way an entry does', [{ logId: 'a},{' }, { logId: 'b' }, { logId: '},{"x' }]],
    [
      'lists of objects inside an entry',
      [{ nested: [{ a: 1 }, { b: 2 }] }, { logId: 'c' }, { nested: [{}, {}] }],
    ],
    [
      'entries among other values',
      [{ logId: 'd' }, [{ a: 1 }], 'x', 7, null, { logId: 'e' }, { logId: 'f' }],
    ],
  ])('reads %s as JSON.parse does', (_, logs) => {
    const text = JSON.stringify({ logs });
    const { entries, skipped } = expected(logs);
    for (const size of [text.length, 5, 17]) {
      const splitter = new JsonArraySplitter('logs');
      const bytes = Buffer.from(text);
      const out: unknown[] = [];
      for (let i = 0; i < bytes.length; i += size) out.push(...splitter.push(bytes.subarray(i, i + size)));
      splitter.end();
      expect(out).toEqual(entries);
      expect(splitter.skipped).toBe(skipped);
    }
  });
});

/** JSON text no serialiser writes: escapes of every kind, unicode raw and escaped, odd spacing. */
const rawString = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.constantFrom(
        '\\"',
        '\\\\',
        '\\/',
        '\\b\\f\\n\\r\\t',
        '\\u0041',
        '\\u00e9',
        '\\ud83d\\ude80',
        '\\ud800',
        '\\u007d,\\u007b',
        '},{\\"',
        '}\\",{\\"',
        'ünï 🚀',
        '\u2028',
      ),
    ),
    { maxLength: 4 },
  )
  .map((parts) => `"${parts.join('').replaceAll(/(?<!\\)"/g, '\\"')}"`)
  .filter((text) => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  });

/** A raw object key: any raw string, or one without an escape where JSON.parse misreads those. */
const rawKey = JSON_PARSE_READS_ESCAPED_KEYS ? rawString : rawString.filter((key) => !key.includes('\\'));

/** Numbers as JSON allows them and JSON.stringify never writes them. */
const rawNumber = fc.oneof(
  fc.constantFrom(
    '-0',
    '0.0',
    '1E3',
    '1e+3',
    '1e-7',
    '-0.5E-2',
    '1e400',
    '-1e400',
    '123456789012345678901234567890',
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.integer().map(String),
);

const space = fc.constantFrom('', '', '', ' ', '\n', '\r\n\t ');

/** A value written as raw text: objects with duplicated keys and keys in any order, nesting, odd spacing. */
const rawValue: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    rawString,
    rawNumber,
    fc.constantFrom('true', 'false', 'null'),
    fc
      .tuple(fc.array(tie('value'), { maxLength: 3 }), space)
      .map(([items, gap]) => `[${gap}${items.join(`${gap},${gap}`)}${gap}]`),
    fc
      .tuple(
        fc.array(fc.tuple(fc.oneof(rawKey, fc.constantFrom('"logs"', '"log"', '"logId"')), tie('value')), {
          maxLength: 3,
        }),
        space,
      )
      .map(
        ([members, gap]) =>
          `{${gap}${members.map(([key, value]) => `${key}${gap}:${gap}${value}`).join(`${gap},`)}${gap}}`,
      ),
  ),
})).value;

/** An origin-log entry as raw text: its fields in any order, some twice, among other keys. */
const rawEntry = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(
        fc.array(
          fc.oneof(
            rawString.map((value) => `"logId":${value}`),
            rawNumber.map((value) => `"timestamp":${value}`),
            rawString.map((value) => `"log":${value}`),
            fc
              .record({ RequestUrl: fc.string(), StatusCode: fc.integer(), Message: fc.string() })
              .map((detail) => `"log":${JSON.stringify(JSON.stringify(detail))}`),
            rawValue.map((value) => `"labels":${value}`),
            fc.tuple(rawKey, rawValue).map(([key, value]) => `${key}:${value}`),
          ),
          { maxLength: 6 },
        ),
        space,
      )
      .map(([members, gap]) => `{${gap}${members.join(`,${gap}`)}${gap}}`),
  },
  { weight: 1, arbitrary: rawValue },
);

describe('streaming hostile entries against JSON.parse', () => {
  it('yields what JSON.parse yields for escapes, unicode, duplicated keys, odd numbers and odd spacing', () => {
    fc.assert(
      fc.property(
        fc.array(rawEntry, { maxLength: 30 }),
        fc.constantFrom(',', ' , ', ',\n'),
        fc.array(fc.nat(), { maxLength: 6 }),
        (entries, comma, cuts) => {
          const text = `{"before":{"logs":[{"a":1}]},"logs":[${entries.join(comma)}],"after":[{"b":2}]}`;
          const bytes = Buffer.from(text);
          const { entries: wanted, skipped } = expected(JSON.parse(text).logs as unknown[]);
          for (const points of [[], cuts.map((cut) => cut % (bytes.length + 1))]) {
            const splitter = new JsonArraySplitter('logs');
            const out: unknown[] = [];
            let from = 0;
            for (const point of [...new Set(points)].sort((a, b) => a - b).concat(bytes.length)) {
              out.push(...splitter.push(bytes.subarray(from, point)));
              from = point;
            }
            splitter.end();
            expect(out).toEqual(wanted);
            expect(splitter.skipped).toBe(skipped);
          }
        },
      ),
      { numRuns: 1_500 },
    );
  });
});

describe("the scanner core's string end", () => {
  /** Where the string that opens `document` ends, read in the pieces `cuts` makes, as bytes or as text. */
  function endAcross(document: string, cuts: number[], read: 'bytes' | 'text'): number {
    const whole = read === 'bytes' ? Buffer.from(document) : document;
    const points = [...new Set(cuts.map((cut) => 1 + (cut % whole.length)))].sort((a, b) => a - b);
    const finder = new JsonStringEnd();
    let from = 1;
    for (const to of [...points, whole.length]) {
      if (to <= from) continue;
      const end =
        typeof whole === 'string'
          ? finder.inText(whole.slice(from, to), 0)
          : finder.inBytes(whole.subarray(from, to), 0);
      if (end >= 0) return from + end;
      from = to;
    }
    return -1;
  }

  it('finds the closing quote, past escaped quotes and backslashes, however the chunks cut them', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', '"', '\\', 'é', '🚀', '\n', 'u') }),
        fc.array(fc.nat(), { maxLength: 5 }),
        (value, cuts) => {
          const document = `${JSON.stringify(value)},"next"`;
          const quote = JSON.stringify(value).length - 1;
          expect(endAcross(document, cuts, 'text')).toBe(quote);
          expect(endAcross(document, cuts, 'bytes')).toBe(Buffer.byteLength(document.slice(0, quote)));
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
