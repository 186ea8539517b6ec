import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CustomerDatabase, createCustomerDatabase } from '../../src/database/customer-database.js';
import { DatabaseError } from '../../src/database/errors.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { pinnedClock } from '../support/clock.js';

const clock = pinnedClock();

let sandbox: Sandbox;
let secrets: SecretRegistry;
let database: CustomerDatabase;

beforeAll(async () => {
  sandbox = await startSandbox({ now: clock });
  secrets = new SecretRegistry();
  database = createCustomerDatabase({
    url: sandbox.databaseUrl,
    authToken: sandbox.databaseTokens.fullAccess,
    secrets,
  });
});
afterAll(async () => {
  await database.close();
  await sandbox.close();
});

async function failure(promise: Promise<unknown>): Promise<DatabaseError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof DatabaseError)) throw new Error(`expected a DatabaseError, got ${String(error)}`);
  return error;
}

const orderCount = async () => (await database.runReadOnlyQuery('SELECT count(*) FROM orders')).rows[0]?.[0];

const PipelineBodySchema = z.object({
  requests: z.array(
    z.looseObject({
      type: z.string(),
      sql: z.string().nullish(),
      stmt: z.looseObject({ sql: z.string().nullish() }).optional(),
      batch: z
        .object({ steps: z.array(z.looseObject({ stmt: z.looseObject({ sql: z.string() }) })) })
        .optional(),
    }),
  ),
});

/** What the sandbox was asked to run (not merely describe) after request number `from`. */
function executedSince(from: number): string[] {
  const texts: string[] = [];
  for (const request of sandbox.requests.byRoute('database.pipeline')) {
    if (request.seq <= from) continue;
    const body = PipelineBodySchema.parse(request.body);
    for (const item of body.requests) {
      if (item.type === 'describe' || item.type === 'close') continue;
      if (item.batch) {
        texts.push(...item.batch.steps.map((step) => step.stmt.sql));
        continue;
      }
      texts.push(item.sql ?? item.stmt?.sql ?? JSON.stringify(item));
    }
  }
  return texts;
}

const lastSeq = () => sandbox.requests.all().at(-1)?.seq ?? 0;

describe('read-only queries on the customer database', () => {
  it('returns columns and rows, with integers beyond 2^53 exact and blobs as bytes', async () => {
    const result = await database.runReadOnlyQuery(
      'SELECT o.id, o.external_ref, c.avatar, o.note FROM orders o JOIN customers c ON c.id = 1 WHERE o.id = 7',
    );
    expect(result.columns).toEqual(['id', 'external_ref', 'avatar', 'note']);
    const [id, ref, avatar, note] = result.rows[0] ?? [];
    expect(id).toBe(7n);
    expect(ref).toBe(9007199254740993n);
    expect(avatar).toBeInstanceOf(ArrayBuffer);
    expect((avatar as ArrayBuffer).byteLength).toBe(4);
    expect(note).toBeNull();
  });

  it('refuses a write with a full-access token before anything runs', async () => {
    const before = lastSeq();
    const error = await failure(database.runReadOnlyQuery('DELETE FROM orders'));
    expect(error.kind).toBe('refused');
    expect(error.code).toBe('NOT_READ_ONLY');
    expect(error.userMessage).toContain('/edge db exec');
    expect(executedSince(before)).toEqual([]);
    expect(await orderCount()).toBe(30n);
  });

  it('still refuses a write the server wrongly describes as read-only: it runs in a read transaction', async () => {
    // The transport answers describe with a lie; everything else goes to the sandbox unchanged.
    const lying: typeof fetch = async (input, init) => {
      if (
        typeof input === 'string' &&
        input.endsWith('/v2/pipeline') &&
        String(init?.body).includes('"describe"')
      )
        return new Response(
          JSON.stringify({
            baton: null,
            base_url: null,
            results: [
              {
                type: 'ok',
                response: {
                  type: 'describe',
                  result: { params: [], cols: [], is_explain: false, is_readonly: true },
                },
              },
              { type: 'ok', response: { type: 'close' } },
            ],
          }),
          { status: 200, headers: { 'content-type': 'application/json' } },
        );
      return fetch(input, init);
    };
    const fooled = createCustomerDatabase({
      url: sandbox.databaseUrl,
      authToken: sandbox.databaseTokens.fullAccess,
      secrets,
      fetch: lying,
    });
    const refunded = async () =>
      (await database.runReadOnlyQuery("SELECT count(*) FROM orders WHERE status = 'refunded'")).rows[0]?.[0];
    const before = await refunded();
    // WITH passes the keyword check, so only describe and the read transaction stand in the way.
    const error = await failure(
      fooled.runReadOnlyQuery("WITH t AS (SELECT 1) UPDATE orders SET status = 'refunded'"),
    );
    expect(error.code).toBe('SQLITE_READONLY');
    expect(error.userMessage).toContain('Only read-only statements');
    expect(before).not.toBe(30n);
    expect(await refunded()).toBe(before);
  });

  it('refuses a data change by its first keyword, naming the rule and /edge db exec, before anything is sent', async () => {
    const before = sandbox.requests.count('database.pipeline');
    for (const sql of [
      'INSERT INTO orders (id) VALUES (99)',
      '/* note */ (UPDATE orders SET total = 0)',
      'drop table orders',
    ]) {
      const error = await failure(database.runReadOnlyQuery(sql));
      expect(error.kind).toBe('refused');
      expect(error.code).toBe('NOT_READ_ONLY');
      expect(error.userMessage).toContain('starts with SELECT, WITH, VALUES or EXPLAIN');
      expect(error.userMessage).toContain('/edge db exec');
    }
    expect(sandbox.requests.count('database.pipeline')).toBe(before);
    expect(await orderCount()).toBe(30n);
  });

  it('refuses statements that are neither reads nor changes in query and in exec alike, before anything is sent', async () => {
    const before = sandbox.requests.count('database.pipeline');
    const statements = [
      "ATTACH DATABASE '/tmp/edgeops-never.db' AS elsewhere",
      'DETACH elsewhere',
      'PRAGMA writable_schema = ON',
      'pragma foreign_keys = OFF',
      'BEGIN',
      'COMMIT',
      'END',
      'ROLLBACK',
      'SAVEPOINT s1',
      'RELEASE s1',
      'VACUUM',
      'ANALYZE',
      'REINDEX',
    ];
    for (const sql of statements) {
      const keyword = sql.split(' ')[0]!.toUpperCase();
      for (const run of [database.runReadOnlyQuery, database.checkStatement, database.runWrite]) {
        const error = await failure(run(sql));
        expect(error.kind).toBe('refused');
        expect(error.code).toBe('STATEMENT_NOT_RUN');
        expect(error.userMessage).toContain(`/edge does not run ${keyword} statements`);
        expect(error.userMessage).not.toContain('/edge db exec');
        expect(error.userMessage).not.toContain('/edge db query');
      }
    }
    expect(sandbox.requests.count('database.pipeline')).toBe(before);
  });

  it('refuses a statement the database accepts when it does not start like a query', async () => {
    // The transport answers describe with "read-only" for anything, as a lenient server might.
    const lenient: typeof fetch = async (input, init) =>
      typeof input === 'string' && String(init?.body).includes('"describe"')
        ? new Response(
            JSON.stringify({
              baton: null,
              base_url: null,
              results: [
                {
                  type: 'ok',
                  response: { type: 'describe', result: { is_explain: false, is_readonly: true } },
                },
                { type: 'ok', response: { type: 'close' } },
              ],
            }),
            { status: 200, headers: { 'content-type': 'application/json' } },
          )
        : fetch(input, init);
    const lenientDatabase = createCustomerDatabase({
      url: sandbox.databaseUrl,
      authToken: sandbox.databaseTokens.fullAccess,
      secrets,
      fetch: lenient,
    });
    const before = lastSeq();
    const error = await failure(lenientDatabase.runReadOnlyQuery('SHOW TABLES'));
    expect(error.code).toBe('NOT_A_QUERY');
    expect(error.userMessage).toContain(
      'starts with SELECT, WITH, VALUES or EXPLAIN; this one starts with SHOW',
    );
    expect(executedSince(before)).toEqual([]);
  });

  it('refuses several statements without sending any of them', async () => {
    const before = sandbox.requests.count('database.pipeline');
    const error = await failure(database.runReadOnlyQuery('SELECT 1; DELETE FROM orders'));
    expect(error.code).toBe('SQL_MANY_STATEMENTS');
    expect(sandbox.requests.count('database.pipeline')).toBe(before);
  });

  it('reports a statement the database cannot parse with its code', async () => {
    const error = await failure(database.runReadOnlyQuery('SELEC id FROM orders'));
    expect(error.kind).toBe('statement');
    expect(error.userMessage).toMatch(/could not be parsed: near "SELEC".*\(code SQL_PARSE_ERROR\)/);
  });

  it('abandons a query that outlives its deadline', async () => {
    const quick = createCustomerDatabase({
      url: sandbox.databaseUrl,
      authToken: sandbox.databaseTokens.fullAccess,
      secrets,
      timeoutMs: 100,
    });
    sandbox.faults.set('database.pipeline', { delayMs: 350, times: 1 });
    const started = performance.now();
    const error = await failure(quick.runReadOnlyQuery('SELECT 1'));
    expect(performance.now() - started).toBeLessThan(300);
    expect(error.kind).toBe('timeout');
    expect(error.userMessage).toContain('abandoned after 100 ms');
    // The sandbox goes on handling the abandoned request after its delay; let it finish before closing.
    await sleep(Math.max(0, 400 - (performance.now() - started)));
  });

  it('names SERVICE_DATABASE_AUTH_TOKEN for a refused token and never repeats the token', async () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.not-a-valid-token.0123456789';
    const refused = createCustomerDatabase({ url: sandbox.databaseUrl, authToken: token, secrets });
    expect(secrets.values()).toContain(token);
    const error = await failure(refused.runReadOnlyQuery('SELECT 1'));
    expect(error.kind).toBe('unauthorized');
    expect(error.userMessage).toContain('SERVICE_DATABASE_AUTH_TOKEN');
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain(token);
  });

  it('accepts the token as an authToken URL parameter and registers it as a secret', async () => {
    const token = sandbox.databaseTokens.readOnly;
    const own = new SecretRegistry();
    const fromUrl = createCustomerDatabase({
      url: `${sandbox.databaseUrl}?authToken=${token}`,
      secrets: own,
    });
    expect(own.values()).toContain(token);
    const result = await fromUrl.runReadOnlyQuery('SELECT name FROM customers WHERE id = 2');
    expect(result.rows).toEqual([['Grace Hopper']]);
  });
});

describe('bounded query results', () => {
  const limited = (limits: { maxRows?: number; maxBytes?: number }) =>
    createCustomerDatabase({
      url: sandbox.databaseUrl,
      authToken: sandbox.databaseTokens.readOnly,
      secrets,
      limits,
    });

  it('runs a query wrapped with a row cap and says where it stopped', async () => {
    const before = lastSeq();
    const result = await limited({ maxRows: 5 }).runReadOnlyQuery('SELECT id FROM orders ORDER BY id DESC');
    expect(result.rows).toEqual([[30n], [29n], [28n], [27n], [26n]]);
    expect(result.stopped).toEqual({ cap: 'rows', limit: 5 });
    expect(executedSince(before)).toEqual([
      'BEGIN TRANSACTION READONLY',
      'SELECT * FROM (\nSELECT id FROM orders ORDER BY id DESC\n) LIMIT 6',
      'COMMIT',
      'ROLLBACK',
    ]);
  });

  it('bounds a result that never ends at the source', async () => {
    const result = await limited({ maxRows: 1000 }).runReadOnlyQuery(
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r',
    );
    expect(result.rows).toHaveLength(1000);
    expect(result.rows.at(-1)).toEqual([1000n]);
    expect(result.stopped).toEqual({ cap: 'rows', limit: 1000 });
  });

  it('keeps a result of exactly the cap whole', async () => {
    const result = await limited({ maxRows: 5 }).runReadOnlyQuery(
      'SELECT id FROM orders ORDER BY id LIMIT 5;',
    );
    expect(result.rows).toHaveLength(5);
    expect(result.stopped).toBeUndefined();
  });

  it('stops before the bytes of values pass their cap, keeping the rows read', async () => {
    // Each row holds 100 bytes of text and a one-digit-to-three-digit number.
    const result = await limited({ maxBytes: 2048 }).runReadOnlyQuery(
      "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100) SELECT n, printf('%.100c', 'x') AS pad FROM r",
    );
    expect(result.columns).toEqual(['n', 'pad']);
    expect(result.rows).toHaveLength(20);
    expect(result.stopped).toEqual({ cap: 'bytes', limit: 2048 });
  });

  it('keeps column names, order and types through the wrap, for WITH and VALUES too', async () => {
    const database = limited({});
    const named = await database.runReadOnlyQuery(
      'WITH recent AS (SELECT id, status FROM orders ORDER BY id DESC LIMIT 3) SELECT id AS "order", status FROM recent ORDER BY id',
    );
    expect(named.columns).toEqual(['order', 'status']);
    expect(named.rows.map((row) => row[0])).toEqual([28n, 29n, 30n]);
    // As in any SQLite subquery, a repeated name gets a suffix.
    const repeated = await database.runReadOnlyQuery(
      'SELECT o.id, c.id FROM orders o JOIN customers c ON c.id = o.customer_id LIMIT 1',
    );
    expect(repeated.columns).toEqual(['id', 'id:1']);
    const values = await database.runReadOnlyQuery("VALUES (1, 'a', 2.5, NULL) -- a comment");
    expect(values.rows).toEqual([[1n, 'a', 2.5, null]]);
  });

  it('runs EXPLAIN as it is, and stops reading its output at the same caps', async () => {
    const before = lastSeq();
    const result = await limited({ maxRows: 3 }).runReadOnlyQuery('EXPLAIN SELECT * FROM orders');
    expect(result.columns).toContain('opcode');
    expect(result.rows).toHaveLength(3);
    expect(result.stopped).toEqual({ cap: 'rows', limit: 3 });
    expect(executedSince(before)).toContain('EXPLAIN SELECT * FROM orders');
  });

  it('reports a failure to store the rows as it is, not as a database error', async () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const failure = await limited({})
      .streamReadOnlyQuery('SELECT id FROM orders', {
        columns: () => {},
        row: () => {
          throw full;
        },
      })
      .catch((error: unknown) => error);
    expect(failure).toBe(full);
  });
});
