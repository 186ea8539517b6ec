/**
 * Reads a SQL text without a parser: how many statements it holds (semicolons outside strings,
 * quoted names and comments separate them; empty ones do not count), which keyword starts it,
 * and which kind of statement that keyword makes. Some engines silently run only the first of
 * several statements, and a server's own "read-only" verdict also covers statements that are
 * neither reads nor changes (ATTACH, PRAGMA, BEGIN…), so the bot decides both before the server
 * is asked anything.
 */

const CLOSERS: Record<string, string> = { "'": "'", '"': '"', '`': '`', '[': ']' };

type TokenKind = 'word' | 'quoted' | 'semicolon' | 'comma' | 'open' | 'close' | 'other';

interface Token {
  kind: TokenKind;
  start: number;
  end: number;
}

const PUNCTUATION: Record<string, TokenKind> = { ';': 'semicolon', ',': 'comma', '(': 'open', ')': 'close' };

const isWordChar = (ch: string) => /[A-Za-z0-9_$\u0080-\uffff]/.test(ch);

/** The significant tokens of `sql`: comments and white space are skipped. */
function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    const start = i;
    if (ch === '-' && sql[i + 1] === '-') {
      const newline = sql.indexOf('\n', i);
      i = newline === -1 ? sql.length : newline + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close === -1 ? sql.length : close + 2;
    } else if (/\s/.test(ch)) {
      i += 1;
    } else if (CLOSERS[ch]) {
      const closer = CLOSERS[ch];
      let j = i + 1;
      // A doubled closing quote is an escaped quote inside the string ('it''s'); ] has no escape.
      while (j < sql.length && !(sql[j] === closer && !(closer !== ']' && sql[j + 1] === closer))) {
        j += sql[j] === closer ? 2 : 1;
      }
      i = Math.min(j + 1, sql.length);
      tokens.push({ kind: 'quoted', start, end: i });
    } else if (isWordChar(ch)) {
      while (i < sql.length && isWordChar(sql[i]!)) i += 1;
      tokens.push({ kind: 'word', start, end: i });
    } else {
      i += 1;
      tokens.push({ kind: PUNCTUATION[ch] ?? 'other', start, end: i });
    }
  }
  return tokens;
}

/** The statements of `sql` as lists of tokens; empty statements are left out. */
function statementsOf(tokens: readonly Token[]): Token[][] {
  const statements: Token[][] = [];
  let current: Token[] = [];
  for (const token of tokens) {
    if (token.kind === 'semicolon') {
      if (current.length > 0) statements.push(current);
      current = [];
    } else {
      current.push(token);
    }
  }
  if (current.length > 0) statements.push(current);
  return statements;
}

export function countStatements(sql: string): number {
  return statementsOf(tokenize(sql)).length;
}

/**
 * What `/edge db` makes of a statement, by its first keyword:
 * - `read`: SELECT, WITH, VALUES, EXPLAIN, the only ones `db query` runs;
 * - `change`: INSERT, UPDATE, DELETE, REPLACE and the schema changes CREATE, DROP, ALTER;
 * - `not-run`: neither a read nor a data change (other databases, connection settings,
 *   transaction control, maintenance): neither command runs them;
 * - `unknown`: not a statement keyword at all; the database names the mistake.
 */
export type StatementKind = 'read' | 'change' | 'not-run' | 'unknown';

const KINDS: Record<string, StatementKind> = {
  SELECT: 'read',
  WITH: 'read',
  VALUES: 'read',
  EXPLAIN: 'read',
  INSERT: 'change',
  UPDATE: 'change',
  DELETE: 'change',
  REPLACE: 'change',
  CREATE: 'change',
  DROP: 'change',
  ALTER: 'change',
  ATTACH: 'not-run',
  DETACH: 'not-run',
  PRAGMA: 'not-run',
  BEGIN: 'not-run',
  COMMIT: 'not-run',
  END: 'not-run',
  ROLLBACK: 'not-run',
  SAVEPOINT: 'not-run',
  RELEASE: 'not-run',
  VACUUM: 'not-run',
  ANALYZE: 'not-run',
  REINDEX: 'not-run',
};

export interface StatementReading {
  /** How many statements the text holds. */
  count: number;
  /** The first keyword of the first statement, upper-cased; '' when it starts with no word. */
  keyword: string;
  kind: StatementKind;
  /**
   * The keyword of the statement proper: after WITH's common table expressions (SELECT, VALUES,
   * INSERT…), otherwise the first keyword; '' when it cannot be told.
   */
  mainKeyword: string;
  /** The first statement from its first token to its last: no comments around it, no `;`. */
  body: string;
}

/** The token after the group that opens at `tokens[at]` (an `(`), or -1 when it never closes. */
function afterGroup(tokens: readonly Token[], at: number): number {
  let depth = 0;
  for (let i = at; i < tokens.length; i++) {
    const kind = tokens[i]!.kind;
    if (kind === 'open') depth += 1;
    else if (kind === 'close') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** WITH [RECURSIVE] name [(columns)] AS [NOT] [MATERIALIZED] (…) [, …] MAIN: the index of MAIN. */
function afterCommonTableExpressions(tokens: readonly Token[], word: (i: number) => string): number {
  let i = 1;
  if (word(i) === 'RECURSIVE') i += 1;
  for (;;) {
    if (tokens[i]?.kind !== 'word' && tokens[i]?.kind !== 'quoted') return -1;
    i += 1;
    if (tokens[i]?.kind === 'open') i = afterGroup(tokens, i);
    if (i < 0 || word(i) !== 'AS') return -1;
    i += 1;
    if (word(i) === 'NOT') i += 1;
    if (word(i) === 'MATERIALIZED') i += 1;
    if (tokens[i]?.kind !== 'open') return -1;
    i = afterGroup(tokens, i);
    if (i < 0) return -1;
    if (tokens[i]?.kind !== 'comma') return i;
    i += 1;
  }
}

export function readStatement(sql: string): StatementReading {
  const statements = statementsOf(tokenize(sql));
  const first = statements[0] ?? [];
  // Parentheses before the first keyword do not hide it: "(DELETE …" is still a DELETE.
  const opening = first.findIndex((token) => token.kind !== 'open');
  const tokens = opening < 0 ? [] : first.slice(opening);
  const word = (i: number) => {
    const token = tokens[i];
    return token?.kind === 'word' ? sql.slice(token.start, token.end).toUpperCase() : '';
  };
  const keyword = first.length > 0 ? word(0) : '';
  let mainKeyword = keyword;
  if (keyword === 'WITH') {
    const main = afterCommonTableExpressions(tokens, word);
    mainKeyword = main < 0 ? '' : word(main);
  }
  const last = first[first.length - 1];
  return {
    count: statements.length,
    keyword,
    kind: KINDS[keyword] ?? 'unknown',
    mainKeyword,
    body: first.length > 0 && last ? sql.slice(first[0]!.start, last.end) : '',
  };
}
