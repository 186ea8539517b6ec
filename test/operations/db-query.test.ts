/**
 * `/edge db query` through the engine: the table, the CSV of what does not fit, the caps, and
 * every statement it refuses, each with what to do instead.
 */
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CustomerDatabase, createCustomerDatabase } from '../../src/database/customer-database.js';
import type { Reply, ReplyFile } from '../../src/reply/model.js';
import { type EngineTestbed, onlyAnswer, startEngineTestbed } from '../support/engine.js';
import { sentTable } from '../support/sent-table.js';

let bed: EngineTestbed;
let database: CustomerDatabase;

beforeAll(async () => {
  bed = await startEngineTestbed({ serviceDatabase: true });
  database = bed.runtime.services.database!;
});
afterAll(async () => {
  await bed?.close();
});

/** Swaps the customer database the engine uses (a bad token, none at all, a short deadline). */
function useDatabase(customer: CustomerDatabase | undefined): void {
  bed.runtime.services.database = customer;
}

const customerDatabase = (options: Partial<Parameters<typeof createCustomerDatabase>[0]>) =>
  createCustomerDatabase({
    url: bed.sandbox.databaseUrl,
    authToken: bed.sandbox.databaseTokens.fullAccess,
    secrets: bed.runtime.secrets,
    ...options,
  });

/** Runs `/edge db query SQL`; returns the answer, the table it sends to Slack and its words. */
async function answerTo(sql: string) {
  const reply = onlyAnswer(await bed.run(`db query ${sql}`));
  const table = sentTable(reply);
  expect(table.refused).toEqual([]);
  return { reply, table, all: table.text };
}

/** `WITH RECURSIVE` rows numbered 1 to `count`, as `n`. */
const numbered = (count: number) =>
  `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < ${count})`;

/** The result file's records; the file is removed, as an adapter does after uploading it. */
function csvRecords(file: ReplyFile): string[] {
  const text = file.path ? readFileSync(file.path, 'utf8') : String(file.content);
  if (file.path) rmSync(file.path, { force: true });
  return text.split('\r\n');
}

const onlyFile = (reply: Reply): ReplyFile => {
  expect(reply.files).toHaveLength(1);
  return reply.files![0]!;
};

const orderCount = async () => (await database.runReadOnlyQuery('SELECT count(*) FROM orders')).rows[0]?.[0];

describe('/edge db query', () => {
  it('answers in the channel with a table: numbers right-aligned as numbers, text as text', async () => {
    const { reply, table, all } = await answerTo(
      'SELECT id, status, currency FROM orders WHERE id <= 3 ORDER BY id',
    );
    expect(reply.visibility).toBe('channel');
    expect(table.headers).toEqual(['id', 'status', 'currency']);
    expect(table.types).toEqual(['raw_number', 'raw_text', 'raw_text']);
    expect(table.align).toEqual(['right', 'left', 'left']);
    expect(table.rows.map((row) => row[0])).toEqual([1, 2, 3]);
    expect(all).toContain('3 rows, 3 columns.');
    expect(all).not.toContain('complete result');
    expect(reply.files).toBeUndefined();
  });

  it('keeps integers beyond 2^53 exact and shows blobs by their size and NULL as NULL', async () => {
    const { reply, table } = await answerTo(
      'SELECT id, avatar, (SELECT external_ref FROM orders WHERE id = 7) AS ref FROM customers WHERE id <= 2 ORDER BY id',
    );
    // Past 2^53 a number would be rounded: the digits stay text, in a column aligned as numbers.
    expect(table.rows).toEqual([
      [1, '<blob 4 bytes>', '9007199254740993'],
      [2, 'NULL', '9007199254740993'],
    ]);
    expect(table.types).toEqual(['raw_number', 'raw_text', 'raw_text']);
    expect(table.align).toEqual(['right', 'left', 'right']);
    expect(csvRecords(onlyFile(reply))[1]).toBe('1,89504e47,9007199254740993');
    const nulls = await answerTo('SELECT 5 AS n UNION ALL SELECT NULL');
    expect(nulls.table.rows).toEqual([[5], ['NULL']]);
    expect(nulls.table.types).toEqual(['raw_number|raw_text']);
    expect(nulls.table.align).toEqual(['right']);
  });

  it('delivers a blob the table shows only by its size: the CSV has it in hexadecimal, and says so', async () => {
    const { reply, table, all } = await answerTo("SELECT x'DEADBEEF' AS fixed, randomblob(4) AS random");
    expect(table.rows).toEqual([['<blob 4 bytes>', '<blob 4 bytes>']]);
    expect(all).toContain(
      '1 row, 2 columns. Blobs are shown by their size here; the file has the complete result, blobs in hexadecimal.',
    );
    const file = onlyFile(reply);
    expect(file.about).toBe('the complete result, 1 row');
    expect(file.comment).toContain('blobs in hexadecimal');
    const [header, row] = csvRecords(file);
    expect(header).toBe('fixed,random');
    expect(row).toMatch(/^deadbeef,[0-9a-f]{8}$/);
  });

  it('answers a statement with a blob literal that is not UTF-8, EXPLAIN included', async () => {
    const { reply, table } = await answerTo("SELECT length(x'DEADBEEF') AS n");
    expect(reply.visibility).toBe('channel');
    expect(table.headers).toEqual(['n']);
    expect(table.rows).toEqual([[4]]);
    const explained = await answerTo("EXPLAIN SELECT x'DEADBEEF'");
    expect(explained.reply.visibility).toBe('channel');
    expect(explained.table.rows.flat()).toContain('Blob');
    for (const file of explained.reply.files ?? []) csvRecords(file);
  });

  it('keeps the SQL as typed: quotes, curly quotes and -- are not shell syntax', async () => {
    const { table } = await answerTo(
      `SELECT name, country FROM customers WHERE name = 'Ada Lovelace' -- a comment`,
    );
    expect(table.rows).toEqual([['Ada Lovelace', 'GB']]);
    const curly = await answerTo('SELECT count(*) AS n FROM customers WHERE name = ‘Ada Lovelace’');
    expect(curly.table.rows).toEqual([[1]]);
  });

  it('shows 25 rows whole in its table, with no file', async () => {
    const { reply, table, all } = await answerTo(
      'SELECT id, customer_id, status, external_ref FROM orders ORDER BY id LIMIT 25',
    );
    expect(table.rows).toHaveLength(25);
    expect(all).toContain('25 rows, 4 columns.');
    expect(all).not.toContain('Showing the first');
    expect(reply.files).toBeUndefined();
  });

  it('shows 99 of 150 rows under its headers, says so, and gives all of them as query-YYYYMMDD-HHmmss.csv', async () => {
    const { reply, table, all } = await answerTo(`${numbered(150)} SELECT n, 'row ' || n AS label FROM r`);
    expect(table.headers).toEqual(['n', 'label']);
    expect(table.types).toEqual(['raw_number', 'raw_text']);
    expect(table.align).toEqual(['right', 'left']);
    expect(table.rows).toHaveLength(99);
    expect(table.rows[98]).toEqual([99, 'row 99']);
    expect(all).toContain('150 rows, 2 columns. The file has the complete result.');
    expect(all).toContain('Showing the first 99 of 150 rows; every row is in the attached CSV.');
    const file = onlyFile(reply);
    expect(table.files.map((f) => f.filename)).toEqual([file.filename]);
    expect(file.about).toBe('the complete result, 150 rows');
    expect(file.comment).toMatch(/^150 rows, 2 columns from: WITH RECURSIVE/);
    const stamp = /^query-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})\.csv$/.exec(file.filename);
    expect(stamp).not.toBeNull();
    const [, y, mo, d, hh, mi, ss] = stamp!.map(Number);
    // Named after the instant it ran at, on the bot's clock.
    expect(Date.UTC(y!, mo! - 1, d, hh, mi, ss)).toBe(Math.floor(bed.clock() / 1000) * 1000);
    const records = csvRecords(file).filter((record) => record !== '');
    expect(records[0]).toBe('n,label');
    expect(records).toHaveLength(151);
    expect(records[150]).toBe('150,row 150');
  });

  it('shows the first 20 of 25 columns, says so, and gives every column in the CSV', async () => {
    const columns = Array.from({ length: 25 }, (_, i) => `${i + 1} AS c${i + 1}`).join(', ');
    const { reply, table, all } = await answerTo(`SELECT ${columns}`);
    expect(table.headers).toEqual(Array.from({ length: 20 }, (_, i) => `c${i + 1}`));
    expect(table.align).toEqual(Array(20).fill('right'));
    expect(table.rows).toEqual([Array.from({ length: 20 }, (_, i) => i + 1)]);
    expect(all).toContain(
      '1 row, 25 columns. Only the first 20 of 25 columns are shown here; the file has the complete result.',
    );
    const [header, row] = csvRecords(onlyFile(reply));
    expect(header!.split(',')).toHaveLength(25);
    expect(row).toMatch(/,25$/);
  });

  it('shows the first rows of a table longer than the message, and gives all of them in the CSV', async () => {
    const { reply, table, all } = await answerTo(
      `${numbered(60)} SELECT n, printf('%.90c', 'w') AS wide, printf('%.90c', 'v') AS wider FROM r`,
    );
    expect(table.rows.length).toBeGreaterThan(20);
    expect(table.rows.length).toBeLessThan(60);
    expect(all).toContain('60 rows, 3 columns. The file has the complete result.');
    expect(all).toContain(
      `Showing the first ${table.rows.length} of 60 rows; every row is in the attached CSV.`,
    );
    expect(csvRecords(onlyFile(reply)).filter((record) => record !== '')).toHaveLength(61);
  });

  it('attaches the CSV for a value too wide for the table, with formula cells neutralised', async () => {
    const { reply, table, all } = await answerTo(
      'SELECT group_concat(email) AS emails, char(61,49,43,50) AS formula, -5 AS negative FROM customers',
    );
    expect(all).toContain('Long values are cut here; the file has the complete result.');
    const file = onlyFile(reply);
    expect(file.filename).toMatch(/^query-\d{8}-\d{6}\.csv$/);
    expect(file.about).toBe('the complete result, 1 row');
    expect(table.rows[0]![0]).toMatch(/^[a-z]+@example\.com,.{80,}…$/);
    expect(String(table.rows[0]![0])).toHaveLength(100);
    const [header, row] = csvRecords(file);
    expect(header).toBe('emails,formula,negative');
    expect(row).toMatch(/^"(?:[a-z]+@example\.com,){9}[a-z]+@example\.com",'=1\+2,'-5$/);
  });

  it('stops at the row cap, says so and which cap, and puts every row read in the CSV', async () => {
    useDatabase(customerDatabase({ limits: { maxRows: 50 } }));
    try {
      const { reply, table, all } = await answerTo(
        'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n, n * n AS square FROM r',
      );
      expect(all).toContain(
        '50 rows, 2 columns. The query stopped at the cap of 50 rows (EDGEOPS_DB_QUERY_MAX_ROWS): the result has more. The file has the rows read.',
      );
      expect(table.rows).toHaveLength(50);
      expect(table.rows[49]).toEqual([50, 2500]);
      expect(reply.text).toBe('The query stopped at a cap after 50 rows');
      const file = onlyFile(reply);
      expect(file.about).toBe('the first 50 rows, where the query stopped');
      expect(file.comment).toMatch(
        /^First 50 rows, 2 columns \(stopped at a cap; the result has more\) from: WITH RECURSIVE/,
      );
      const records = csvRecords(file).filter((record) => record !== '');
      expect(records).toHaveLength(51);
      expect(records[0]).toBe('n,square');
      expect(records[50]).toBe('50,2500');
    } finally {
      useDatabase(database);
    }
  });

  it('stops at the cap on bytes of values, says so, and keeps what was read', async () => {
    useDatabase(customerDatabase({ limits: { maxBytes: 4096 } }));
    try {
      const { reply, all } = await answerTo(
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000) SELECT printf('%.1000c', 'y') AS wide FROM r",
      );
      expect(all).toContain(
        '4 rows, 1 column. The query stopped at the cap of 4 KB of values (EDGEOPS_DB_QUERY_MAX_BYTES) after 4 rows: the result has more.',
      );
      const records = csvRecords(onlyFile(reply)).filter((record) => record !== '');
      expect(records).toEqual(['wide', ...Array(4).fill('y'.repeat(1000))]);
    } finally {
      useDatabase(database);
    }
  });
});

describe('/edge db query refuses, saying what to do instead', () => {
  const privateAnswer = async (sql: string) => onlyAnswer(await bed.run(`db query ${sql}`));

  it('refuses a write although the token could write, and changes nothing', async () => {
    const answer = await privateAnswer('DELETE FROM orders WHERE id > 0');
    expect(answer.visibility).toBe('ephemeral');
    expect(answer.text).toContain('Only read-only statements run with /edge db query');
    expect(answer.text).toContain('NOT_READ_ONLY');
    expect(await orderCount()).toBe(30n);
    const rows = await bed.runtime.services.audit.list({ limit: 20 });
    expect(rows.some((row) => row.operation === 'db.query' && row.outcome === 'refused')).toBe(true);
  });

  it('points a data change to /edge db exec and names the rule, without asking the database', async () => {
    const before = bed.sandbox.requests.count('database.pipeline');
    const answer = await privateAnswer('INSERT INTO orders (id, customer_id) VALUES (99, 1)');
    expect(answer.visibility).toBe('ephemeral');
    expect(answer.text).toContain('starts with SELECT, WITH, VALUES or EXPLAIN');
    expect(answer.text).toContain('/edge db exec');
    expect(answer.text).toContain('NOT_READ_ONLY');
    expect(bed.sandbox.requests.count('database.pipeline')).toBe(before);
    expect(await orderCount()).toBe(30n);
  });

  it('does not run ATTACH: no file appears and the database is not called', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-attach-'));
    const path = join(dir, 'x.db');
    try {
      const before = bed.sandbox.requests.count('database.pipeline');
      const answer = await privateAnswer(`ATTACH DATABASE '${path}' AS x`);
      expect(answer.text).toContain('/edge does not run ATTACH statements');
      expect(answer.text).toContain('STATEMENT_NOT_RUN');
      expect(answer.text).not.toContain('/edge db exec');
      expect(existsSync(path)).toBe(false);
      expect(bed.sandbox.requests.count('database.pipeline')).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not run pragmas or transaction control, and says how to read a pragma instead', async () => {
    const before = bed.sandbox.requests.count('database.pipeline');
    const pragma = await privateAnswer('PRAGMA writable_schema = ON');
    expect(pragma.text).toContain('/edge does not run PRAGMA statements');
    expect(pragma.text).toContain('pragma_table_info');
    for (const sql of ['BEGIN', 'SAVEPOINT s1', '/* x */ COMMIT', 'DETACH x']) {
      const answer = await privateAnswer(sql);
      expect(answer.text).toMatch(/\/edge does not run [A-Z]+ statements/);
      expect(answer.text).not.toContain('/edge db exec');
    }
    expect(bed.sandbox.requests.count('database.pipeline')).toBe(before);
  });

  it('refuses several statements in one command', async () => {
    const answer = await privateAnswer('SELECT 1; DELETE FROM orders');
    expect(answer.text).toContain('more than one statement');
    expect(answer.text).toContain('SQL_MANY_STATEMENTS');
    expect(await orderCount()).toBe(30n);
  });

  it('explains SQL errors in plain words with their libSQL code', async () => {
    const parse = await privateAnswer('SELEC id FROM orders');
    expect(parse.text).toContain('The statement could not be parsed');
    expect(parse.text).toContain('SQL_PARSE_ERROR');
    const missing = await privateAnswer('SELECT * FROM invoices');
    expect(missing.text).toContain('no such table: invoices');
    // SQLite's catch-all code says nothing more than the words do.
    expect(missing.text).not.toContain('SQLITE_UNKNOWN');
  });

  it('asks for the statement when none is given', async () => {
    expect(onlyAnswer(await bed.run('db query')).text).toContain('give the SQL statement to run');
  });

  it('names SERVICE_DATABASE_AUTH_TOKEN for a refused token without ever showing the token', async () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJhIjoicnciLCJpZCI6InJldm9rZWQifQ.invalid-signature-0000';
    useDatabase(customerDatabase({ authToken: token }));
    try {
      const answer = await privateAnswer('SELECT 1');
      expect(answer.text).toContain('refused the access token');
      expect(answer.text).toContain('SERVICE_DATABASE_AUTH_TOKEN');
      expect(answer.text).toContain('HTTP 401');
      expect(JSON.stringify(answer)).not.toContain(token);
      expect(bed.logs.join('\n')).not.toContain(token);
    } finally {
      useDatabase(database);
    }
  });

  it('says how to configure the database when SERVICE_DATABASE_URL is not set', async () => {
    useDatabase(undefined);
    try {
      const answer = await privateAnswer('SELECT 1');
      expect(answer.text).toContain('SERVICE_DATABASE_URL');
      expect(answer.text).toContain('SERVICE_DATABASE_AUTH_TOKEN');
    } finally {
      useDatabase(database);
    }
  });

  it('abandons a slow query with a message and a correlation id that is in the log', async () => {
    useDatabase(customerDatabase({ timeoutMs: 100 }));
    bed.sandbox.faults.set('database.pipeline', { delayMs: 350, times: 1 });
    const started = performance.now();
    try {
      const answer = await privateAnswer('SELECT count(*) FROM orders');
      expect(answer.text).toContain('abandoned after 100 ms');
      const id = /correlation id (c-[0-9a-f]+)/.exec(answer.text)?.[1];
      expect(id).toBeDefined();
      expect(bed.logs.some((line) => line.includes(id!))).toBe(true);
    } finally {
      useDatabase(database);
      // The sandbox goes on handling the abandoned request after its delay; let it finish.
      await sleep(Math.max(0, 400 - (performance.now() - started)));
    }
  });
});

const MB = 1024 * 1024;

/** An empty step result, as for BEGIN and COMMIT. */
const NO_ROWS =
  '{"cols":[],"rows":[],"affected_row_count":0,"last_insert_rowid":null,"replication_index":null}';

const DESCRIBED = {
  baton: null,
  base_url: null,
  results: [
    {
      type: 'ok',
      response: {
        type: 'describe',
        result: {
          params: [],
          cols: [{ name: 'payload', decltype: null }],
          is_explain: false,
          is_readonly: true,
        },
      },
    },
    { type: 'ok', response: { type: 'close' } },
  ],
};

/**
 * A Hrana server whose query answers one value of `bytes` bytes, a blob or a text, sent as fast
 * as the client reads it; `finished` says whether the answer was sent whole before the client
 * hung up.
 */
async function startOneValueServer(type: 'blob' | 'text', bytes: number) {
  let finished: Promise<{ complete: boolean }> | undefined;
  const send = async (response: ServerResponse) => {
    const closed = new Promise((resolve) => response.once('close', resolve));
    response.write(
      `{"baton":null,"base_url":null,"results":[{"type":"ok","response":{"type":"batch","result":{"step_results":[${NO_ROWS},{"cols":[{"name":"payload","decltype":null}],"rows":[[{"type":"${type}","${type === 'blob' ? 'base64' : 'value'}":"`,
    );
    // As base64, "A" is six zero bits; as text, one byte.
    const piece = 'A'.repeat(64 * 1024);
    for (let left = type === 'blob' ? Math.ceil(bytes / 3) * 4 : bytes; left > 0 && !response.destroyed; ) {
      const next = left < piece.length ? piece.slice(0, left) : piece;
      left -= next.length;
      if (!response.write(next)) await Promise.race([once(response, 'drain'), closed]);
    }
    if (response.destroyed) return;
    response.end(
      `"}]],"affected_row_count":0,"last_insert_rowid":null,"replication_index":null},${NO_ROWS},null],"step_errors":[null,null,null,null],"replication_index":null}}},{"type":"ok","response":{"type":"close"}}]}`,
    );
  };
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { requests: { type: string }[] };
    response.setHeader('content-type', 'application/json');
    if (body.requests[0]?.type === 'describe') return void response.end(JSON.stringify(DESCRIBED));
    finished = new Promise((resolve) =>
      response.once('close', () => resolve({ complete: response.writableFinished })),
    );
    await send(response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    finished: () => finished ?? Promise.reject(new Error('the query never reached the server')),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** The global fetch, counting the bytes of response bodies the caller has read. */
function countingFetch() {
  const counter = { read: 0 };
  const fetchCounting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          counter.read += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, headers: response.headers });
  };
  return { counter, fetch: fetchCounting };
}

describe('/edge db query holds no value past the cap on bytes', () => {
  it.each(['blob', 'text'] as const)(
    'stops reading a %s that passes the cap, ends the download, and says where it stopped',
    async (type) => {
      const server = await startOneValueServer(type, 32 * MB);
      const counting = countingFetch();
      useDatabase(
        createCustomerDatabase({
          url: server.url,
          secrets: bed.runtime.secrets,
          limits: { maxBytes: MB },
          fetch: counting.fetch,
        }),
      );
      try {
        const { reply, all } = await answerTo('SELECT payload FROM uploads');
        // About the cap's worth of the value was read (1 MB is 1.33 MB of base64), not the 32 MB sent.
        expect(counting.counter.read).toBeGreaterThan(MB);
        expect(counting.counter.read).toBeLessThan(2 * MB);
        expect(await server.finished()).toEqual({ complete: false });
        expect(all).toContain(
          '0 rows, 1 column. The query stopped at the cap of 1 MB of values (EDGEOPS_DB_QUERY_MAX_BYTES) at the first row: the result has more. The file has the column names.',
        );
        expect(reply.text).toBe('The query stopped at a cap after 0 rows');
        expect(csvRecords(onlyFile(reply)).filter((record) => record !== '')).toEqual(['payload']);
      } finally {
        useDatabase(database);
        await server.close();
      }
    },
  );

  it('keeps a long blob and a long text under the cap whole, in the CSV', async () => {
    const { reply, table } = await answerTo(
      "SELECT b, hex(b) AS upper, t FROM (SELECT randomblob(600000) AS b, replace(hex(zeroblob(400000)), '00', 'é\"' || char(10)) AS t)",
    );
    const [blob, hexShown, textShown] = table.rows[0]!;
    expect(blob).toBe('<blob 600000 bytes>');
    expect(hexShown).toMatch(/^[0-9A-F]{99}…$/);
    expect(textShown).toBe(`${'é"\n'.repeat(33)}…`);
    const [header, row] = csvRecords(onlyFile(reply));
    expect(header).toBe('b,upper,t');
    const [lower, upper, text] = row!.split(',');
    expect(lower).toHaveLength(1_200_000);
    expect(lower).toBe(upper!.toLowerCase());
    expect(text).toBe(`"${'é""\n'.repeat(400_000)}"`);
  });
});
