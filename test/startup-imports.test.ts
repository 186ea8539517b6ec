/**
 * What each run mode loads before it can answer: the static import graph from its entry modules
 * (dynamic `import()` and `import type` load nothing at start). Every module loaded costs start-up
 * time, under tsx most of all, so code only some commands or modes need is imported on first use.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/block-kit.js';

const SRC = path.join(repoRoot, 'src');

/** The specifiers a TypeScript module imports statically for their values. */
function staticImports(source: string): string[] {
  const specifiers: string[] = [];
  const statement = /^(import|export)\s+(type\s+)?([^;]*?)\s*from\s+'([^']+)';|^import\s+'([^']+)';/gms;
  for (const match of source.matchAll(statement)) {
    const [, keyword, typeOnly, clause = '', from, bare] = match;
    if (bare) {
      specifiers.push(bare);
      continue;
    }
    if (typeOnly) continue;
    // `import { type A, type B } from` loads nothing either; `export { x } from` and `export *` do.
    const names = /^\{([\s\S]*)\}$/.exec(clause.trim())?.[1];
    if (keyword === 'import' && names !== undefined) {
      const values = names
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '' && !name.startsWith('type '));
      if (values.length === 0) continue;
    }
    specifiers.push(from!);
  }
  return specifiers;
}

/** Every module loaded at start from `entries`: src files (relative to src/) and package names. */
function startupClosure(entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = entries.map((entry) => path.join(SRC, entry));
  while (pending.length > 0) {
    const file = pending.pop()!;
    const relative = path.relative(SRC, file);
    if (files.has(relative)) continue;
    files.add(relative);
    for (const specifier of staticImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('node:')) continue;
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
        expect(existsSync(target), `${relative} imports ${specifier}`).toBe(true);
        pending.push(target);
      } else {
        packages.add(specifier);
      }
    }
  }
  return { files, packages };
}

const slackModeEntries = [
  'main.ts',
  'runtime/runtime.ts',
  'slack/app.ts',
  'slack/bot-token.ts',
  'slack/groups.ts',
  'slack/surface.ts',
];

/** What console mode loads: main.ts composes it from these. */
const consoleModeEntries = [
  'main.ts',
  'runtime/runtime.ts',
  'console/backends.ts',
  'console/log-file.ts',
  'console/run.ts',
  'policy/defaults.ts',
];

describe('what a start loads', () => {
  it('the entry point loads neither Slack nor the console until the mode is known', () => {
    const { files, packages } = startupClosure(['main.ts']);
    expect([...files].filter((file) => /^(slack|console|sandbox)\//.test(file))).toEqual([]);
    expect([...packages].filter((name) => name.startsWith('@slack/'))).toEqual([]);
    expect(files.has('runtime/runtime.ts')).toBe(false);
  });

  it('HTTP and Socket Mode load no console, no sandbox and no report worker pool', () => {
    const { files, packages } = startupClosure(slackModeEntries);
    expect(files.has('runtime/runtime.ts') && files.has('slack/app.ts')).toBe(true);
    expect([...files].filter((file) => /^(console|sandbox)\//.test(file))).toEqual([]);
    expect([...files].filter((file) => /(^|[/-])worker\.ts$/.test(file))).toEqual([]);
    expect(packages.has('piscina')).toBe(false);
    // Charts are drawn in a report worker: the native renderer is never loaded at start.
    expect([...packages].filter((name) => name.startsWith('@resvg/'))).toEqual([]);
    expect(files.has('reports/chart/png.ts')).toBe(false);
  });

  it('console mode loads no Slack adapter and no Slack package', () => {
    const { files, packages } = startupClosure(consoleModeEntries);
    expect(files.has('console/run.ts') && files.has('sandbox/server.ts')).toBe(true);
    expect([...files].filter((file) => /^slack\//.test(file))).toEqual([]);
    expect([...packages].filter((name) => name.startsWith('@slack/'))).toEqual([]);
  });

  it('main.ts builds the runtime for the console too: the console is handed it and builds none', () => {
    const main = readFileSync(path.join(SRC, 'main.ts'), 'utf8');
    expect(main).toContain("import('./console/backends.js')");
    expect(main).toContain("import('./runtime/runtime.js')");
    const { files } = startupClosure(['console/run.ts']);
    expect(files.has('runtime/runtime.ts')).toBe(false);
    expect(readFileSync(path.join(SRC, 'console/run.ts'), 'utf8')).not.toMatch(
      /runtime\/runtime\.js|createRuntime/,
    );
  });

  it("HTTP mode's receiving thread is started before the app loads, and loads nothing of Bolt to start", () => {
    const { files, packages } = startupClosure(['slack/receivers/ack-thread-start.ts']);
    expect([...files]).toEqual(['slack/receivers/ack-thread-start.ts']);
    expect([...packages]).toEqual([]);
    // main.ts starts it before it imports the app's modules, which load side by side with it.
    const main = readFileSync(path.join(SRC, 'main.ts'), 'utf8');
    const prepared = main.indexOf("import('./slack/receivers/ack-thread-start.js')");
    expect(prepared).toBeGreaterThan(-1);
    expect(prepared).toBeLessThan(main.indexOf("import('./slack/app.js')"));
  });

  it('no start loads date-fns as ES modules, which costs a second on Node 22 and 24', () => {
    const { files, packages } = startupClosure([...slackModeEntries, ...consoleModeEntries]);
    expect([...packages].filter((name) => name === 'date-fns' || name.startsWith('date-fns/'))).toEqual([]);
    // Its functions come through the one module that loads its CommonJS build.
    expect(files.has('time/date-fns.ts')).toBe(true);
    expect(readFileSync(path.join(SRC, 'time/date-fns.ts'), 'utf8')).toMatch(
      /createRequire\(import\.meta\.url\)/,
    );
  });

  it('the import reader tells loading imports from type-only ones', () => {
    const source = [
      "import type { A } from 'type-only';",
      "import { type B, type C } from 'all-types';",
      "import { type D, e } from 'mixed';",
      "import {\n  f,\n  g,\n} from 'multi-line';",
      "import './side-effect.js';",
      "export { h } from 're-export';",
      "export type { I } from 'type-re-export';",
      "const lazy = await import('dynamic');",
    ].join('\n');
    expect(staticImports(source)).toEqual(['mixed', 'multi-line', './side-effect.js', 're-export']);
  });
});
