/**
 * The function-length check that `npm run lint` runs: it passes on src/, and fails on any
 * function or method over 200 lines, or over 150 with no comment saying why it is one piece,
 * naming it.
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
  it('passes on src/', async () => {
    const { stdout } = await run(process.execPath, [SCRIPT, 'src']);
    expect(stdout).toMatch(/no function over 200 lines, nor over 150 unexplained, in src/);
  });

  it('fails on a function of 201 lines, naming its file, line and name, and lets one of 200 pass', async () => {
    const dir = await tree({
      'src/fine.ts': `// One piece: a test of the limit.\nexport function fits() {\n${body(200)}\n}\n`,
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

  it('fails on a function over 150 lines unless a comment before it says why it is one piece', async () => {
    const dir = await tree({
      'src/said.ts': `// One piece: the loop's state lives in its locals.\nexport function said() {\n${body(180)}\n}\n`,
      'src/unsaid.ts': `/** Does things. */\nexport const unsaid = () => {\n${body(151)}\n};\n`,
      'src/main.ts': `export async function main() {\n${body(190)}\n}\n`,
    });
    const result = await check(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('src/unsaid.ts:2 unsaid is 151 lines, over 150 with no comment');
    expect(result.stderr).not.toMatch(/src\/said\.ts|src\/main\.ts/);
  });
});
