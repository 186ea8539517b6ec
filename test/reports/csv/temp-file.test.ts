import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sweepTemporaryFiles, temporaryCsvPath } from '../../../src/reports/csv/temp-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The id of a process that has run and ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('temporary CSV files', () => {
  it('carry the id of the process that wrote them', () => {
    expect(basename(temporaryCsvPath())).toMatch(new RegExp(`^edgeops-${process.pid}-[0-9a-f]{16}\\.csv$`));
  });

  it('left by a dead process are removed at start-up; those of live processes stay', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-sweep-'));
    dirs.push(dir);
    const dead = join(dir, `edgeops-${deadPid()}-0123456789abcdef.csv`);
    const mine = join(dir, `edgeops-${process.pid}-0123456789abcdef.csv`);
    const parent = join(dir, `edgeops-${process.ppid}-0123456789abcdef.csv`);
    const other = join(dir, 'edgeops-notes.csv');
    for (const path of [dead, mine, parent, other]) writeFileSync(path, 'a,b\r\n');
    expect(await sweepTemporaryFiles(dir)).toBe(1);
    expect(existsSync(dead)).toBe(false);
    for (const path of [mine, parent, other]) expect(existsSync(path)).toBe(true);
  });
});
