// Fails when a function or method in src/ is over 200 lines (STYLE: no function is), or over
// 150 without a comment before it saying why it is one piece (`// One piece: …`); the composition
// root (src/main.ts) is exempt from the second rule. Lines are counted from a function's first
// line to its closing brace. Functions are found by the TypeScript compiler's own parser; a class
// is not measured whole but by its methods, constructor and accessors.
//
//   node tools/function-length.mjs [root]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const MAX_LINES = 200;
/** Over this many lines, a function says in a comment before it why it is one piece. */
const MAX_UNEXPLAINED = 150;
const ONE_PIECE = /one piece/i;

const root = resolve(process.argv[2] ?? 'src');
const shown = (path) => relative(process.cwd(), path).split('\\').join('/');

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
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

/** The statement or member a function is written in: where its comment stands. */
function holderOf(node) {
  let holder = node;
  while (
    holder.parent &&
    !ts.isSourceFile(holder.parent) &&
    !ts.isBlock(holder.parent) &&
    !ts.isClassLike(holder.parent) &&
    !ts.isObjectLiteralExpression(holder.parent)
  )
    holder = holder.parent;
  return holder;
}

function longFunctions(file) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const root = shown(file).endsWith('src/main.ts');
  const found = [];
  const visit = (node) => {
    if (MEASURED.has(node.kind)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      const comments = (ts.getLeadingCommentRanges(text, holderOf(node).getFullStart()) ?? [])
        .map((range) => text.slice(range.pos, range.end))
        .join(' ');
      const entry = { file, line: first + 1, name: nameOf(node), lines };
      if (lines > MAX_LINES)
        found.push({ ...entry, why: `over ${MAX_LINES}: carve it into files of one verb each` });
      else if (lines > MAX_UNEXPLAINED && !root && !ONE_PIECE.test(comments))
        found.push({
          ...entry,
          why: `over ${MAX_UNEXPLAINED} with no comment before it saying why it is one piece (// One piece: …)`,
        });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const failing = sourceFiles(root).flatMap(longFunctions);
const line = ({ file, line, name, lines }) => `${shown(file)}:${line} ${name} is ${lines} lines`;
if (failing.length === 0) {
  console.log(
    `function-length: no function over ${MAX_LINES} lines, nor over ${MAX_UNEXPLAINED} unexplained, in ${shown(root) || '.'}`,
  );
} else {
  for (const found of failing) console.error(`${line(found)}, ${found.why}`);
  process.exitCode = 1;
}
