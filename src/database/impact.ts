/**
 * What a write statement will touch, read before anyone approves it: whether an UPDATE or DELETE
 * has no WHERE (it touches every row), and, for a single-table UPDATE or DELETE, the read-only
 * `SELECT count(*)` of the rows its WHERE matches now.
 *
 * The statement is read by node-sql-parser's SQLite grammar, a maintained parser, rather than by
 * patterns of our own: a count must come from the same WHERE the database will evaluate, so the
 * count query is built from the parsed tree, never by cutting text. Where the statement is not
 * one this can rewrite safely (joins, CTEs, LIMIT, a grammar the parser reads differently from
 * SQLite), the answer is "unknown", never a guess. The count runs through the read-only query
 * path (the database's describe must call it read-only) under the query deadline.
 */
import sqlite from 'node-sql-parser/build/sqlite.js';

const parser = new sqlite.Parser();
const DIALECT = { database: 'sqlite' } as const;

export type WriteVerb = 'UPDATE' | 'DELETE' | 'INSERT' | 'OTHER';

export interface WriteShape {
  verb: WriteVerb;
  /** The table an UPDATE or DELETE changes, when it could be read. */
  table?: string;
  /** An UPDATE or DELETE without WHERE: it changes every row of its table. */
  noWhere: boolean;
  /** The statement could not be read well enough to tell whether it has a WHERE. */
  whereUnclear?: boolean;
  /** The read-only count of the rows the WHERE matches now, when the statement could be rewritten. */
  countSql?: string;
  /** Why no count is offered, for an UPDATE or DELETE that has none. */
  unknownWhy?: string;
}

interface TableRef {
  db: string | null;
  table: string;
  as: string | null;
}

interface WriteAst {
  type: string;
  table?: TableRef[] | null;
  from?: TableRef[] | null;
  where?: unknown;
  with?: unknown;
  orderby?: unknown;
  limit?: { value?: unknown[] } | null;
}

/** The statement's first keyword, read past comments and whitespace. */
function leadingVerb(sql: string): WriteVerb {
  const bare = sql.replace(/^(?:\s+|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*/, '');
  let word = /^[A-Za-z]+/.exec(bare)?.[0]?.toUpperCase();
  // A common table expression comes first; the statement's own verb follows it.
  if (word === 'WITH') word = /\b(UPDATE|DELETE|INSERT)\b/i.exec(bare)?.[1]?.toUpperCase();
  return word === 'UPDATE' || word === 'DELETE' || word === 'INSERT' ? word : 'OTHER';
}

function parsed(sql: string): WriteAst | undefined {
  try {
    const ast = parser.astify(sql, DIALECT) as unknown as WriteAst | WriteAst[];
    const statements = Array.isArray(ast) ? ast : [ast];
    return statements.length === 1 ? statements[0] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The statement's text with comments, string literals and quoted names blanked out, read by
 * SQLite's lexical rules (`--` to the line's end, non-nesting block comments, quotes doubled to
 * escape, `[…]` and backticks); undefined when a quote or comment is never closed.
 */
export function codeWords(sql: string): string | undefined {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const char = sql[i]!;
    const next = sql[i + 1];
    if (char === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end;
      out += ' ';
      continue;
    }
    if (char === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end === -1) return undefined;
      i = end + 2;
      out += ' ';
      continue;
    }
    const close = char === "'" || char === '"' || char === '`' ? char : char === '[' ? ']' : undefined;
    if (close) {
      let j = i + 1;
      for (;;) {
        const found = sql.indexOf(close, j);
        if (found === -1) return undefined;
        // A quote doubled inside quotes is one quote character (not so for brackets).
        if (close !== ']' && sql[found + 1] === close) {
          j = found + 2;
          continue;
        }
        i = found + 1;
        break;
      }
      out += ' ';
      continue;
    }
    out += char;
    i += 1;
  }
  return out;
}

const hasLimit = (ast: WriteAst) => (ast.limit?.value?.length ?? 0) > 0;

/** What the statement is, and how to count what it touches. */
export function writeShape(sql: string): WriteShape {
  const verb = leadingVerb(sql);
  if (verb !== 'UPDATE' && verb !== 'DELETE') return { verb, noWhere: false };
  const ast = parsed(sql);
  if (!ast || ast.type.toUpperCase() !== verb) {
    // Not read by the parser: only the words outside comments, strings and quoted names can say
    // whether a WHERE is there at all (`DELETE FROM [t] -- WHERE id = 1` has none).
    const words = codeWords(sql);
    return {
      verb,
      noWhere: words !== undefined && !/\bWHERE\b/i.test(words),
      ...(words === undefined ? { whereUnclear: true } : {}),
      unknownWhy: 'the statement is not one the bot can rewrite into a count',
    };
  }
  const tables = verb === 'DELETE' ? (ast.from ?? []) : (ast.table ?? []);
  const table = tables.length === 1 ? tables[0] : undefined;
  const name = table ? (table.db ? `${table.db}.${table.table}` : table.table) : undefined;
  const shape: WriteShape = { verb, ...(name ? { table: name } : {}), noWhere: !ast.where };
  const unknown = (why: string): WriteShape => ({ ...shape, unknownWhy: why });
  if (!table) return unknown('it changes more than one table');
  if (ast.with) return unknown('it uses WITH');
  if (hasLimit(ast) || ast.orderby) return unknown('it has ORDER BY or LIMIT');
  // SQLite reads a backslash in a string as itself; the parser reads it as an escape.
  if (sql.includes('\\')) return unknown('it holds a backslash, which the parser reads differently');
  const count = {
    type: 'select',
    columns: [
      {
        expr: { type: 'aggr_func', name: 'COUNT', args: { expr: { type: 'star', value: '*' } } },
        as: null,
      },
    ],
    from: [{ db: table.db, table: table.table, as: table.as }],
    where: ast.where ?? null,
  };
  let countSql: string;
  try {
    // biome-ignore lint/suspicious/noExplicitAny: the parser's AST type does not cover a built tree.
    countSql = parser.sqlify(count as any, DIALECT);
  } catch {
    return unknown('the statement is not one the bot can rewrite into a count');
  }
  // The printed count must read back as itself: a printer slip (`- -5` printed as `--5`, which
  // SQLite reads as a comment) would make the database count a different WHERE from the one
  // that runs. Printing what was read back must give the very same text.
  const again = parsed(countSql);
  let reprinted: string | undefined;
  try {
    // biome-ignore lint/suspicious/noExplicitAny: the parser's AST type does not cover a built tree.
    reprinted = again?.type === 'select' ? parser.sqlify(again as any, DIALECT) : undefined;
  } catch {
    reprinted = undefined;
  }
  if (reprinted !== countSql)
    return unknown('the count the bot could write would not read back as the same WHERE');
  return { ...shape, countSql };
}
