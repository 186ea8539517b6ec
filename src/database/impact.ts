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

const hasLimit = (ast: WriteAst) => (ast.limit?.value?.length ?? 0) > 0;

/** What the statement is, and how to count what it touches. */
export function writeShape(sql: string): WriteShape {
  const verb = leadingVerb(sql);
  if (verb !== 'UPDATE' && verb !== 'DELETE') return { verb, noWhere: false };
  const ast = parsed(sql);
  if (!ast || ast.type.toUpperCase() !== verb) {
    // Not read by the parser: only the plain text can say whether a WHERE is there at all.
    return {
      verb,
      noWhere: !/\bWHERE\b/i.test(sql),
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
  try {
    // biome-ignore lint/suspicious/noExplicitAny: the parser's AST type does not cover a built tree.
    return { ...shape, countSql: parser.sqlify(count as any, DIALECT) };
  } catch {
    return unknown('the statement is not one the bot can rewrite into a count');
  }
}
