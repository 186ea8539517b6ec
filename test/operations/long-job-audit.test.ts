/**
 * A long job cancelled before it finished is recorded as cancelled, never as having run: in the
 * audit log, and on the approval that ran it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answered, type EngineTestbed, startEngineTestbed } from '../support/engine.js';

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await startEngineTestbed();
});
afterAll(async () => {
  await bed?.close();
});

describe('a cancelled long job', () => {
  it('is audited as cancelled, not as succeeded', async () => {
    // The day's download never answers: only a cancel ends the job.
    bed.sandbox.faults.set('logs.origin', { delayMs: 600_000 });
    try {
      const asked = bed.run('logs 308006 today');
      await expect.poll(() => bed.runtime.services.jobs.running().length).toBe(1);
      const [job] = bed.runtime.services.jobs.running();
      await bed.click({ actionId: 'logs:cancel', value: job!.id });
      await asked;
      const rows = await bed.runtime.services.audit.list({ limit: 20, filter: { operation: 'logs.origin' } });
      const outcomes = rows
        .filter((row) => (row.params as { action?: string } | null)?.action === undefined)
        .map((row) => row.outcome);
      expect(outcomes).toContain('cancelled');
      expect(outcomes).not.toContain('succeeded');
    } finally {
      bed.sandbox.faults.clear();
    }
  });

  it('is audited as cancelled for one who joined it too, and they are told so', async () => {
    bed.sandbox.faults.set('logs.origin', { delayMs: 600_000 });
    try {
      const first = bed.run('logs 308006 today', { userId: 'U0FIRST' });
      await expect.poll(() => bed.runtime.services.jobs.running().length).toBe(1);
      const joined = bed.run('logs 308006 today', { userId: 'U0JOINER' });
      await expect.poll(() => bed.logs.some((line) => line.includes('joined the same request'))).toBe(true);
      const [job] = bed.runtime.services.jobs.running();
      await bed.click({ actionId: 'logs:cancel', value: job!.id }, { userId: 'U0FIRST' });
      await first;
      expect(answered(await joined)).toContain('cancelled the download');
      const rows = await bed.runtime.services.audit.list({ limit: 20, filter: { operation: 'logs.origin' } });
      const joiner = rows
        .filter((row) => row.userId === 'U0JOINER' && row.outcome !== 'started')
        .map((row) => row.outcome);
      expect(joiner).toEqual(['cancelled']);
    } finally {
      bed.sandbox.faults.clear();
    }
  });
});
