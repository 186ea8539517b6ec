/**
 * The bot runs compiled JavaScript (Dockerfile: `node dist/main.js`), not tsx. Measuring a side
 * under tsx would add its loader, in every worker thread too, to the peak RSS; so the measured
 * sides run from a throwaway transpile of src/ and bench/ (TypeScript's transpileModule, file by
 * file), placed under node_modules/.cache so that package imports resolve as in the repo.
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO = fileURLToPath(new URL('..', import.meta.url));

export interface CompiledTree {
  /** The .js path of a repo .ts file (a path relative to the repo, e.g. `bench/logs.ts`). */
  script(path: string): string;
  remove(): Promise<void>;
}

export async function compileForBench(): Promise<CompiledTree> {
  const root = join(REPO, 'node_modules', '.cache', 'edgeops-bench', String(process.pid));
  await rm(root, { recursive: true, force: true });
  for (const folder of ['src', 'bench']) {
    const names = await readdir(join(REPO, folder), { recursive: true });
    for (const name of names) {
      if (!name.endsWith('.ts') || name.endsWith('.d.ts')) continue;
      const source = join(REPO, folder, name);
      const { outputText } = ts.transpileModule(await readFile(source, 'utf8'), {
        fileName: source,
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2022,
          verbatimModuleSyntax: true,
        },
      });
      const target = join(root, folder, name.replace(/\.ts$/, '.js'));
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, outputText);
    }
  }
  // Below node_modules/ the repo's package.json no longer applies: say these files are ES modules.
  await writeFile(join(root, 'package.json'), '{"type":"module"}\n');
  return {
    script: (path) => join(root, path.replace(/\.ts$/, '.js')),
    remove: () => rm(root, { recursive: true, force: true }),
  };
}
