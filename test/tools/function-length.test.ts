/**
 * The function-length check that `npm run lint` runs: it passes on src/ with the allow-list of
 * functions being carved, and fails on any other function or method over 200 lines, naming it.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = resolve('tools/function-length.mjs');
const made: string[] = [];

afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A folder holding `files` (paths under it); the check runs there, on its src/. */
async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-length-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

/** Statements that make a body of `lines` lines, braces included, when it opens on its own first line. */
const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  void ${i};`).join('\n');

async function check(
  dir: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [SCRIPT, 'src', ...args], { cwd: dir }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe('tools/function-length.mjs', () => {
  it('passes on src/ with the allow-list, reporting what it allows', async () => {
    const { stdout } = await run(process.execPath, [
      SCRIPT,
      'src',
      '--allow',
      'tools/function-length-allow.txt',
    ]);
    expect(stdout).toMatch(/no function over 200 lines in src/);
  });

  it('fails on a function of 201 lines, naming its file, line and name, and lets one of 200 pass', async () => {
    const dir = await tree({
      'src/fine.ts': `export function fits() {\n${body(200)}\n}\n`,
      'src/deep/er/long.ts': `// first\nexport function tooLong() {\n${body(201)}\n}\n`,
    });
    const result = await check(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('src/deep/er/long.ts:2 tooLong is 201 lines');
    expect(result.stderr).not.toContain('fits');
  });

  it('measures a class by its methods, and names a long method with its class', async () => {
    const method = (name: string, lines: number) => `  ${name}() {\n${body(lines)}\n  }`;
    const dir = await tree({
      'src/carved.ts': `export class Carved {\n${method('one', 150)}\n${method('two', 150)}\n}\n`,
      'src/uncarved.ts': `export class Uncarved {\n${method('run', 150)}\n${method('all', 201)}\n}\n`,
    });
    const result = await check(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('src/uncarved.ts:152 Uncarved.all is 201 lines');
    expect(result.stderr).not.toMatch(/Carved\b|Uncarved\.run/);
  });

  it('names a long arrow function by what it is bound to, and a long callback by its call', async () => {
    const dir = await tree({
      'src/closures.ts': [
        `export const handle = async () => {\n${body(201)}\n};`,
        `export const table = { row: () => {\n${body(202)}\n} };`,
        `[1].map((n) => {\n${body(203)}\n});`,
      ].join('\n'),
    });
    const result = await check(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('src/closures.ts:1 handle is 201 lines');
    expect(result.stderr).toContain('src/closures.ts:202 row is 202 lines');
    expect(result.stderr).toContain('src/closures.ts:404 (callback of [1].map) is 203 lines');
  });

  it('reports an allowed function without failing, and an allowed one that was carved as stale', async () => {
    const dir = await tree({
      'src/engine.ts': `export function createEngine() {\n${body(300)}\n}\n`,
      'allow.txt': '# being carved\nsrc/engine.ts createEngine\nsrc/flow.ts createApprovalFlow  # done\n',
      'src/flow.ts': `export function createApprovalFlow() {\n${body(20)}\n}\n`,
    });
    const allowed = await check(dir, '--allow', 'allow.txt');
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain('allowed while it is carved: src/engine.ts:1 createEngine is 300 lines');
    expect(allowed.stdout).toContain('src/flow.ts createApprovalFlow is no longer over 200 lines');
    const unlisted = await check(dir);
    expect(unlisted.code).toBe(1);
    expect(unlisted.stderr).toContain('src/engine.ts:1 createEngine is 300 lines');
  });
});
