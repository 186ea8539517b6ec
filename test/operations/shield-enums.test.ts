/** `/edge shield enums` through the engine: the WAF enumerations, read once per 10 minutes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineTestbed, onlyAnswer, startEngineTestbed } from '../support/engine.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
});

describe('/edge shield enums', () => {
  it('caches the WAF enums for 10 minutes', async () => {
    const before = bed.sandbox.requests.count('shield.wafEnums');
    onlyAnswer(await bed.run('shield enums'));
    onlyAnswer(await bed.run('shield enums Operator'));
    expect(bed.sandbox.requests.count('shield.wafEnums') - before).toBeLessThanOrEqual(1);
  });

  it('suggests the command meant by a word that is not one of the group', async () => {
    expect(JSON.stringify(onlyAnswer(await bed.run('shield enum')))).toContain(
      '\\"shield enum\\" is not a command (did you mean \\"shield enums\\"?)',
    );
  });
});
