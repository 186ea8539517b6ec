/** What the report tests share: bodies cut into small pieces, a worker pool and a scratch folder. */
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { CsvFormulaGuard } from '../../src/reports/csv/guard.js';
import { createReportPool, type ReportPool } from '../../src/reports/pool.js';

/** Bytes in small pieces, so entries, cells and strings are cut across chunks. */
export async function* inPieces(bytes: Buffer, pieceBytes: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += pieceBytes) yield bytes.subarray(i, i + pieceBytes);
}

/** What the guard writes for `body` pushed in pieces cut at `cuts` (taken modulo its length + 1), then ended. */
export function throughGuard(guard: CsvFormulaGuard, body: Buffer, cuts: readonly number[]): Buffer {
  const points = [...new Set(cuts.map((cut) => cut % (body.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const point of [...points, body.length]) {
    out.push(Buffer.from(guard.push(body.subarray(from, point))));
    from = point;
  }
  out.push(Buffer.from(guard.end()));
  return Buffer.concat(out);
}

export const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** A one-thread report pool and a scratch folder for this test file, both removed afterwards. */
export function useReportScratch(prefix: string): { pool: () => ReportPool; csvPath: () => string } {
  let pool: ReportPool | undefined;
  let dir = '';
  let files = 0;
  beforeAll(async () => {
    pool = createReportPool({ maxThreads: 1 });
    dir = await mkdtemp(join(tmpdir(), `edgeops-${prefix}-`));
  });
  afterAll(async () => {
    await pool?.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { pool: () => pool!, csvPath: () => join(dir, `${prefix}-${++files}.csv`) };
}
