/**
 * The import-cycle check that `npm run lint` runs: it passes on src/ and fails on a cycle made
 * only of type imports and re-exports, so it cannot pass by reading nothing.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = 'tools/import-cycles.mjs';
const made: string[] = [];

afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-cycles-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe('tools/import-cycles.mjs', () => {
  it('finds no cycle in src/', async () => {
    const { stdout } = await run(process.execPath, [SCRIPT, 'src']);
    expect(stdout).toMatch(/no cycle among \d+ files/);
  });

  it('fails on a cycle of type-only imports and re-exports, naming its files', async () => {
    const dir = await tree({
      'a.ts': "import type { B } from './b.js';\nexport type A = { b: B };\n",
      'b.ts': "export type { A as B } from './a.js';\n",
      'c.ts': "import type { A } from './a.js';\nexport type C = A;\n",
    });
    const failure = await run(process.execPath, [SCRIPT, dir]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/import cycle: .*[ab]\.ts ↔ .*[ab]\.ts/);
    expect(failure?.stderr).not.toContain('c.ts');
  });
});
