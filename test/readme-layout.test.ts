/**
 * The README's layout names what is at the top of src/, and only that, every folder below it, and
 * folders that exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(import.meta.dirname, '..');
const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** The fenced block under "### Layout". */
function layoutBlock(): string[] {
  const start = readme.indexOf('### Layout\n');
  expect(start, 'README has "### Layout"').toBeGreaterThan(-1);
  const block = /```\n([\s\S]*?)```/.exec(readme.slice(start))?.[1];
  expect(block, 'a fenced block under "### Layout"').toBeDefined();
  return block!.split('\n');
}

/** The names a line of the block starts with at `indent` spaces (`main.ts`, `reply/`). */
const namesAt = (lines: string[], indent: number) =>
  lines.flatMap((line) => {
    const match = new RegExp(`^ {${indent}}([\\w.-]+/?)(?: |$)`).exec(line);
    return match ? [match[1]!] : [];
  });

describe('the README', () => {
  it('is one a deployer reads to the end: at most 300 lines, the rest in docs/ and bench/README.md', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });
});

describe("the README's layout", () => {
  const lines = layoutBlock();

  it('names every file and folder at the top of src/, and nothing that is not there', () => {
    const tree = readdirSync(path.join(repoRoot, 'src'), { withFileTypes: true })
      .filter((entry) => !entry.name.startsWith('.'))
      .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
    expect(namesAt(lines, 2).sort()).toEqual(tree.sort());
  });

  it('names every folder below the top of src/ on the line of the folder it is in', () => {
    const block = lines.join('\n');
    // The description of each top-level folder: its line and the lines indented under it.
    const described = new Map<string, string>();
    let current = '';
    for (const line of lines) {
      const top = /^ {2}([\w.-]+\/)/.exec(line)?.[1];
      if (top) current = top;
      else if (!/^ {3,}/.test(line)) current = '';
      if (current) described.set(current, `${described.get(current) ?? ''}${line}\n`);
    }
    const missing: string[] = [];
    const walk = (dir: string, top: string, at: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (!entry.isDirectory()) continue;
        if (!(described.get(top) ?? '').includes(`${entry.name}/`)) missing.push(`${at}${entry.name}/`);
        walk(path.join(dir, entry.name), top, `${at}${entry.name}/`);
      }
    };
    for (const top of readdirSync(path.join(repoRoot, 'src'), { withFileTypes: true }))
      if (top.isDirectory()) walk(path.join(repoRoot, 'src', top.name), `${top.name}/`, `${top.name}/`);
    expect(block).toContain('src/');
    expect(missing).toEqual([]);
  });

  it('names only top-level folders that exist', () => {
    const top = namesAt(lines, 0);
    expect(top).toContain('src/');
    for (const folder of top) expect(existsSync(path.join(repoRoot, folder)), folder).toBe(true);
  });
});
