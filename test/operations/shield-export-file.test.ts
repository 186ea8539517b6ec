/**
 * Where the Shield export's CSV waits for its upload: a file that cannot be made is said so,
 * and the platform's answer is not left open behind it.
 */
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { readShieldExport } from '../../src/operations/shield/export.js';
import type { ExportRequest } from '../../src/platform/schemas.js';
import type { ReportPool } from '../../src/reports/pool.js';
import { SecretRegistry } from '../../src/secrets/registry.js';

const folder = process.env.TMPDIR;
afterEach(() => {
  if (folder === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = folder;
});

/** Two hours of Shield events, as the command asks for them. */
const request: ExportRequest = { from: Date.UTC(2026, 10, 21, 12), to: Date.UTC(2026, 10, 21, 14) };

describe('the Shield export’s file', () => {
  it('stops reading the platform’s answer when its file cannot be made', async () => {
    const body = new Readable({ read() {} });
    body.push('timestamp,action\r\n');
    const closed = new Promise((resolve) => body.once('close', resolve));
    // A temporary folder that is not there.
    process.env.TMPDIR = '/nonexistent/edgeops-tmp';
    const reading = readShieldExport(
      {
        platform: { exportShieldEventLogs: async () => ({ body, contentType: 'text/csv' }) },
        reports: {} as ReportPool,
        secrets: new SecretRegistry(),
      },
      42,
      request,
      { signal: new AbortController().signal, status: () => undefined },
    );
    await expect(reading).rejects.toMatchObject({ code: 'ENOENT' });
    await closed;
    expect(body.destroyed).toBe(true);
  });
});
