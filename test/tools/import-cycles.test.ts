/**
 * The import-cycle check that `npm run lint` runs: it passes on src/ and fails on a cycle made
 * only of type imports and re-exports, so it cannot pass by reading nothing; and it fails on an
 * import that breaks a layer rule, at any folder depth.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

/** The check's exit code and what it printed on `dir`. */
async function check(dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [SCRIPT, dir]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

const exported = 'export const value = 1;\n';
const importing = (from: string) => `import { value } from '${from}';\nexport const copy = value;\n`;

describe('tools/import-cycles.mjs', () => {
  it('finds no cycle in src/, and every layer rule holds there', async () => {
    const { stdout } = await run(process.execPath, [SCRIPT, 'src']);
    expect(stdout).toMatch(/no cycle among \d+ files/);
    expect(stdout).toMatch(/\d+ layer rules hold/);
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

  it.each([
    ['reports/', 'reports/failures.ts', '../platform/errors.js'],
    ['state/', 'state/audit-redaction.ts', '../platform/schemas.js'],
    ['sandbox/', 'sandbox/routes/deep/er/hrana.ts', '../../../../platform/schemas.js'],
  ])(
    'fails on %s importing platform/, at any depth, naming both files and the rule',
    async (folder, file, from) => {
      const dir = await tree({
        'platform/schemas.ts': exported,
        'platform/errors.ts': exported,
        [file]: importing(from),
      });
      const { code, stderr } = await check(dir);
      expect(code).toBe(1);
      expect(stderr).toMatch(
        new RegExp(
          `layer rule: .*${file} imports .*platform/\\w+\\.ts, and ${folder} never imports platform/`,
        ),
      );
    },
  );

  it('fails on a type-only import that crosses a layer', async () => {
    const dir = await tree({
      'reply/words.ts': 'export type Words = string;\n',
      'approvals/machine.ts':
        "import type { Words } from '../reply/words.js';\nexport type Reason = Words;\n",
    });
    const { code, stderr } = await check(dir);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /approvals\/machine\.ts imports .*reply\/words\.ts, and approvals\/ never imports reply\//,
    );
  });

  it('lets main.ts alone import an adapter, and keeps the floor and the domain below operations/', async () => {
    const dir = await tree({
      'slack/app.ts': exported,
      'console/run.ts': exported,
      'operations/engine/engine.ts': exported,
      'platform/http.ts': exported,
      'main.ts': `${importing('./slack/app.js')}export { value as run } from './console/run.js';\n`,
      'runtime/runtime.ts': importing('../slack/app.js'),
      'database/rows.ts': importing('../operations/engine/engine.js'),
      'telemetry/metrics.ts': importing('../platform/http.js'),
    });
    const { code, stderr } = await check(dir);
    expect(code).toBe(1);
    expect(stderr).not.toContain('main.ts imports');
    expect(stderr).toMatch(
      /runtime\/runtime\.ts imports .*slack\/app\.ts, and runtime\/ never imports slack\//,
    );
    expect(stderr).toMatch(
      /database\/rows\.ts imports .*engine\.ts, and database\/ never imports operations\//,
    );
    expect(stderr).toMatch(
      /telemetry\/metrics\.ts imports .*http\.ts, and telemetry\/ never imports platform\//,
    );
  });

  it('passes a tree whose imports all point down', async () => {
    const dir = await tree({
      'platform/http.ts': exported,
      'operations/logs/logs.ts': importing('../../platform/http.js'),
      'slack/app.ts': importing('../operations/logs/logs.js'),
      'main.ts': importing('./slack/app.js'),
    });
    const { code, stdout } = await check(dir);
    expect(code).toBe(0);
    expect(stdout).toMatch(/layer rules hold/);
  });
});
