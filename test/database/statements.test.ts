import { describe, expect, it } from 'vitest';
import { countStatements } from '../../src/database/statements.js';

describe('countStatements', () => {
  it('counts one statement with or without a trailing semicolon', () => {
    expect(countStatements('SELECT 1')).toBe(1);
    expect(countStatements('SELECT 1;')).toBe(1);
    expect(countStatements('  SELECT 1 ;  ;; ')).toBe(1);
  });

  it('counts several statements separated by semicolons', () => {
    expect(countStatements('SELECT 1; SELECT 2')).toBe(2);
    expect(countStatements('SELECT 1; DELETE FROM t;')).toBe(2);
  });

  it('ignores semicolons inside strings, quoted names and comments', () => {
    expect(countStatements('SELECT \'a;b\', "c;d", `e;f`, [g;h] FROM t')).toBe(1);
    expect(countStatements("SELECT 'it''s; fine' -- trailing; comment\n")).toBe(1);
    expect(countStatements('SELECT 1 /* ; */')).toBe(1);
    expect(countStatements("SELECT 'x''; DROP TABLE t; --'")).toBe(1);
  });

  it('sees a statement hidden after a comment or a string', () => {
    expect(countStatements("SELECT 'a'; DROP TABLE t")).toBe(2);
    expect(countStatements('SELECT 1 /* c */; UPDATE t SET x = 1')).toBe(2);
    expect(countStatements('-- only a comment\nSELECT 1;\nSELECT 2')).toBe(2);
  });

  it('finds nothing in an empty or comment-only text', () => {
    expect(countStatements('')).toBe(0);
    expect(countStatements(' ; ; ')).toBe(0);
    expect(countStatements('-- nothing here')).toBe(0);
    expect(countStatements('/* nothing */')).toBe(0);
  });
});
