import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
  it('carry the id of the process that wrote them, and are this user’s alone from the start', () => {
    const path = temporaryCsvPath();
    try {
      expect(basename(path)).toMatch(new RegExp(`^edgeops-${process.pid}-[0-9a-f]{16}\\.csv$`));
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(path).size).toBe(0);
      // Its writers open it again: it stays private.
      writeFileSync(path, 'a,b\r\n');
      expect(statSync(path).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(path, { force: true });
    }
  });

  it('left by a dead process, or an earlier one with this id, are removed at start-up; those of live processes stay', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-sweep-'));
    dirs.push(dir);
    const dead = join(dir, `edgeops-${deadPid()}-0123456789abcdef.csv`);
    const made = temporaryCsvPath();
    rmSync(made);
    const mine = join(dir, basename(made));
    // An earlier process given this one's id again (a restarted container): its name lacks our mark.
    const hex = /-([0-9a-f]{16})\.csv$/.exec(mine)![1]!;
    const flipped = (Number.parseInt(hex[0]!, 16) ^ 1).toString(16);
    const earlier = join(dir, `edgeops-${process.pid}-${flipped}${hex.slice(1)}.csv`);
    const parent = join(dir, `edgeops-${process.ppid}-0123456789abcdef.csv`);
    const other = join(dir, 'edgeops-notes.csv');
    for (const path of [dead, mine, earlier, parent, other]) writeFileSync(path, 'a,b\r\n');
    expect(await sweepTemporaryFiles(dir)).toBe(2);
    for (const path of [dead, earlier]) expect(existsSync(path)).toBe(false);
    for (const path of [mine, parent, other]) expect(existsSync(path)).toBe(true);
  });
});
