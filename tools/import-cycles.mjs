// Fails when src/ has an import cycle, type-only imports and re-exports included, or an import
// that breaks a layer rule (STYLE: arrows point down). Imports are read by the TypeScript
// compiler's own pre-processor, not by a regex, and the rules are checked on resolved paths, so
// they hold at any folder depth. Biome's noRestrictedImports repeats them for the editor.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const root = resolve(process.argv[2] ?? 'src');

const ADAPTERS = ['slack/', 'console/'];
const DOMAIN = ['approvals/', 'watches/', 'policy/', 'reports/', 'platform/', 'database/', 'state/'];
const FLOOR = ['reply/', 'secrets/', 'time/', 'telemetry/', 'errors.ts'];

/**
 * The layer rules: a file under one of `from` (every file but those under `except`, for `*`)
 * imports nothing under `never`. Paths are relative to src/; a folder ends with a slash.
 */
const LAYER_RULES = [
  ...ADAPTERS.map((adapter) => ({
    from: '*',
    except: ['main.ts', adapter],
    never: [adapter],
    why: 'an adapter is imported by main.ts alone: render a transport-neutral Reply (src/reply/) instead',
  })),
  {
    from: [...DOMAIN, ...FLOOR],
    never: ['operations/', 'runtime/'],
    why: 'the domain sits below operations/: return data and let operations/ turn it into replies',
  },
  {
    from: ['approvals/', 'policy/'],
    never: ['reply/'],
    why: 'approvals/ and policy/ return codes and data, never sentences: operations/ writes them with reply/',
  },
  {
    from: ['reports/', 'state/', 'sandbox/'],
    never: ['platform/'],
    why: 'what it needs of the platform belongs to it, to database/ or to errors.ts, not to the API client',
  },
  {
    from: FLOOR,
    never: DOMAIN,
    why: 'reply/, secrets/, time/, telemetry/ and errors.ts are the floor: they import nothing above them',
  },
];

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

/** The file's path under src/, with forward slashes. */
const inSrc = (file) => relative(root, file).split(sep).join('/');
/** The place of `places` that holds `path`: a folder it is under, or the file it is. */
const placeOf = (path, places) =>
  places.find((place) => (place.endsWith('/') ? path.startsWith(place) : path === place));
/** The place a rule applies to `path` as: its top folder (or itself) for `*`. */
function fromPlace(rule, path) {
  if (placeOf(path, rule.except ?? [])) return undefined;
  if (rule.from !== '*') return placeOf(path, rule.from);
  const slash = path.indexOf('/');
  return slash < 0 ? path : path.slice(0, slash + 1);
}

const broken = [];
for (const [file, imports] of graph) {
  const path = inSrc(file);
  for (const rule of LAYER_RULES) {
    const from = fromPlace(rule, path);
    if (!from) continue;
    for (const target of imports) {
      const never = placeOf(inSrc(target), rule.never);
      if (never)
        broken.push(
          `layer rule: ${relative(process.cwd(), file)} imports ${relative(process.cwd(), target)}, and ${from} never imports ${never}: ${rule.why}`,
        );
    }
  }
}

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

const where = relative(process.cwd(), root) || '.';
if (cycles.length === 0) console.log(`import-cycles: no cycle among ${files.length} files in ${where}`);
else
  for (const cycle of cycles)
    console.error(`import cycle: ${cycle.map((file) => relative(process.cwd(), file)).join(' ↔ ')}`);
if (broken.length === 0) console.log(`import-cycles: ${LAYER_RULES.length} layer rules hold in ${where}`);
else for (const line of broken) console.error(line);
if (cycles.length > 0 || broken.length > 0) process.exitCode = 1;
