/**
 * Whether this runtime's JSON.parse reads escaped object keys right. V8 on Node 24 and later can
 * read an escaped key (`"\""`, `"\u00e9"`) as `\` once an earlier parse in the same realm had a
 * `\` key (nodejs/node#63785, V8 issue 521080746): the product's JSON.parse and the tests' oracle
 * then disagree at random, by what ran before. The canary runs in a realm of its own, so that it
 * poisons nothing here.
 */
import { runInNewContext } from 'node:vm';

const CANARY = `
  JSON.parse('{"h":[],"\\\\\\\\":0}');
  Object.keys(JSON.parse('{"h":1,"\\\\"":2}'))[1] === '"';
`;

export const JSON_PARSE_READS_ESCAPED_KEYS: boolean = runInNewContext(CANARY) === true;

if (!JSON_PARSE_READS_ESCAPED_KEYS)
  console.warn(
    `JSON.parse of Node ${process.version} misreads escaped object keys (nodejs/node#63785): properties against JSON.parse draw keys that need no escape`,
  );

/** A key JSON writes without an escape, so the V8 bug above cannot touch it. */
export const writtenWithoutEscape = (key: string): boolean => JSON.stringify(key) === `"${key}"`;
