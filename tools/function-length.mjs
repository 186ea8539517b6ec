// Fails when a function or method in src/ is over 200 lines (STYLE: no function is), counted
// from its first line to its closing brace. Functions are found by the TypeScript compiler's own
// parser; a class is not measured whole but by its methods, constructor and accessors.
//
//   node tools/function-length.mjs [root] [--allow FILE]
//
// FILE lists, one a line (`path name`, `#` starts a comment), functions that are known to be
// over the limit and are being carved: they are reported, and do not fail the check.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const MAX_LINES = 200;

const args = process.argv.slice(2);
const allowAt = args.indexOf('--allow');
const allowFile = allowAt >= 0 ? args.splice(allowAt, 2)[1] : undefined;
if (allowAt >= 0 && !allowFile) {
  console.error('function-length: --allow needs a file');
  process.exit(2);
}
const root = resolve(args[0] ?? 'src');
const shown = (path) => relative(process.cwd(), path).split('\\').join('/');

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** `path name` pairs from the allow-list; an absent list allows nothing. */
function allowList(file) {
  if (!file) return new Set();
  return new Set(
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim().split(/\s+/).join(' '))
      .filter((line) => line !== ''),
  );
}

const MEASURED = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
]);

/** What a reader calls the function: its own name, or the name it is bound to; methods with their class. */
function nameOf(node) {
  const text = (name) =>
    ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) ? name.text : undefined;
  const owner = ts.isClassLike(node.parent) ? `${node.parent.name?.text ?? '(class)'}.` : '';
  if (ts.isConstructorDeclaration(node)) return `${owner}constructor`;
  const own = node.name ? (text(node.name) ?? node.name.getText()) : undefined;
  if (own) return owner + own;
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)) &&
    parent.name
  )
    return text(parent.name) ?? parent.name.getText();
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 60)})`;
  return '(anonymous)';
}

function longFunctions(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (MEASURED.has(node.kind)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_LINES) found.push({ file, line: first + 1, name: nameOf(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const allowed = allowList(allowFile);
const long = sourceFiles(root).flatMap(longFunctions);
const failing = [];
const carving = [];
for (const found of long) (allowed.has(`${shown(found.file)} ${found.name}`) ? carving : failing).push(found);
const stale = [...allowed].filter(
  (entry) => !carving.some((found) => `${shown(found.file)} ${found.name}` === entry),
);

const line = ({ file, line, name, lines }) => `${shown(file)}:${line} ${name} is ${lines} lines`;
for (const found of carving) console.log(`function-length: allowed while it is carved: ${line(found)}`);
for (const entry of stale)
  console.log(
    `function-length: ${entry} is no longer over ${MAX_LINES} lines: take it off ${shown(allowFile)}`,
  );
if (failing.length === 0) {
  console.log(
    `function-length: no function over ${MAX_LINES} lines in ${shown(root) || '.'}${carving.length ? ` but the ${carving.length} allowed` : ''}`,
  );
} else {
  for (const found of failing)
    console.error(`${line(found)}, over ${MAX_LINES}: carve it into files of one verb each`);
  process.exitCode = 1;
}
