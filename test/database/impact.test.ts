/**
 * writeShape: the count it offers matches what SQLite itself then changes, and where it cannot
 * be sure it says unknown rather than guess.
 */
import { type Client, createClient } from '@libsql/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeShape } from '../../src/database/impact.js';

let db: Client;
beforeEach(async () => {
  db = createClient({ url: ':memory:' });
  await db.batch(
    [
      'CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT, total REAL, note TEXT)',
      'CREATE TABLE refunds (order_id INTEGER)',
      ...Array.from(
        { length: 40 },
        (_, i) =>
          `INSERT INTO orders VALUES (${i + 1}, '${['paid', 'void', 'open'][i % 3]}', ${i * 2.5}, ${i % 4 === 0 ? 'NULL' : `'it''s #${i}'`})`,
      ),
      'INSERT INTO refunds VALUES (3), (5), (8), (40), (99)',
    ],
    'write',
  );
});
afterEach(() => {
  db.close();
});

/** The count the shape offers, then what the statement really changes. */
async function countThenRun(sql: string): Promise<[number, number]> {
  const shape = writeShape(sql);
  expect(shape.countSql, shape.unknownWhy).toBeDefined();
  const counted = Number((await db.execute(shape.countSql!)).rows[0]![0]);
  const [result] = await db.batch([sql], 'write');
  return [counted, result!.rowsAffected];
}

describe('writeShape', () => {
  it.each([
    "DELETE FROM orders WHERE status = 'void'",
    "UPDATE orders SET status = 'paid' WHERE id IN (SELECT order_id FROM refunds)",
    'DELETE FROM orders WHERE total BETWEEN 10 AND 40 AND note IS NOT NULL',
    "UPDATE orders SET note = 'x' WHERE note LIKE 'it''s #1%' OR id = 2",
    'DELETE FROM orders AS o WHERE o.id > 35',
    "DELETE FROM main.orders WHERE status <> 'open'",
    'DELETE FROM orders',
    "UPDATE orders SET status = 'closed'",
    '/* tidy */ DELETE FROM orders WHERE id = 999',
  ])('counts what %s then changes', async (sql) => {
    const [counted, changed] = await countThenRun(sql);
    expect(counted).toBe(changed);
  });

  it('marks an UPDATE or DELETE without WHERE, and only those', () => {
    expect(writeShape('DELETE FROM orders')).toMatchObject({
      verb: 'DELETE',
      noWhere: true,
      table: 'orders',
    });
    expect(writeShape("update orders set status = 'x'")).toMatchObject({ verb: 'UPDATE', noWhere: true });
    expect(writeShape('DELETE FROM orders WHERE id = 1').noWhere).toBe(false);
    expect(writeShape("INSERT INTO orders (status) VALUES ('new')")).toEqual({
      verb: 'INSERT',
      noWhere: false,
    });
    // Unread by the parser, and still without WHERE: the warning stands.
    expect(writeShape("UPDATE OR IGNORE orders SET status = 'x'")).toMatchObject({
      noWhere: true,
      unknownWhy: expect.any(String),
    });
  });

  it.each([
    'DELETE FROM [users] -- WHERE id = 1',
    "UPDATE OR IGNORE users SET role = 'admin' /* WHERE id = 1 */",
    "UPDATE OR IGNORE users SET note = 'WHERE' ",
    'DELETE FROM [where] ',
  ])('sees no WHERE in comments, strings or quoted names: %s', (sql) => {
    expect(writeShape(sql)).toMatchObject({ noWhere: true });
  });

  it('says it cannot tell when a quote or comment never closes', () => {
    expect(writeShape("UPDATE OR IGNORE users SET note = 'open WHERE id = 1")).toMatchObject({
      noWhere: false,
      whereUnclear: true,
    });
    expect(writeShape('UPDATE OR IGNORE users SET a = 1 WHERE id = 1')).toMatchObject({ noWhere: false });
  });

  it.each([
    ['WITH gone AS (SELECT 1) DELETE FROM orders WHERE id IN (SELECT * FROM gone)', /WITH|rewrite/],
    ["UPDATE orders SET status = 'x' WHERE id > 3 LIMIT 5", /LIMIT/],
    ["DELETE FROM orders WHERE note = 'a\\' OR 1=1 --'", /backslash/],
    ["UPDATE orders SET status = 'x' FROM refunds WHERE orders.id = refunds.order_id", /rewrite/],
    ["UPDATE orders SET status = 'x' WHERE id = 1; DELETE FROM orders", /rewrite/],
    // The printer writes `- -5` as `--5`, a comment to SQLite: the count would read another WHERE.
    ["DELETE FROM orders WHERE id = - -5 OR 1 = 1 OR note = '\n0 AND 0 --'", /read back|rewrite/],
  ])('offers no count for %s', (sql, why) => {
    const shape = writeShape(sql);
    expect(shape.countSql).toBeUndefined();
    expect(shape.unknownWhy).toMatch(why);
  });
});
