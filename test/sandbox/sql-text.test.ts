import { describe, expect, it } from 'vitest';
import {
  explainableBlobs,
  splitStatements,
  statementParams,
  statementShape,
} from '../../src/sandbox/sql-text.js';

describe('splitStatements', () => {
  it.each([
    ['SELECT 1', ['SELECT 1']],
    ['SELECT 1;', ['SELECT 1']],
    ['  ;; -- only a comment\n', []],
    ['SELECT 1; SELECT 2', ['SELECT 1', 'SELECT 2']],
    ['SELECT \';\' AS semi; SELECT "a;b" FROM t', ["SELECT ';' AS semi", 'SELECT "a;b" FROM t']],
    ["SELECT 'it''s; fine'", ["SELECT 'it''s; fine'"]],
    ['SELECT 1 /* ; */ + 1', ['SELECT 1 /* ; */ + 1']],
    ['SELECT [odd;name] FROM t', ['SELECT [odd;name] FROM t']],
  ])('splits %j into %j', (sql, expected) => {
    expect(splitStatements(sql)).toEqual(expected);
  });

  it('keeps a trigger body with its semicolons as one statement', () => {
    const trigger =
      "CREATE TRIGGER t AFTER INSERT ON orders BEGIN UPDATE customers SET plan = CASE WHEN 1 THEN 'a' END; DELETE FROM x; END";
    expect(splitStatements(`${trigger}; SELECT 1`)).toEqual([trigger, 'SELECT 1']);
  });
});

describe('statementParams', () => {
  it('numbers bare, numbered and named parameters as SQLite does', () => {
    expect(statementParams('SELECT ?, :name, ?, @other, :name, $third')).toEqual([
      null,
      ':name',
      null,
      '@other',
      '$third',
    ]);
    expect(statementParams('SELECT ?3, ?1')).toEqual(['?1', null, '?3']);
    expect(statementParams("SELECT '?', ':not' -- ?")).toEqual([]);
  });
});

describe('statementShape', () => {
  it.each([
    ['BEGIN', 'deferred'],
    ['begin immediate', 'write'],
    ['BEGIN EXCLUSIVE TRANSACTION', 'write'],
    ['BEGIN TRANSACTION READONLY', 'read'],
    ['/* lead */ BEGIN READONLY', 'read'],
    ['SELECT 1', undefined],
  ])('reads %j as a %s transaction', (sql, mode) => {
    expect(statementShape(sql).begin).toBe(mode);
  });

  it('spots attempts to change query_only but not reads of it', () => {
    expect(statementShape('PRAGMA query_only = 0').setsQueryOnly).toBe(true);
    expect(statementShape('pragma main.query_only(false)').setsQueryOnly).toBe(true);
    expect(statementShape('PRAGMA "query_only"=OFF').setsQueryOnly).toBe(true);
    expect(statementShape('PRAGMA query_only').setsQueryOnly).toBe(false);
  });

  it('tells queries and EXPLAIN apart', () => {
    expect(statementShape('WITH x AS (SELECT 1) SELECT * FROM x')).toMatchObject({
      isQuery: true,
      isExplain: false,
    });
    expect(statementShape('EXPLAIN SELECT 1')).toMatchObject({ isQuery: false, isExplain: true });
    expect(statementShape('INSERT INTO t VALUES (1)').isQuery).toBe(false);
  });
});

describe('explainableBlobs', () => {
  it('reads a blob literal that is not UTF-8 as a server would list it: lossily, as UTF-8', () => {
    // DE AD is U+07AD; BE and EF are two bad sequences, each read as U+FFFD (EF BF BD).
    expect(explainableBlobs("SELECT length(x'DEADBEEF')")).toBe("SELECT length(x'deadefbfbdefbfbd')");
    expect(explainableBlobs("SELECT X'41FF' || x'ff'")).toBe("SELECT X'41efbfbd' || x'efbfbd'");
  });

  it('leaves UTF-8 blobs, strings, identifiers and malformed literals as they are', () => {
    for (const sql of [
      "SELECT x'414243', x''",
      "SELECT 'x''DEAD'",
      "SELECT ax'DEAD'",
      "SELECT x 'DEAD'",
      "SELECT x'DEA'",
      "SELECT x'ZZ'",
      "SELECT x'DEAD",
    ])
      expect(explainableBlobs(sql)).toBe(sql);
  });
});
