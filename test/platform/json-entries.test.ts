import { describe, expect, it } from 'vitest';
import { JsonArraySplitter, JsonStreamError } from '../../src/platform/json-entries.js';

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
});
