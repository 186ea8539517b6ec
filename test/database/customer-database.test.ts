import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CustomerDatabase, createCustomerDatabase } from '../../src/database/customer-database.js';
import { DatabaseError } from '../../src/database/errors.js';
import { SecretRegistry } from '../../src/log.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
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
