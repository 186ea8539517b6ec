/** `/edge apikeys` through the engine: keys masked, paging, and a refused platform key. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonsOf, type EngineTestbed, onlyAnswer, startEngineTestbed, wordsOf } from '../support/engine.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
});

describe('/edge apikeys', () => {
  it('lists API keys masked, never in full, to the requester alone', async () => {
    const answer = onlyAnswer(await bed.run('apikeys --per-page 5'));
    const text = JSON.stringify(answer);
    expect(text).toContain(`${bed.sandbox.apiKey.slice(0, 4)}…${bed.sandbox.apiKey.slice(-4)}`);
    expect(text).not.toContain(bed.sandbox.apiKey);
    expect(answer.visibility).toBe('ephemeral');
  });

  it('pages API keys with Next and Previous buttons that replace the message they are on', async () => {
    const first = onlyAnswer(await bed.run('apikeys --per-page 5'));
    const next = buttonsOf(first).find((b) => b.actionId === 'apikeys:page');
    expect(next?.value).toBe(JSON.stringify({ page: 2, perPage: 5 }));
    const second = onlyAnswer(await bed.click(next!));
    expect(second.replaceOriginal).toBe(true);
    expect(JSON.stringify(second.blocks)).toContain('Page 2 of');
    expect(buttonsOf(second).map((b) => b.value)).toContain(JSON.stringify({ page: 1, perPage: 5 }));
  });

  it('points at PLATFORM_API_KEY when the platform refuses the key', async () => {
    bed.sandbox.faults.set('apikey.list', { status: 401, times: 1 });
    expect(onlyAnswer(await bed.run('apikeys')).text).toContain('PLATFORM_API_KEY');
  });

  it('/edge apikey works like /edge apikeys', async () => {
    const before = bed.sandbox.requests.count('apikey.list');
    expect(wordsOf(onlyAnswer(await bed.run('apikey')))).toContain('API keys');
    expect(bed.sandbox.requests.count('apikey.list')).toBe(before + 1);
  });
});
