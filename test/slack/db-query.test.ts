import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
/** The runaway query's temporary folder: the database process started after it was stopped lives there too. */
let scratch: string | undefined;

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
  // Only now: that process, forked while TMPDIR named the folder, writes its compile cache there.
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const SectionSchema = z.looseObject({
  type: z.string(),
  text: z.looseObject({ text: z.string() }).optional(),
  rows: z.array(z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))).optional(),
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
  const table = message.blocks.find((block) => block.type === 'table')?.rows ?? [];
  // What Slack reads as mrkdwn: every block but the table, whose raw_text cells are never markup.
  const markup = JSON.stringify(message.blocks.filter((block) => block.type !== 'table'));
  return { ...message, table, markup, all: JSON.stringify(message.blocks) };
}

/**
 * What only Slack shows of /edge db query: escaping in code blocks, where the CSV is uploaded and
 * how the message names it, Block Kit limits, and answering others while a query runs. What the
 * answers say is checked through the engine in test/operations/db-query.test.ts.
 */
describe('/edge db query', () => {
  it('shows text from the database as raw text in a table cell, so that nobody is pinged', async () => {
    const answer = await channelAnswer('SELECT id, note FROM orders WHERE id = 13');
    expect(answer.table[1]?.[1]).toEqual({
      type: 'raw_text',
      text: 'customer wrote: <!channel> where is my parcel?',
    });
    expect(answer.markup).not.toContain('<!channel>');
    expect(answer.text).not.toContain('<!channel>');
  });

  it('posts the CSV of 150 rows to the channel, and the message names it and says where it went', async () => {
    const answer = await channelAnswer(
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 150) SELECT n, n * 2 AS twice FROM r',
    );
    const file = await h.fake.waitForUpload((f) => !!f.initialComment?.includes('n * 2 AS twice'), 5_000);
    // The message names the file it carries, and says where it is.
    expect(answer.all).toContain(`📎 ${file.filename}: the complete result, 150 rows, attached below.`);
    expect(answer.all).toContain('Showing the first 99 of 150 rows; every row is in the attached CSV.');
    expect(answer.table).toHaveLength(100);
    expect(file.initialComment).toMatch(/^150 rows, 2 columns from: WITH RECURSIVE/);
    expect(file.channelId).toBe(DEFAULT_CHANNEL_ID);
    const records = file.bytes.toString('utf8').split('\r\n');
    expect(records[0]).toBe('n,twice');
    expect(records.filter((record) => record !== '')).toHaveLength(151);
    if (schemasAvailable) {
      const blocks = h.fake.callsTo('chat.postMessage').at(-1)?.args.blocks;
      expect(validateBlocks(blocks)).toEqual([]);
      expect(checkMessageLimits(blocks, answer.text)).toEqual([]);
    }
  });

  it('names a file cut short by the row cap for what it holds', async () => {
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
      expect(answer.all).toMatch(
        /📎 query-\d{8}-\d{6}\.csv: the first 50 rows, where the query stopped, attached below\./,
      );
      await h.fake.waitForUpload((f) => !!f.initialComment?.includes('square FROM r'), 5_000);
    } finally {
      useDatabase(database);
    }
  });

  it('keeps answering other commands while a runaway query runs, and abandons it at its deadline', async () => {
    // The query's CSV is written under the OS temporary folder: give this test a folder of its own.
    scratch = mkdtempSync(join(tmpdir(), 'edgeops-query-'));
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
    }
    const next = await channelAnswer('SELECT count(*) AS n FROM orders');
    expect(next.table).toEqual([
      [{ type: 'raw_text', text: 'n' }],
      [{ type: 'raw_number', value: 30, text: '30' }],
    ]);
  });
});
