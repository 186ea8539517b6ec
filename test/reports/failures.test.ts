import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformError } from '../../src/platform/errors.js';
import { abandonReport, ReportError, type ReportFailureWords } from '../../src/reports/failures.js';
import { exists } from './support.js';

const WORDS: ReportFailureWords = {
  operation: 'logs.origin',
  unreadable: 'The origin log response could not be read',
  failed: 'Summarising the origin logs failed',
  cancelled: 'The origin log summary was cancelled.',
};

let dir = '';
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeops-failures-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function partialFile(): Promise<string> {
  const path = join(dir, `partial-${++files}.csv`);
  await writeFile(path, 'timestamp,status\n');
  return path;
}

const cancelled = () => {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
};

describe('abandoning a report', () => {
  it('removes the partial file and passes a cancelled platform call on as it is', async () => {
    const path = await partialFile();
    const aborted = new PlatformError({
      kind: 'aborted',
      operation: 'logs.origin',
      userMessage: 'cancelled',
    });
    await expect(abandonReport(aborted, path, cancelled(), WORDS)).rejects.toBe(aborted);
    expect(await exists(path)).toBe(false);
  });

  it('passes on a report already cancelled as it is', async () => {
    const path = await partialFile();
    const aborted = new ReportError('aborted', 'logs.origin', 'stopped');
    await expect(abandonReport(aborted, path, cancelled(), WORDS)).rejects.toBe(aborted);
  });

  it('says the report was cancelled when the failure came after the cancel', async () => {
    const path = await partialFile();
    const failure = new PlatformError({ kind: 'network', operation: 'logs.origin', userMessage: 'reset' });
    const error = await abandonReport(failure, path, cancelled(), WORDS).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ReportError);
    expect(error).toMatchObject({ kind: 'aborted', userMessage: WORDS.cancelled, cause: failure });
    expect(await exists(path)).toBe(false);
  });

  it('passes on a failure without a cancel as it is', async () => {
    const path = await partialFile();
    const failure = new Error('disk full');
    await expect(abandonReport(failure, path, undefined, WORDS)).rejects.toBe(failure);
  });
});
