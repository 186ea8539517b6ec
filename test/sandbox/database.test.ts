import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, LibsqlError } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HranaValueSchema } from '../../src/database/hrana-value.js';
import { DatabaseApiErrorSchema, GeneratedTokenSchema } from '../../src/platform/schemas.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { type Clock, NOW, startTestSandbox } from './harness.js';

let sandbox: Sandbox;
let clock: Clock;

beforeAll(async () => {
  ({ sandbox, clock } = await startTestSandbox());
});
afterAll(async () => {
  await sandbox.close();
});

const clientFor = (authToken: string) =>
  createClient({ url: sandbox.databaseUrl, authToken, intMode: 'bigint' });

const ErrorSchema = z.object({ message: z.string(), code: z.string() });
const StmtResultSchema = z.object({
  cols: z.array(z.object({ name: z.string().nullable(), decltype: z.string().nullable() })),
  rows: z.array(z.array(HranaValueSchema)),
  affected_row_count: z.number(),
  last_insert_rowid: z.string().nullable(),
});
const DescribeResultSchema = z.object({
  params: z.array(z.object({ name: z.string().nullable() })),
  cols: z.array(z.object({ name: z.string(), decltype: z.string().nullable() })),
  is_explain: z.boolean(),
  is_readonly: z.boolean(),
});
const BatchResultSchema = z.object({
  step_results: z.array(StmtResultSchema.nullable()),
  step_errors: z.array(ErrorSchema.nullable()),
});
const PipelineResponseSchema = z.object({
  baton: z.string().nullable(),
  base_url: z.string().nullable(),
  results: z.array(
    z.discriminatedUnion('type', [
      z.object({
        type: z.literal('ok'),
        response: z.looseObject({ type: z.string(), result: z.unknown().optional() }),
      }),
      z.object({ type: z.literal('error'), error: ErrorSchema }),
    ]),
  ),
});
type PipelineResponse = z.infer<typeof PipelineResponseSchema>;

/** The `result` of the i-th response, read with `schema`; fails the test when that request failed. */
function resultOf<T>(body: PipelineResponse, index: number, schema: z.ZodType<T>): T {
  const entry = body.results[index];
  if (entry?.type !== 'ok') throw new Error(`request ${index} failed: ${JSON.stringify(entry)}`);
  return schema.parse(entry.response.result);
}
const codes = (body: PipelineResponse) =>
  body.results.map((result) => (result.type === 'error' ? result.error.code : 'ok'));
const firstCell = (body: PipelineResponse, index: number) =>
  resultOf(body, index, StmtResultSchema).rows[0]?.[0];

/** A raw Hrana request, for what the client library does not expose. */
async function pipeline(body: unknown, token = sandbox.databaseTokens.fullAccess, to: Sandbox = sandbox) {
  const response = await fetch(`${to.databaseUrl}/v2/pipeline`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text,
    json: () => PipelineResponseSchema.parse(JSON.parse(text)),
  };
}

const execute = (sql: string, args: unknown[] = []) => ({ type: 'execute', stmt: { sql, args } });

describe('@libsql/client against the sandbox', () => {
  it('runs a query and returns typed rows', async () => {
    const client = clientFor(sandbox.databaseTokens.fullAccess);
    try {
      const result = await client.execute({
        sql: 'SELECT id, name, avatar FROM customers WHERE id = ?',
        args: [1n],
      });
      expect(result.columns).toEqual(['id', 'name', 'avatar']);
      expect(result.columnTypes).toEqual(['INTEGER', 'TEXT', 'BLOB']);
      expect(result.rows[0]?.id).toBe(1n);
      expect(result.rows[0]?.name).toBe('Ada Lovelace');
      expect(new Uint8Array(result.rows[0]?.avatar as ArrayBuffer)).toEqual(
        new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
      );
    } finally {
      client.close();
    }
  });

  it('carries integers past 2^53 exactly, both ways', async () => {
    const client = clientFor(sandbox.databaseTokens.fullAccess);
    try {
      const seeded = await client.execute('SELECT external_ref FROM orders WHERE id = 7');
      expect(seeded.rows[0]?.external_ref).toBe(9007199254740993n);
      const echoed = await client.execute({
        sql: 'SELECT ? AS big, ? AS small',
        args: [9223372036854775807n, -9007199254740995n],
      });
      expect(echoed.rows[0]?.big).toBe(9223372036854775807n);
      expect(echoed.rows[0]?.small).toBe(-9007199254740995n);
      const inserted = await client.execute({
        sql: "INSERT INTO customers (id, name, email, country, created_at) VALUES (?, 'Big', 'big@example.com', 'DE', 'now')",
        args: [9007199254740995n],
      });
      expect(inserted.lastInsertRowid).toBe(9007199254740995n);
      await client.execute({ sql: 'DELETE FROM customers WHERE id = ?', args: [9007199254740995n] });
    } finally {
      client.close();
    }
  });

  it('runs a write batch in one transaction', async () => {
    const client = clientFor(sandbox.databaseTokens.fullAccess);
    try {
      const results = await client.batch(
        [
          "INSERT INTO orders (customer_id, placed_at, status, total) VALUES (2, '2026-11-21', 'paid', 10.5)",
          "INSERT INTO orders (customer_id, placed_at, status, total) VALUES (2, '2026-11-21', 'paid', 20)",
          'SELECT count(*) AS n FROM orders WHERE placed_at = ?',
        ].map((sql, index) => (index === 2 ? { sql, args: ['2026-11-21'] } : sql)),
        'write',
      );
      expect(results[0]?.rowsAffected).toBe(1);
      expect(results[2]?.rows[0]?.n).toBe(2n);
      await expect(
        client.batch(
          ["DELETE FROM orders WHERE placed_at = '2026-11-21'", "INSERT INTO orders (status) VALUES ('x')"],
          'write',
        ),
      ).rejects.toThrow(/NOT NULL|CHECK/);
      const after = await client.execute("SELECT count(*) AS n FROM orders WHERE placed_at = '2026-11-21'");
      expect(after.rows[0]?.n).toBe(2n);
      await client.execute("DELETE FROM orders WHERE placed_at = '2026-11-21'");
    } finally {
      client.close();
    }
  });

  it('refuses a write inside a read transaction while reads work', async () => {
    const client = clientFor(sandbox.databaseTokens.fullAccess);
    try {
      const transaction = await client.transaction('read');
      const read = await transaction.execute('SELECT count(*) AS n FROM orders');
      expect(read.rows[0]?.n).toBe(30n);
      await expect(transaction.execute('DELETE FROM orders')).rejects.toMatchObject({
        code: 'SQLITE_READONLY',
      });
      expect((await transaction.execute('SELECT count(*) AS n FROM orders')).rows[0]?.n).toBe(30n);
      await transaction.commit();
      expect((await client.execute('SELECT count(*) AS n FROM orders')).rows[0]?.n).toBe(30n);
    } finally {
      client.close();
    }
  });

  it('refuses writes from a read-only token and lets it read', async () => {
    const client = clientFor(sandbox.databaseTokens.readOnly);
    try {
      expect((await client.execute('SELECT count(*) AS n FROM customers')).rows[0]?.n).toBe(10n);
      await expect(client.execute("UPDATE customers SET name = 'x'")).rejects.toMatchObject({
        code: 'SQLITE_READONLY',
      });
      await expect(client.batch(["UPDATE customers SET name = 'x'"], 'write')).rejects.toMatchObject({
        code: 'SQLITE_READONLY',
      });
      await expect(client.execute('CREATE TEMP TABLE scratch (x)')).rejects.toMatchObject({
        code: 'SQLITE_READONLY',
      });
      const transaction = await client.transaction('read');
      expect((await transaction.execute('SELECT count(*) AS n FROM orders')).rows[0]?.n).toBe(30n);
      await transaction.commit();
    } finally {
      client.close();
    }
  });

  it('answers a bad token with 401, which the client raises as LibsqlError', async () => {
    const client = clientFor('not-a-token');
    try {
      const failure = await client.execute('SELECT 1').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(LibsqlError);
      expect(String((failure as LibsqlError).message)).toContain('401');
    } finally {
      client.close();
    }
  });

  it('reports statement errors with sqld codes', async () => {
    const client = clientFor(sandbox.databaseTokens.fullAccess);
    try {
      await expect(client.execute('SELEC 1')).rejects.toMatchObject({ code: 'SQL_PARSE_ERROR' });
      await expect(client.execute('SELECT 1; SELECT 2')).rejects.toMatchObject({
        code: 'SQL_MANY_STATEMENTS',
      });
      await expect(client.execute('SELECT * FROM missing')).rejects.toMatchObject({ code: 'SQLITE_UNKNOWN' });
      await expect(
        client.execute(
          "INSERT INTO customers (id, name, email, country, created_at) VALUES (1, 'a', 'b', 'c', 'd')",
        ),
      ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT' });
    } finally {
      client.close();
    }
  });
});

describe('the Hrana pipeline', () => {
  it('describes SELECT as read-only and INSERT as not, with parameters and columns', async () => {
    const { status, json } = await pipeline({
      requests: [
        { type: 'describe', sql: 'SELECT id, email FROM customers WHERE country = :country AND id > ?2' },
        {
          type: 'describe',
          sql: 'INSERT INTO orders (customer_id, placed_at, status, total) VALUES (?, ?, ?, ?)',
        },
        { type: 'describe', sql: 'EXPLAIN SELECT 1' },
        { type: 'close' },
      ],
    });
    expect(status).toBe(200);
    const body = json();
    const [select, insert, explain] = [0, 1, 2].map((index) => resultOf(body, index, DescribeResultSchema));
    expect(select).toEqual({
      params: [{ name: ':country' }, { name: '?2' }],
      cols: [
        { name: 'id', decltype: 'INTEGER' },
        { name: 'email', decltype: 'TEXT' },
      ],
      is_explain: false,
      is_readonly: true,
    });
    expect(insert).toMatchObject({
      is_readonly: false,
      is_explain: false,
      params: [{ name: null }, { name: null }, { name: null }, { name: null }],
    });
    expect(explain).toMatchObject({ is_readonly: true, is_explain: true });
  });

  it('encodes every value type as Hrana does', async () => {
    const { json } = await pipeline({
      requests: [
        execute('SELECT ? AS i, ? AS f, ? AS t, ? AS b, ? AS n', [
          { type: 'integer', value: '-42' },
          { type: 'float', value: 2.5 },
          { type: 'text', value: '<!channel>' },
          { type: 'blob', base64: 'AQI' },
          { type: 'null' },
        ]),
        { type: 'close' },
      ],
    });
    expect(resultOf(json(), 0, StmtResultSchema).rows).toEqual([
      [
        { type: 'integer', value: '-42' },
        { type: 'float', value: 2.5 },
        { type: 'text', value: '<!channel>' },
        { type: 'blob', base64: 'AQI' },
        { type: 'null' },
      ],
    ]);
    expect(json().baton).toBeNull();
  });

  it('lets a stream whose BEGIN meets another writer wait its turn, then write and commit', async () => {
    const writer = (await pipeline({ requests: [execute('BEGIN IMMEDIATE')] })).json();
    // As a server's busy timeout does: the second BEGIN waits for the first writer instead of failing.
    const waiting = pipeline({
      requests: [
        execute('BEGIN IMMEDIATE'),
        execute("UPDATE customers SET plan = 'waited' WHERE id = 4"),
        execute('COMMIT'),
        { type: 'close' },
      ],
    });
    const done = (
      await pipeline({
        baton: writer.baton,
        requests: [
          execute("UPDATE customers SET plan = 'first' WHERE id = 4"),
          execute('COMMIT'),
          { type: 'close' },
        ],
      })
    ).json();
    expect(codes(done)).toEqual(['ok', 'ok', 'ok']);
    expect(codes((await waiting).json())).toEqual(['ok', 'ok', 'ok', 'ok']);
    const read = (
      await pipeline({ requests: [execute('SELECT plan FROM customers WHERE id = 4'), { type: 'close' }] })
    ).json();
    expect(firstCell(read, 0)).toEqual({ type: 'text', value: 'waited' });
  });

  it('answers SQLITE_BUSY when the other writer holds the lock past the busy timeout, and the stream can retry', async () => {
    const { sandbox: quick } = await startTestSandbox({ databaseBusyTimeoutMs: 100 });
    try {
      const send = async (body: unknown) =>
        (await pipeline(body, quick.databaseTokens.fullAccess, quick)).json();
      const writer = await send({ requests: [execute('BEGIN IMMEDIATE')] });
      const waiting = await send({ requests: [execute('BEGIN IMMEDIATE')] });
      expect(codes(waiting)).toEqual(['SQLITE_BUSY']);
      expect(
        codes(await send({ baton: writer.baton, requests: [execute('COMMIT'), { type: 'close' }] })),
      ).toEqual(['ok', 'ok']);
      const retried = await send({
        baton: waiting.baton,
        requests: [
          execute('BEGIN IMMEDIATE'),
          execute("UPDATE customers SET plan = 'retried' WHERE id = 4"),
          execute('COMMIT'),
          { type: 'close' },
        ],
      });
      expect(codes(retried)).toEqual(['ok', 'ok', 'ok', 'ok']);
    } finally {
      await quick.close();
    }
  });

  it('serves 40 write transactions from 4 clients at once without a busy error', async () => {
    const clients = Array.from({ length: 4 }, () => clientFor(sandbox.databaseTokens.fullAccess));
    try {
      await clients[0]!.execute('CREATE TABLE burst (n INTEGER)');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 40 }, (_, n) =>
          clients[n % 4]!.batch(
            [{ sql: 'INSERT INTO burst VALUES (?)', args: [n] }, 'SELECT count(*) FROM burst'],
            'write',
          ),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
      expect((await clients[1]!.execute('SELECT count(*) AS n FROM burst')).rows[0]?.n).toBe(40n);
      await clients[0]!.execute('DROP TABLE burst');
    } finally {
      for (const client of clients) client.close();
    }
  }, 60_000);

  it('keeps a stream open with a baton, isolated from other streams until commit', async () => {
    const opened = (
      await pipeline({
        requests: [execute('BEGIN IMMEDIATE'), execute("UPDATE customers SET plan = 'vip' WHERE id = 3")],
      })
    ).json();
    expect(opened.baton).toEqual(expect.any(String));
    const other = (
      await pipeline({ requests: [execute('SELECT plan FROM customers WHERE id = 3'), { type: 'close' }] })
    ).json();
    expect(firstCell(other, 0)).not.toEqual({ type: 'text', value: 'vip' });
    const committed = (
      await pipeline({
        baton: opened.baton,
        requests: [execute('SELECT plan FROM customers WHERE id = 3'), execute('COMMIT'), { type: 'close' }],
      })
    ).json();
    expect(firstCell(committed, 0)).toEqual({ type: 'text', value: 'vip' });
    expect(committed.baton).toBeNull();
  });

  it('refuses a baton used twice with 400', async () => {
    const opened = (await pipeline({ requests: [execute('SELECT 1')] })).json();
    expect((await pipeline({ baton: opened.baton, requests: [execute('SELECT 2')] })).status).toBe(200);
    const reused = await pipeline({ baton: opened.baton, requests: [execute('SELECT 3')] });
    expect(reused.status).toBe(400);
    expect(reused.contentType).toBe('text/plain');
  });

  it('expires an idle stream after ten seconds', async () => {
    const opened = (await pipeline({ requests: [execute('BEGIN'), execute('SELECT 1')] })).json();
    clock.now += 11_000;
    try {
      const late = await pipeline({ baton: opened.baton, requests: [execute('COMMIT')] });
      expect(late.status).toBe(500);
      expect(late.contentType).toBe('application/json');
      expect(JSON.parse(late.text)).toEqual({
        message: 'The stream has expired due to inactivity',
        code: 'STREAM_EXPIRED',
      });
    } finally {
      clock.now = NOW;
    }
  });

  it('evaluates batch conditions: ok, error, not, and, or, is_autocommit', async () => {
    const step = (sql: string, condition?: unknown) => ({ condition, stmt: { sql } });
    const { json } = await pipeline({
      requests: [
        {
          type: 'batch',
          batch: {
            steps: [
              step('SELECT 1'),
              step('SELECT * FROM missing'),
              step('SELECT 3', { type: 'ok', step: 1 }),
              step('SELECT 4', { type: 'error', step: 1 }),
              step('SELECT 5', {
                type: 'and',
                conds: [
                  { type: 'ok', step: 0 },
                  { type: 'not', cond: { type: 'ok', step: 1 } },
                ],
              }),
              step('SELECT 6', {
                type: 'or',
                conds: [
                  { type: 'ok', step: 2 },
                  { type: 'ok', step: 1 },
                ],
              }),
              step('SELECT 7', { type: 'is_autocommit' }),
            ],
          },
        },
        { type: 'close' },
      ],
    });
    const result = resultOf(json(), 0, BatchResultSchema);
    const ran = result.step_results.map((entry) => entry !== null);
    expect(ran).toEqual([true, false, false, true, true, false, true]);
    expect(result.step_errors[1]).toMatchObject({ code: 'SQLITE_UNKNOWN' });
  });

  it('runs sequences and stored SQL', async () => {
    const { json } = await pipeline({
      requests: [
        {
          type: 'sequence',
          sql: 'CREATE TEMP TABLE seq (x); INSERT INTO seq VALUES (1); INSERT INTO seq VALUES (2);',
        },
        { type: 'store_sql', sql_id: 5, sql: 'SELECT sum(x) FROM seq' },
        { type: 'execute', stmt: { sql_id: 5 } },
        { type: 'close_sql', sql_id: 5 },
        { type: 'describe', sql: '  -- nothing here' },
        { type: 'close' },
      ],
    });
    const body = json();
    expect(codes(body)).toEqual(['ok', 'ok', 'ok', 'ok', 'SQL_NO_STATEMENT', 'ok']);
    expect(firstCell(body, 2)).toEqual({ type: 'integer', value: '3' });
  });

  it('refuses a reference to SQL that was never stored with 400', async () => {
    expect((await pipeline({ requests: [{ type: 'execute', stmt: { sql_id: 99 } }] })).status).toBe(400);
    expect((await pipeline({ requests: [{ type: 'get_autocommit' }] })).status).toBe(400);
  });

  it('refuses writes after BEGIN READONLY and allows them again after COMMIT', async () => {
    const { json } = await pipeline({
      requests: [
        execute('BEGIN READONLY'),
        execute("UPDATE customers SET plan = 'free' WHERE id = 4"),
        execute('COMMIT'),
        execute('UPDATE customers SET plan = plan WHERE id = 4'),
        { type: 'close' },
      ],
    });
    expect(codes(json())).toEqual(['ok', 'SQLITE_READONLY', 'ok', 'ok', 'ok']);
  });

  it('does not let a read-only token lift the guard', async () => {
    const { json } = await pipeline(
      {
        requests: [
          execute('PRAGMA query_only = 0'),
          execute("UPDATE customers SET plan = 'x'"),
          { type: 'close' },
        ],
      },
      sandbox.databaseTokens.readOnly,
    );
    expect(codes(json())).toEqual(['SQLITE_AUTH', 'SQLITE_READONLY', 'ok']);
  });

  it('answers the version probe and refuses missing tokens with an sqld-style 401', async () => {
    expect((await fetch(`${sandbox.databaseUrl}/v2`)).status).toBe(200);
    const response = await fetch(`${sandbox.databaseUrl}/v2/pipeline`, {
      method: 'POST',
      body: '{"requests":[]}',
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/^Unauthorized: /) });
  });
});

describe('database token management', () => {
  let own: Sandbox;
  let ownClock: Clock;
  beforeAll(async () => {
    ({ sandbox: own, clock: ownClock } = await startTestSandbox());
  });
  afterAll(async () => {
    await own.close();
  });

  const manage = (method: string, path: string, body?: unknown, key = own.apiKey) =>
    fetch(`${own.databaseApiUrl}/v2/databases/${path}`, {
      method,
      headers: { AccessKey: key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const works = async (token: string) => {
    const client = createClient({ url: own.databaseUrl, authToken: token });
    try {
      await client.execute('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      client.close();
    }
  };

  it('generates tokens of both kinds that the database accepts', async () => {
    const response = await manage('PUT', `${own.databaseId}/auth/generate`, { authorization: 'read-only' });
    expect(response.status).toBe(200);
    const generated = GeneratedTokenSchema.parse(await response.json());
    expect(generated.expires_at).toBeNull();
    expect(await works(generated.token)).toBe(true);
  });

  it('stops accepting a token after its expiry', async () => {
    const expiresAt = new Date(NOW + 60_000).toISOString();
    const response = await manage('PUT', `${own.databaseId}/auth/generate`, {
      authorization: 'full-access',
      expires_at: expiresAt,
    });
    const generated = GeneratedTokenSchema.parse(await response.json());
    expect(generated.expires_at).toBe(expiresAt);
    expect(await works(generated.token)).toBe(true);
    ownClock.now = NOW + 61_000;
    try {
      expect(await works(generated.token)).toBe(false);
    } finally {
      ownClock.now = NOW;
    }
  });

  it.each([
    [{ authorization: 'admin' }],
    [{ authorization: 'read-only', expires_at: 'tomorrow' }],
    [{ authorization: 'read-only', expires_at: new Date(NOW - 1000).toISOString() }],
    [{}],
  ])('refuses %j with 400 and an error message', async (body) => {
    const response = await manage('PUT', `${own.databaseId}/auth/generate`, body);
    expect(response.status).toBe(400);
    expect(DatabaseApiErrorSchema.parse(await response.json()).error).toBeTruthy();
  });

  it('answers an unknown database with 404 and a missing key with 401, both with {error}', async () => {
    const missing = await manage('PUT', 'db_NOPE/auth/generate', { authorization: 'read-only' });
    expect(missing.status).toBe(404);
    expect(DatabaseApiErrorSchema.parse(await missing.json()).error).toContain('db_NOPE');
    const unauthorised = await manage('POST', `${own.databaseId}/auth/revoke`, undefined, 'wrong');
    expect(unauthorised.status).toBe(401);
    expect(DatabaseApiErrorSchema.parse(await unauthorised.json()).error).toBeTruthy();
    expect(await works(own.databaseTokens.fullAccess)).toBe(true);
  });

  it('invalidates every existing token on revoke', async () => {
    const fresh = GeneratedTokenSchema.parse(
      await (await manage('PUT', `${own.databaseId}/auth/generate`, { authorization: 'full-access' })).json(),
    );
    const response = await manage('POST', `${own.databaseId}/auth/revoke`);
    expect(response.status).toBe(204);
    for (const token of [fresh.token, own.databaseTokens.fullAccess, own.databaseTokens.readOnly]) {
      expect(await works(token)).toBe(false);
    }
    const after = GeneratedTokenSchema.parse(
      await (await manage('PUT', `${own.databaseId}/auth/generate`, { authorization: 'full-access' })).json(),
    );
    expect(await works(after.token)).toBe(true);
  });
});

describe('a database file given by path', () => {
  it('is seeded once and keeps its data across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-db-test-'));
    try {
      const databasePath = `file:${join(dir, 'kept.db')}`;
      const first = (await startTestSandbox({ databasePath })).sandbox;
      const writer = createClient({ url: first.databaseUrl, authToken: first.databaseTokens.fullAccess });
      await writer.execute("UPDATE customers SET plan = 'kept' WHERE id = 5");
      writer.close();
      await first.close();

      const second = (await startTestSandbox({ databasePath })).sandbox;
      const reader = createClient({ url: second.databaseUrl, authToken: second.databaseTokens.readOnly });
      const result = await reader.execute(
        'SELECT count(*) AS n, max(plan) FILTER (WHERE id = 5) AS plan FROM customers',
      );
      reader.close();
      await second.close();
      expect(result.rows[0]).toMatchObject({ n: 10, plan: 'kept' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Counts for minutes: far past any wait here, and still ends should a regression block the loop. */
const RUNAWAY =
  'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000000) SELECT count(*) FROM r';

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('statements that do not end', () => {
  it('stops a statement whose client went away, and answers the next query meanwhile served by a new process', async () => {
    const { sandbox: own } = await startTestSandbox();
    try {
      const client = createClient({
        url: own.databaseUrl,
        authToken: own.databaseTokens.readOnly,
        intMode: 'bigint',
      });
      expect((await client.execute('SELECT count(*) AS n FROM customers')).rows[0]?.n).toBe(10n);
      client.close();
      const first = own.databaseProcessId();
      expect(first).toBeDefined();
      const gone = new AbortController();
      const runaway = fetch(`${own.databaseUrl}/v2/pipeline`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${own.databaseTokens.readOnly}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ requests: [execute(RUNAWAY), { type: 'close' }] }),
        signal: gone.signal,
      }).catch((error: unknown) => error);
      // The sandbox keeps answering other listeners while the statement runs.
      const zones = await fetch(`${own.apiUrl}/dnszone`, { headers: { AccessKey: own.apiKey } });
      expect(zones.status).toBe(200);
      // Only a statement the database process already runs has a process to stop.
      await expect.poll(() => own.databaseStatementsRunning(), { timeout: 5_000 }).toBe(1);
      gone.abort();
      expect(await runaway).toBeInstanceOf(Error);
      await expect.poll(() => isRunning(first!), { timeout: 10_000 }).toBe(false);
      const again = createClient({
        url: own.databaseUrl,
        authToken: own.databaseTokens.readOnly,
        intMode: 'bigint',
      });
      try {
        expect((await again.execute('SELECT count(*) AS n FROM orders')).rows[0]?.n).toBe(30n);
      } finally {
        again.close();
      }
      expect(own.databaseProcessId()).not.toBe(first);
    } finally {
      await own.close();
    }
  });

  it('frees the write lock of a transaction the database process lost when it was stopped', async () => {
    const { sandbox: own } = await startTestSandbox({ databaseBusyTimeoutMs: 300 });
    const send = async (body: unknown) =>
      PipelineResponseSchema.parse(await (await pipeline(body, own.databaseTokens.fullAccess, own)).json());
    try {
      const writer = await send({ requests: [execute('BEGIN IMMEDIATE')] });
      expect(codes(writer)).toEqual(['ok']);
      const first = own.databaseProcessId()!;
      // Another client's statement outlives its client: the process is stopped, the transaction with it.
      const gone = new AbortController();
      const runaway = fetch(`${own.databaseUrl}/v2/pipeline`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${own.databaseTokens.readOnly}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ requests: [execute(RUNAWAY), { type: 'close' }] }),
        signal: gone.signal,
      }).catch((error: unknown) => error);
      // Only a statement the database process already runs has a process to stop.
      await expect.poll(() => own.databaseStatementsRunning(), { timeout: 5_000 }).toBe(1);
      gone.abort();
      await runaway;
      await expect.poll(() => isRunning(first), { timeout: 10_000 }).toBe(false);
      const write = async (plan: string) =>
        codes(
          await send({
            requests: [
              execute('BEGIN IMMEDIATE'),
              execute('UPDATE customers SET plan = ? WHERE id = 5', [{ type: 'text', value: plan }]),
              execute('COMMIT'),
              { type: 'close' },
            ],
          }),
        );
      // Nobody holds the lock any more, before the lost transaction's stream is heard from again.
      expect(await write('after restart')).toEqual(['ok', 'ok', 'ok', 'ok']);
      // That stream learns its transaction is gone, writing again, without taking the lock back.
      const lost = await send({
        baton: writer.baton,
        requests: [execute("UPDATE customers SET plan = 'lost' WHERE id = 5")],
      });
      expect(codes(lost)).toEqual(['SQLITE_INTERRUPT']);
      expect(await write('after the lost stream wrote')).toEqual(['ok', 'ok', 'ok', 'ok']);
      await send({ baton: lost.baton, requests: [{ type: 'close' }] });
    } finally {
      await own.close();
    }
  });

  it('ends its database process on close, also in the middle of a statement', async () => {
    const { sandbox: idle } = await startTestSandbox();
    const client = createClient({ url: idle.databaseUrl, authToken: idle.databaseTokens.readOnly });
    await client.execute('SELECT 1');
    client.close();
    const idlePid = idle.databaseProcessId()!;
    await idle.close();
    expect(isRunning(idlePid)).toBe(false);

    const { sandbox: busy } = await startTestSandbox();
    const warm = createClient({ url: busy.databaseUrl, authToken: busy.databaseTokens.readOnly });
    await warm.execute('SELECT 1');
    warm.close();
    const busyPid = busy.databaseProcessId()!;
    const runaway = fetch(`${busy.databaseUrl}/v2/pipeline`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${busy.databaseTokens.readOnly}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ requests: [execute(RUNAWAY), { type: 'close' }] }),
    }).catch((error: unknown) => error);
    await expect.poll(() => busy.databaseStatementsRunning(), { timeout: 5_000 }).toBe(1);
    await busy.close();
    expect(isRunning(busyPid)).toBe(false);
    expect(busy.databaseProcessId()).toBeUndefined();
    await runaway;
  });
});
