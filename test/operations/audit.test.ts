/** `/edge audit` through the engine: every command leaves a row, and the hash chain verifies. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineTestbed, onlyAnswer, startEngineTestbed } from '../support/engine.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
});

describe('/edge audit', () => {
  it('writes an audit row for each command and the chain verifies', async () => {
    onlyAnswer(await bed.run('dns'));
    bed.sandbox.faults.set('dnszone.list', { status: 503, times: 3 });
    onlyAnswer(await bed.run('dns'));
    const answer = onlyAnswer(await bed.run('audit --limit 5 --verify'));
    expect(JSON.stringify(answer.blocks)).toContain('The hash chain verifies');
    const rows = await bed.runtime.services.audit.list({ limit: 100 });
    expect(rows.some((row) => row.operation === 'dns.list' && row.outcome === 'succeeded')).toBe(true);
    expect(rows.some((row) => row.operation === 'dns.list' && row.outcome === 'failed')).toBe(true);
  });
});
