// Fails when src/ has an import cycle, type-only imports and re-exports included (STYLE: arrows
// point down). Imports are read by the TypeScript compiler's own pre-processor, not by a regex.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(process.argv[2] ?? 'src');

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The project files a file imports: relative specifiers only, `.js` mapped back to `.ts`. */
function importsOf(file, known) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')))
    .filter((path) => known.has(path));
}

const files = sourceFiles(root);
const known = new Set(files);
const graph = new Map(files.map((file) => [file, importsOf(file, known)]));

// Tarjan's strongly connected components: each component of more than one file is a cycle.
let counter = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
function visit(file) {
  index.set(file, counter);
  low.set(file, counter);
  counter += 1;
  stack.push(file);
  onStack.add(file);
  for (const next of graph.get(file)) {
    if (!index.has(next)) {
      visit(next);
      low.set(file, Math.min(low.get(file), low.get(next)));
    } else if (onStack.has(next)) low.set(file, Math.min(low.get(file), index.get(next)));
  }
  if (low.get(file) !== index.get(file)) return;
  const component = [];
  let member;
  do {
    member = stack.pop();
    onStack.delete(member);
    component.push(member);
  } while (member !== file);
  const selfImport = component.length === 1 && graph.get(file).includes(file);
  if (component.length > 1 || selfImport) cycles.push(component);
}
for (const file of files) if (!index.has(file)) visit(file);

if (cycles.length === 0) {
  console.log(
    `import-cycles: no cycle among ${files.length} files in ${relative(process.cwd(), root) || '.'}`,
  );
} else {
  for (const cycle of cycles)
    console.error(`import cycle: ${cycle.map((file) => relative(process.cwd(), file)).join(' ↔ ')}`);
  process.exitCode = 1;
}
