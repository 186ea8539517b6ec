import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CustomerDatabase, createCustomerDatabase } from '../../src/database/customer-database.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { checkMessageLimits, schemasAvailable, validateBlocks } from '../support/block-kit.js';
import { pinnedClock } from '../support/clock.js';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { DEFAULT_CHANNEL_ID } from '../support/payloads.js';

const clock = pinnedClock();

let sandbox: Sandbox;
let h: Harness;
let database: CustomerDatabase;

/** Swaps the customer database the running bot uses (a bad token, none at all, a short deadline). */
function useDatabase(customer: CustomerDatabase | undefined): void {
  h.runtime.services.database = customer;
}

beforeAll(async () => {
  sandbox = await startSandbox({ now: clock });
  h = await startHarness({
    clock,
    sandbox,
    serviceDatabase: true,
  });
  const configured = h.config.serviceDatabase;
  if (!configured) throw new Error('the harness did not read SERVICE_DATABASE_URL');
  database = createCustomerDatabase({ ...configured, secrets: h.runtime.secrets });
  useDatabase(database);
});
afterAll(async () => {
  await h?.close();
  await sandbox?.close();
});

const SectionSchema = z.looseObject({
  type: z.string(),
  text: z.looseObject({ text: z.string() }).optional(),
});
const MessageArgsSchema = z.looseObject({
  channel: z.string(),
  text: z.string(),
  blocks: z.array(SectionSchema),
});
const ResponseSchema = z.looseObject({ response_type: z.string(), text: z.string() });

/** Runs `/edge db query SQL` and returns the channel message it posts. */
async function channelAnswer(sql: string) {
  const seen = new Set(h.fake.callsTo('chat.postMessage'));
  await h.command(`db query ${sql}`);
  const call: RecordedCall = await h.fake.waitFor('chat.postMessage', (c) => !seen.has(c), 5_000);
  const message = MessageArgsSchema.parse(call.args);
  const code = message.blocks
    .map((block) => block.text?.text ?? '')
    .filter((text) => text.startsWith('```'))
    .map((text) => text.slice(4, -4));
  return { ...message, table: code[1] ?? '', all: JSON.stringify(message.blocks) };
}

/** Runs `/edge db query SQL` and returns the private answer (refusals and errors). */
async function privateAnswer(sql: string) {
  const { responseUrl } = await h.command(`db query ${sql}`);
  const post = await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000);
  return ResponseSchema.parse(post.body);
}

const orderCount = async () => (await database.runReadOnlyQuery('SELECT count(*) FROM orders')).rows[0]?.[0];

describe('/edge db query', () => {
  it('answers in the channel with an aligned table in a code block', async () => {
    const answer = await channelAnswer('SELECT id, status, currency FROM orders WHERE id <= 3 ORDER BY id');
    expect(answer.channel).toBe(DEFAULT_CHANNEL_ID);
    const lines = answer.table.split('\n');
    expect(lines[0]).toMatch(/^id {2}status +currency$/);
    expect(lines[1]).toMatch(/^-- {2}-+ {2}-+$/);
    expect(lines.slice(2).map((line) => line.split(/\s+/)[0])).toEqual(['1', '2', '3']);
    expect(answer.all).toContain('3 rows, 3 columns.');
    expect(answer.all).not.toContain('complete result');
  });

  it('keeps integers beyond 2^53 exact and shows blobs by their size and NULL as NULL', async () => {
    const answer = await channelAnswer(
      'SELECT id, avatar, (SELECT external_ref FROM orders WHERE id = 7) AS ref FROM customers WHERE id <= 2 ORDER BY id',
    );
    const [, , first, second] = answer.table.split('\n');
    expect(first).toMatch(/^1 +&lt;blob 4 bytes&gt; +9007199254740993$/);
    expect(second).toMatch(/^2 +NULL +9007199254740993$/);
  });

  it('keeps the SQL as typed: quotes, curly quotes and -- are not shell syntax', async () => {
    const answer = await channelAnswer(
      `SELECT name, country FROM customers WHERE name = 'Ada Lovelace' -- a comment`,
    );
    expect(answer.table).toMatch(/Ada Lovelace +GB/);
    const curly = await channelAnswer('SELECT count(*) AS n FROM customers WHERE name = ‘Ada Lovelace’');
    expect(curly.table).toMatch(/^n\n-\n1$/);
  });

  it('escapes text from the database so that nobody is pinged', async () => {
    const answer = await channelAnswer('SELECT id, note FROM orders WHERE id = 13');
    expect(answer.all).toContain('&lt;!channel&gt;');
    expect(answer.all).not.toContain('<!channel>');
  });

  it('shows 20 of 25 rows and posts all of them to the channel as query-YYYYMMDD-HHmmss.csv', async () => {
    const answer = await channelAnswer(
      'SELECT id, customer_id, status, external_ref FROM orders ORDER BY id LIMIT 25',
    );
    expect(answer.table.split('\n')).toHaveLength(22);
    expect(answer.all).toContain(
      '25 rows, 4 columns. Showing the first 20; the file has the complete result.',
    );
    const file = await h.fake.waitForUpload((f) => !!f.initialComment?.includes('LIMIT 25'), 5_000);
    // The message names the file it carries, and says where it is.
    expect(answer.all).toContain(`📎 ${file.filename}: the complete result, 25 rows, attached below.`);
    expect(file.initialComment).toMatch(/^25 rows, 4 columns from: SELECT id/);
    expect(file.channelId).toBe(DEFAULT_CHANNEL_ID);
    const stamp = /^query-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})\.csv$/.exec(file.filename);
    expect(stamp).not.toBeNull();
    const [, y, mo, d, hh, mi, ss] = stamp!.map(Number);
    // Named after the instant it ran at, on the bot's clock.
    expect(Date.UTC(y!, mo! - 1, d, hh, mi, ss)).toBe(Math.floor(h.clock() / 1000) * 1000);
    const records = file.bytes.toString('utf8').split('\r\n');
    expect(records[0]).toBe('id,customer_id,status,external_ref');
    expect(records.filter((record) => record !== '')).toHaveLength(26);
    expect(records[7]).toMatch(/^7,\d+,\w+,9007199254740993$/);
    if (schemasAvailable) {
      const blocks = h.fake.callsTo('chat.postMessage').at(-1)?.args.blocks;
      expect(validateBlocks(blocks)).toEqual([]);
      expect(checkMessageLimits(blocks, answer.text)).toEqual([]);
    }
  });

  it('attaches the CSV for a value too wide for the table, with formula cells neutralised', async () => {
    const answer = await channelAnswer(
      'SELECT group_concat(email) AS emails, char(61,49,43,50) AS formula, -5 AS negative FROM customers',
    );
    expect(answer.all).toContain('Long values are cut here; the file has the complete result.');
    expect(answer.all).toMatch(/📎 query-\d{8}-\d{6}\.csv: the complete result, 1 row, attached below\./);
    expect(answer.table.split('\n')[2]).toContain('…');
    const file = await h.fake.waitForUpload((f) => !!f.initialComment?.includes('group_concat'), 5_000);
    const [header, row] = file.bytes.toString('utf8').split('\r\n');
    expect(header).toBe('emails,formula,negative');
    expect(row).toMatch(/^"(?:[a-z]+@example\.com,){9}[a-z]+@example\.com",'=1\+2,'-5$/);
  });

  it('stops at the row cap, says so and which cap, and puts every row read in the CSV', async () => {
    useDatabase(
      createCustomerDatabase({
        url: sandbox.databaseUrl,
        authToken: sandbox.databaseTokens.fullAccess,
        secrets: h.runtime.secrets,
        limits: { maxRows: 50 },
      }),
    );
    try {
      const answer = await channelAnswer(
        'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n, n * n AS square FROM r',
      );
      expect(answer.all).toContain(
        '50 rows, 2 columns. The query stopped at the cap of 50 rows (EDGEOPS_DB_QUERY_MAX_ROWS): the result has more. Showing the first 20; the file has the rows read.',
      );
      expect(answer.all).toMatch(
        /📎 query-\d{8}-\d{6}\.csv: the first 50 rows, where the query stopped, attached below\./,
      );
      expect(answer.text).toBe('The query stopped at a cap after 50 rows');
      const file = await h.fake.waitForUpload((f) => !!f.initialComment?.includes('square FROM r'), 5_000);
      expect(file.initialComment).toMatch(
        /^First 50 rows, 2 columns \(stopped at a cap; the result has more\) from: WITH RECURSIVE/,
      );
      const records = file.bytes
        .toString('utf8')
        .split('\r\n')
        .filter((record) => record !== '');
      expect(records).toHaveLength(51);
      expect(records[0]).toBe('n,square');
      expect(records[50]).toBe('50,2500');
    } finally {
      useDatabase(database);
    }
  });

  it('stops at the cap on bytes of values, says so, and keeps what was read', async () => {
    useDatabase(
      createCustomerDatabase({
        url: sandbox.databaseUrl,
        authToken: sandbox.databaseTokens.fullAccess,
        secrets: h.runtime.secrets,
        limits: { maxBytes: 4096 },
      }),
    );
    try {
      const answer = await channelAnswer(
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000) SELECT printf('%.1000c', 'y') AS wide FROM r",
      );
      expect(answer.all).toContain(
        '4 rows, 1 column. The query stopped at the cap of 4 KB of values (EDGEOPS_DB_QUERY_MAX_BYTES) after 4 rows: the result has more.',
      );
      const file = await h.fake.waitForUpload((f) => !!f.initialComment?.includes("'%.1000c'"), 5_000);
      const records = file.bytes
        .toString('utf8')
        .split('\r\n')
        .filter((record) => record !== '');
      expect(records).toEqual(['wide', ...Array(4).fill('y'.repeat(1000))]);
    } finally {
      useDatabase(database);
    }
  });

  it('refuses a write although the token could write, and changes nothing', async () => {
    const answer = await privateAnswer('DELETE FROM orders WHERE id > 0');
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain('Only read-only statements run with /edge db query');
    expect(answer.text).toContain('NOT_READ_ONLY');
    expect(await orderCount()).toBe(30n);
    const rows = await h.runtime.services.audit.list({ limit: 20 });
    expect(rows.some((row) => row.operation === 'db.query' && row.outcome === 'refused')).toBe(true);
  });

  it('points a data change to /edge db exec and names the rule, without asking the database', async () => {
    const before = sandbox.requests.count('database.pipeline');
    const answer = await privateAnswer('INSERT INTO orders (id, customer_id) VALUES (99, 1)');
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain('starts with SELECT, WITH, VALUES or EXPLAIN');
    expect(answer.text).toContain('/edge db exec');
    expect(answer.text).toContain('NOT_READ_ONLY');
    expect(sandbox.requests.count('database.pipeline')).toBe(before);
    expect(await orderCount()).toBe(30n);
  });

  it('does not run ATTACH: no file appears and the database is not called', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-attach-'));
    const path = join(dir, 'x.db');
    try {
      const before = sandbox.requests.count('database.pipeline');
      const answer = await privateAnswer(`ATTACH DATABASE '${path}' AS x`);
      expect(answer.text).toContain('/edge does not run ATTACH statements');
      expect(answer.text).toContain('STATEMENT_NOT_RUN');
      expect(answer.text).not.toContain('/edge db exec');
      expect(existsSync(path)).toBe(false);
      expect(sandbox.requests.count('database.pipeline')).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not run pragmas or transaction control, and says how to read a pragma instead', async () => {
    const before = sandbox.requests.count('database.pipeline');
    const pragma = await privateAnswer('PRAGMA writable_schema = ON');
    expect(pragma.text).toContain('/edge does not run PRAGMA statements');
    expect(pragma.text).toContain('pragma_table_info');
    for (const sql of ['BEGIN', 'SAVEPOINT s1', '/* x */ COMMIT', 'DETACH x']) {
      const answer = await privateAnswer(sql);
      expect(answer.text).toMatch(/\/edge does not run [A-Z]+ statements/);
      expect(answer.text).not.toContain('/edge db exec');
    }
    expect(sandbox.requests.count('database.pipeline')).toBe(before);
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
    expect(missing.text).toContain('SQLITE_UNKNOWN');
  });

  it('asks for the statement when none is given', async () => {
    const { responseUrl } = await h.command('db query');
    const post = await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000);
    expect(ResponseSchema.parse(post.body).text).toContain('give the SQL statement to run');
  });

  it('names SERVICE_DATABASE_AUTH_TOKEN for a refused token without ever showing the token', async () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.eyJhIjoicnciLCJpZCI6InJldm9rZWQifQ.invalid-signature-0000';
    useDatabase(
      createCustomerDatabase({ url: sandbox.databaseUrl, authToken: token, secrets: h.runtime.secrets }),
    );
    try {
      const answer = await privateAnswer('SELECT 1');
      expect(answer.text).toContain('refused the access token');
      expect(answer.text).toContain('SERVICE_DATABASE_AUTH_TOKEN');
      expect(answer.text).toContain('HTTP 401');
      expect(JSON.stringify(h.fake.responses)).not.toContain(token);
      expect(h.logs.join('\n')).not.toContain(token);
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
    useDatabase(
      createCustomerDatabase({
        url: sandbox.databaseUrl,
        authToken: sandbox.databaseTokens.fullAccess,
        secrets: h.runtime.secrets,
        timeoutMs: 100,
      }),
    );
    sandbox.faults.set('database.pipeline', { delayMs: 350, times: 1 });
    const started = performance.now();
    try {
      const answer = await privateAnswer('SELECT count(*) FROM orders');
      expect(answer.text).toContain('abandoned after 100 ms');
      const id = /correlation id (c-[0-9a-f]+)/.exec(answer.text)?.[1];
      expect(id).toBeDefined();
      expect(h.logs.some((line) => line.includes(id!))).toBe(true);
    } finally {
      useDatabase(database);
      // The sandbox goes on handling the abandoned request after its delay; let it finish.
      await sleep(Math.max(0, 400 - (performance.now() - started)));
    }
  });

  it('keeps answering other commands while a runaway query runs, and abandons it at its deadline', async () => {
    // The query's CSV is written under the OS temporary folder: give this test a folder of its own.
    const scratch = mkdtempSync(join(tmpdir(), 'edgeops-query-'));
    const previousTmp = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    useDatabase(
      createCustomerDatabase({
        url: sandbox.databaseUrl,
        authToken: sandbox.databaseTokens.fullAccess,
        secrets: h.runtime.secrets,
        timeoutMs: 8_000,
      }),
    );
    try {
      const before = sandbox.requests.count('database.pipeline');
      // Counts for minutes: far past the deadline, and still ends should a regression block the loop.
      const { responseUrl } = await h.command(
        'db query WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000000) SELECT count(*) FROM r',
      );
      const answered = () => h.fake.responses.some((p) => responseUrl.endsWith(p.id));
      // Described, then sent to run.
      await expect
        .poll(() => sandbox.requests.count('database.pipeline'), { timeout: 5_000 })
        .toBe(before + 2);
      const whoami = await h.command('whoami');
      const other = await h.fake.waitForResponse((p) => whoami.responseUrl.endsWith(p.id), 5_000);
      expect(JSON.stringify(other.body)).toContain('U0');
      expect(answered()).toBe(false);
      const post = await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 15_000);
      expect(ResponseSchema.parse(post.body).text).toContain('The query was abandoned after 8 seconds');
      // The CSV begun for it is gone with it.
      expect(readdirSync(scratch).filter((name) => name.endsWith('.csv'))).toEqual([]);
    } finally {
      useDatabase(database);
      if (previousTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previousTmp;
      rmSync(scratch, { recursive: true, force: true });
    }
    const next = await channelAnswer('SELECT count(*) AS n FROM orders');
    expect(next.table).toMatch(/^n\n-+\n30$/);
  });
});
