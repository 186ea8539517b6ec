/** `/edge apikeys` through the engine: keys masked, paging, and a refused platform key. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonsOf, type EngineTestbed, onlyAnswer, startEngineTestbed, wordsOf } from '../support/engine.js';
import { sentTable } from '../support/sent-table.js';

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

  it('lists API keys as a table: the masked key, its id and its roles, one row a key', async () => {
    const answer = onlyAnswer(await bed.run('apikeys --per-page 20'));
    const table = sentTable(answer);
    expect(table.headers).toEqual(['Key (masked)', 'Id', 'Roles']);
    expect(table.types).toEqual(['raw_text', 'raw_text', 'raw_text']);
    expect(table.align).toEqual(['left', 'left', 'left']);
    expect(table.rows).toHaveLength(bed.sandbox.apiKeyIds.length);
    expect(table.rows.map((row) => row[1])).toEqual(bed.sandbox.apiKeyIds.map(String));
    expect(table.rows[0]).toEqual([
      `${bed.sandbox.apiKey.slice(0, 4)}…${bed.sandbox.apiKey.slice(-4)}`,
      '101',
      'User, UserApi',
    ]);
    expect(table.text).toContain('Keys are masked; the full value is never shown here.');
    expect(table.files).toEqual([]);
    expect(table.refused).toEqual([]);
  });

  it('shows 99 of a page of 150 keys, and the CSV has every row, masked too', async () => {
    const keys = Array.from({ length: 150 }, (_, i) => ({
      Id: 5000 + i,
      Key: `${String(i).padStart(4, '0')}-full-secret-value-${'k'.repeat(24)}-${i}`,
      Roles: ['UserApi'],
    }));
    bed.sandbox.faults.set('apikey.list', {
      status: 200,
      body: { Items: keys, CurrentPage: 1, TotalItems: 150, HasMoreItems: false },
      times: 1,
    });
    const answer = onlyAnswer(await bed.run('apikeys --per-page 150'));
    const table = sentTable(answer);
    expect(table.rows).toHaveLength(99);
    expect(table.text).toContain('Showing the first 99 of 150 rows; every row is in the attached CSV.');
    expect(table.files.map((f) => [f.filename, f.about])).toEqual([['api-keys-page-1.csv', 'all 150 rows']]);
    const csv = String(answer.files?.[0]?.content);
    expect(csv.trim().split('\r\n')).toHaveLength(151);
    expect(csv).toContain('0149…-149,5149,UserApi');
    for (const key of keys) expect(JSON.stringify(answer)).not.toContain(key.Key);
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
