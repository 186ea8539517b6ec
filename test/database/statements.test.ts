import { describe, expect, it } from 'vitest';
import { countStatements, readStatement } from '../../src/database/statements.js';

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

describe('readStatement', () => {
  it('reads the first keyword past white space, comments and opening parentheses, in any case', () => {
    expect(readStatement('select 1').keyword).toBe('SELECT');
    expect(readStatement('  \n\t SeLeCt 1').keyword).toBe('SELECT');
    expect(readStatement('-- a note\nattach database x AS y').keyword).toBe('ATTACH');
    expect(readStatement('/* a; note */ PRAGMA writable_schema = ON').keyword).toBe('PRAGMA');
    expect(readStatement('/* one */ -- two\n /* three */ ((DELETE FROM t))').keyword).toBe('DELETE');
    expect(readStatement('( ( VALUES (1)').keyword).toBe('VALUES');
    expect(readStatement("'DELETE' FROM t").keyword).toBe('');
    expect(readStatement('-- SELECT\nBEGIN').keyword).toBe('BEGIN');
    expect(readStatement('/* SELECT */ COMMIT').keyword).toBe('COMMIT');
  });

  it('sorts statements into reads, changes, statements /edge does not run, and unknown words', () => {
    const kinds = (texts: string[]) => texts.map((text) => readStatement(text).kind);
    expect(
      kinds(['SELECT 1', 'WITH x AS (SELECT 1) SELECT * FROM x', 'VALUES (1)', 'EXPLAIN SELECT 1']),
    ).toEqual(['read', 'read', 'read', 'read']);
    expect(
      kinds([
        'INSERT INTO t VALUES (1)',
        'update t set x = 1',
        'DELETE FROM t',
        'REPLACE INTO t VALUES (1)',
        'CREATE TABLE u (x)',
        'DROP TABLE u',
        'ALTER TABLE t ADD y',
      ]),
    ).toEqual(['change', 'change', 'change', 'change', 'change', 'change', 'change']);
    expect(
      kinds([
        "ATTACH DATABASE '/tmp/x.db' AS x",
        'DETACH x',
        'PRAGMA foreign_keys = OFF',
        'BEGIN',
        'begin immediate',
        'COMMIT',
        'END TRANSACTION',
        'ROLLBACK',
        'SAVEPOINT s',
        'RELEASE s',
        'VACUUM',
        'ANALYZE',
        'REINDEX',
      ]),
    ).toEqual(Array(13).fill('not-run'));
    expect(kinds(['SELEC 1', '', '-- only a comment', '42'])).toEqual([
      'unknown',
      'unknown',
      'unknown',
      'unknown',
    ]);
  });

  it('finds the statement proper after the common table expressions of a WITH', () => {
    const main = (text: string) => readStatement(text).mainKeyword;
    expect(main('WITH x AS (SELECT 1) SELECT * FROM x')).toBe('SELECT');
    expect(main('with recursive r(n) as (select 1 union all select n + 1 from r) select n from r')).toBe(
      'SELECT',
    );
    expect(
      main('WITH a AS MATERIALIZED (SELECT (1)), "b c" (x) AS NOT MATERIALIZED (VALUES (2)) VALUES (3)'),
    ).toBe('VALUES');
    expect(main("WITH x AS (SELECT ')') DELETE FROM t WHERE id IN x")).toBe('DELETE');
    expect(main('WITH replace AS (SELECT 1) SELECT * FROM replace')).toBe('SELECT');
    expect(main('WITH x AS (SELECT 1')).toBe('');
    expect(main('SELECT 1')).toBe('SELECT');
  });

  it('gives the statement without the comments around it and without its semicolon', () => {
    expect(readStatement('  -- why\n SELECT 1 -- the end\n ; ; -- more').body).toBe('SELECT 1');
    expect(readStatement("SELECT ';' /* inside */ FROM t;").body).toBe("SELECT ';' /* inside */ FROM t");
    expect(readStatement('; SELECT 2').body).toBe('SELECT 2');
    expect(readStatement('-- nothing').body).toBe('');
  });

  it('counts statements as countStatements does', () => {
    for (const text of ['SELECT 1', 'SELECT 1; SELECT 2', ' ; ; ', "SELECT 'a;b'; DROP TABLE t", '-- x'])
      expect(readStatement(text).count).toBe(countStatements(text));
  });
});
