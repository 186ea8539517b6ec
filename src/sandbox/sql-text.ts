/**
 * Just enough SQL lexing for the database endpoint: counting statements (the engine silently runs
 * only the first of several), listing parameters for `describe`, and reading the leading keywords
 * that decide how a statement is handled (BEGIN, EXPLAIN, PRAGMA query_only).
 */

type TokenKind = 'word' | 'string' | 'quoted' | 'param' | 'semicolon' | 'other';

interface Token {
  kind: TokenKind;
  text: string;
  start: number;
  end: number;
}

const isWordChar = (ch: string) => /[A-Za-z0-9_$\u0080-\uffff]/.test(ch);

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (kind: TokenKind, start: number, end: number) =>
    tokens.push({ kind, text: sql.slice(start, end), start, end });
  const until = (closing: string, from: number): number => {
    // Quotes close at the next unescaped closing char; a doubled closing char is an escape.
    let j = from;
    while (j < sql.length) {
      if (sql[j] === closing) {
        if (closing !== ']' && sql[j + 1] === closing) {
          j += 2;
          continue;
        }
        return j + 1;
      }
      j++;
    }
    return sql.length;
  };
  while (i < sql.length) {
    const ch = sql[i] ?? '';
    const start = i;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const newline = sql.indexOf('\n', i);
      i = newline === -1 ? sql.length : newline + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close === -1 ? sql.length : close + 2;
    } else if (ch === "'") {
      i = until("'", i + 1);
      push('string', start, i);
    } else if (ch === '"' || ch === '`') {
      i = until(ch, i + 1);
      push('quoted', start, i);
    } else if (ch === '[') {
      i = until(']', i + 1);
      push('quoted', start, i);
    } else if (ch === ';') {
      i++;
      push('semicolon', start, i);
    } else if (ch === '?') {
      i++;
      while (i < sql.length && /[0-9]/.test(sql[i] ?? '')) i++;
      push('param', start, i);
    } else if ((ch === ':' || ch === '@' || ch === '$') && isWordChar(sql[i + 1] ?? ' ')) {
      i++;
      while (i < sql.length && isWordChar(sql[i] ?? ' ')) i++;
      push('param', start, i);
    } else if (isWordChar(ch)) {
      while (i < sql.length && isWordChar(sql[i] ?? ' ')) i++;
      push('word', start, i);
    } else {
      i++;
      push('other', start, i);
    }
  }
  return tokens;
}

const upper = (token: Token | undefined) => (token?.kind === 'word' ? token.text.toUpperCase() : '');

/** Whether the statement starting at `tokens[0]` is CREATE [TEMP] TRIGGER, whose body holds semicolons. */
function isTrigger(tokens: readonly Token[]): boolean {
  if (upper(tokens[0]) !== 'CREATE') return false;
  const second = upper(tokens[1]);
  if (second === 'TRIGGER') return true;
  return (second === 'TEMP' || second === 'TEMPORARY') && upper(tokens[2]) === 'TRIGGER';
}

/** The statements of `sql`, each as its own source text (without the terminating semicolon). */
export function splitStatements(sql: string): string[] {
  const tokens = tokenize(sql);
  const statements: string[] = [];
  let current: Token[] = [];
  // Inside a trigger body, BEGIN…END (with CASE…END nested) hides the semicolons.
  let depth = 0;
  const flush = () => {
    const first = current[0];
    const last = current[current.length - 1];
    if (first && last) statements.push(sql.slice(first.start, last.end));
    current = [];
    depth = 0;
  };
  for (const token of tokens) {
    if (token.kind === 'semicolon' && depth === 0) {
      flush();
      continue;
    }
    current.push(token);
    if (token.kind === 'word' && isTrigger(current)) {
      const word = upper(token);
      if (word === 'BEGIN' || (word === 'CASE' && depth > 0)) depth++;
      else if (word === 'END' && depth > 0) depth--;
    }
  }
  flush();
  return statements;
}

/** Parameter names by position, as `sqlite3_bind_parameter_name` reports them (null for a bare `?`). */
export function statementParams(sql: string): (string | null)[] {
  const params: (string | null)[] = [];
  for (const token of tokenize(sql)) {
    if (token.kind !== 'param') continue;
    if (token.text === '?') {
      params.push(null);
    } else if (token.text.startsWith('?')) {
      const index = Number(token.text.slice(1));
      while (params.length < index) params.push(null);
      params[index - 1] = token.text;
    } else if (!params.includes(token.text)) {
      params.push(token.text);
    }
  }
  return params;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The statement with each blob literal whose bytes are not UTF-8 replaced by the UTF-8 of their
 * lossy reading (U+FFFD for each bad sequence). An EXPLAIN lists a blob literal's bytes as text,
 * and the embedded driver aborts the whole process on text that is not UTF-8; a server reads
 * them lossily. Only for EXPLAIN: the literal's value changes.
 */
export function explainableBlobs(sql: string): string {
  const tokens = tokenize(sql);
  let out = '';
  let copied = 0;
  for (let i = 1; i < tokens.length; i++) {
    const prefix = tokens[i - 1]!;
    const literal = tokens[i]!;
    if (literal.kind !== 'string' || prefix.end !== literal.start || prefix.text.toLowerCase() !== 'x')
      continue;
    const hex = literal.text.slice(1, -1);
    // A malformed literal is left for the engine to refuse.
    if (!/^(?:[0-9A-Fa-f]{2})*$/.test(hex) || !literal.text.endsWith("'")) continue;
    const bytes = Buffer.from(hex, 'hex');
    if (isUtf8(bytes)) continue;
    out += `${sql.slice(copied, literal.start)}'${Buffer.from(bytes.toString('utf8')).toString('hex')}'`;
    copied = literal.end;
  }
  return copied === 0 ? sql : out + sql.slice(copied);
}

export type BeginMode = 'deferred' | 'write' | 'read';

export interface StatementShape {
  /** Set when the statement opens a transaction: the mode it asks for. */
  begin?: BeginMode;
  /** BEGIN with words this lexer does not know; the engine gets to judge it. */
  beginUnrecognised?: boolean;
  isExplain: boolean;
  /** A row-returning query that can sit inside `SELECT * FROM (…)`. */
  isQuery: boolean;
  /** SAVEPOINT, which opens a transaction implicitly when none is open. */
  isSavepoint: boolean;
  /** `PRAGMA query_only = …`, which would lift the read-only guard. */
  setsQueryOnly: boolean;
}

const BEGIN_WORDS = new Set(['DEFERRED', 'IMMEDIATE', 'EXCLUSIVE', 'READONLY', 'TRANSACTION']);

export function statementShape(sql: string): StatementShape {
  const tokens = tokenize(sql).filter((token) => token.kind !== 'semicolon');
  const first = upper(tokens[0]);
  const shape: StatementShape = {
    isExplain: first === 'EXPLAIN',
    isQuery: first === 'SELECT' || first === 'WITH' || first === 'VALUES',
    isSavepoint: first === 'SAVEPOINT',
    setsQueryOnly: false,
  };
  if (first === 'BEGIN') {
    const words = tokens.slice(1).map(upper);
    if (words.some((word) => !BEGIN_WORDS.has(word))) shape.beginUnrecognised = true;
    shape.begin = words.includes('READONLY')
      ? 'read'
      : words.includes('IMMEDIATE') || words.includes('EXCLUSIVE')
        ? 'write'
        : 'deferred';
  }
  if (first === 'PRAGMA') {
    // PRAGMA [schema.]query_only = x  or  PRAGMA [schema.]query_only(x)
    const nameAt = tokens[2]?.text === '.' ? 3 : 1;
    const name = tokens[nameAt];
    const after = tokens[nameAt + 1];
    shape.setsQueryOnly =
      name !== undefined &&
      name.text.replace(/^["`[]|["`\]]$/g, '').toLowerCase() === 'query_only' &&
      (after?.text === '=' || after?.text === '(');
  }
  return shape;
}
