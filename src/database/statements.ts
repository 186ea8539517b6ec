/**
 * Counts the statements in a SQL text without a parser: semicolons outside strings, quoted
 * names and comments separate statements, and empty ones (a trailing `;`) do not count.
 * Some engines silently run only the first of several statements, so the bot refuses several
 * before the server is asked anything.
 */

const CLOSERS: Record<string, string> = { "'": "'", '"': '"', '`': '`', '[': ']' };

export function countStatements(sql: string): number {
  let count = 0;
  let current = false;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === '-' && sql[i + 1] === '-') {
      const newline = sql.indexOf('\n', i);
      i = newline === -1 ? sql.length : newline + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close === -1 ? sql.length : close + 2;
    } else if (ch === ';') {
      if (current) count += 1;
      current = false;
      i += 1;
    } else if (/\s/.test(ch)) {
      i += 1;
    } else if (CLOSERS[ch]) {
      const closer = CLOSERS[ch];
      let j = i + 1;
      // A doubled closing quote is an escaped quote inside the string ('it''s'); ] has no escape.
      while (j < sql.length && !(sql[j] === closer && !(closer !== ']' && sql[j + 1] === closer))) {
        j += sql[j] === closer ? 2 : 1;
      }
      current = true;
      i = j + 1;
    } else {
      current = true;
      i += 1;
    }
  }
  return current ? count + 1 : count;
}
