/** `/edge shield enums` through the engine: the WAF enumerations, read once per 10 minutes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAF_ENUMS_TTL_MS } from '../../src/operations/shield/enums.js';
import { type EngineTestbed, onlyAnswer, startEngineTestbed } from '../support/engine.js';
import { sentTable } from '../support/sent-table.js';

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

  it('shows one enumeration as a table: name, value as a number, premium, recommended operator', async () => {
    const table = sentTable(onlyAnswer(await bed.run('shield enums operator')));
    expect(table.headers).toEqual(['Name', 'Value', 'Premium', 'Recommended operator', 'Recommended values']);
    expect(table.types).toEqual(['raw_text', 'raw_number', 'raw_text', 'raw_text', 'raw_text']);
    expect(table.align).toEqual(['left', 'right', 'left', 'left', 'left']);
    expect(table.rows).toHaveLength(15);
    expect(table.rows).toContainEqual(['RX', 14, 'yes', 'RX', '—']);
    expect(table.text).toContain('WAF enumeration Operator');
    expect(table.files).toEqual([]);
    expect(table.refused).toEqual([]);
    const variables = sentTable(onlyAnswer(await bed.run('shield enums Variable')));
    expect(variables.rows).toContainEqual(['REQUEST_METHOD', 14, 'no', 'WITHIN', 'POST, PUT, DELETE']);
  });

  it('shows every enumeration in one table, its values named by their enumeration', async () => {
    const reply = onlyAnswer(await bed.run('shield enums'));
    expect(reply.blocks.filter((block) => block.type === 'table')).toHaveLength(1);
    const table = sentTable(reply);
    expect(table.headers[0]).toBe('Enumeration');
    expect(new Set(table.rows.map((row) => row[0]))).toEqual(
      new Set(['Variable', 'Operator', 'Transformation', 'Action', 'Severity']),
    );
    expect(table.rows).toContainEqual(['Severity', 'Critical', 3, 'no', 'EQ', '—']);
    expect(table.text).toContain('Operator: 15 values');
  });

  it('shows 99 values of an enumeration of 130, and every value in the CSV', async () => {
    bed.clock.advance(WAF_ENUMS_TTL_MS + 1);
    const values = Array.from({ length: 130 }, (_, i) => ({
      name: `COUNTRY_${i}`,
      value: i,
      isPremium: false,
    }));
    bed.sandbox.faults.set('shield.wafEnums', {
      status: 200,
      body: { data: [{ enumName: 'Country', enumValues: values }] },
      times: 1,
    });
    const reply = onlyAnswer(await bed.run('shield enums Country'));
    const table = sentTable(reply);
    expect(table.rows).toHaveLength(99);
    expect(table.text).toContain('Showing the first 99 of 130 rows; every row is in the attached CSV.');
    expect(table.files.map((f) => [f.filename, f.about])).toEqual([['waf-enum-Country.csv', 'all 130 rows']]);
    const csv = String(reply.files?.[0]?.content).trim().split('\r\n');
    expect(csv).toHaveLength(131);
    expect(csv[130]).toBe('COUNTRY_129,129,no,—,—');
    // The next read is the platform's own enumerations again.
    bed.clock.advance(WAF_ENUMS_TTL_MS + 1);
  });

  it('suggests the command meant by a word that is not one of the group', async () => {
    expect(JSON.stringify(onlyAnswer(await bed.run('shield enum')))).toContain(
      '\\"shield enum\\" is not a command (did you mean \\"shield enums\\"?)',
    );
  });
});
