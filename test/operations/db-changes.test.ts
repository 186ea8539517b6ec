/**
 * Database changes through approval, driven through the engine: `/edge db exec` shows the whole
 * statement and its impact on the card, runs once approved and says what it changed; statements
 * that are not changes are refused before anyone is asked; `/edge db tokens` gives a token to its
 * requester alone and warns when the bot's own token stops working. A file Slack will not take
 * is in test/slack/db-changes.test.ts.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalDesk, approvalDesk, requestIdIn } from '../support/approval-desk.js';
import {
  answered,
  answers,
  dmsIn,
  type EngineTestbed,
  fileText,
  postsIn,
  type Recorded,
  readableOf,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

const POLICY = everyoneMayRun({
  leads: ['U0LEAD', 'U0LEAD2'],
  gated: ['db.exec', 'db.tokens.create'],
  rules: [{ ops: ['db.tokens.invalidate'], required: 2, confirm: true }],
});

let bed: EngineTestbed;
let desk: ApprovalDesk;

beforeAll(async () => {
  bed = await startEngineTestbed({ policyYaml: POLICY, serviceDatabase: true });
  desk = approvalDesk(bed);
});
afterAll(async () => {
  await bed?.close();
});

/** Asks for `text` as `userId`; the request's id and its card, with the requester's note checked. */
async function newCard(text: string, userId = 'U0YOU') {
  const records = await bed.run(text, { userId });
  expect(answered(records)).toContain('Approval requested');
  const card = desk.cardIn(records);
  return { id: requestIdIn(wordsOf(card.reply)), card: card.reply, records };
}

const cardsIn = (records: readonly Recorded[]) => postsIn(records, 'C0APPROVALS');

const approve = (id: string, userId = 'U0LEAD') => desk.click('approve', id, userId);
const cancel = (id: string, userId = 'U0YOU') =>
  bed.click({ actionId: 'approvals:cancel', value: id }, { userId, channelId: 'C0OPS' });

describe('database changes through approval', () => {
  it('db exec shows the statement on the card and reports the rows affected after approval', async () => {
    const sql = "UPDATE orders SET status = 'refunded' WHERE id IN (3, 4)";
    const { id, card } = await newCard(`db exec ${sql}`);
    expect(wordsOf(card)).toContain("UPDATE orders SET status = 'refunded' WHERE id IN (3, 4)");
    const approved = await approve(id);
    expect(await desk.stateOf(id)).toBe('succeeded');
    expect(postsIn(approved, 'C0OPS').some((post) => wordsOf(post.reply).includes('2 rows affected'))).toBe(
      true,
    );
    const rows = await bed.runtime.services.database!.runReadOnlyQuery(
      "SELECT count(*) FROM orders WHERE status = 'refunded' AND id IN (3, 4)",
    );
    expect(String(rows.rows[0]?.[0])).toBe('2');
  });

  it('db exec shows a 2,300-character statement whole on the card, tail included, with the digest the execution audits', async () => {
    const sql = `UPDATE orders SET status = 'refunded' WHERE id = 7 -- ${'x'.repeat(2_300)}\nOR 1 = 1`;
    const { id, card, records } = await newCard(`db exec ${sql}`);
    const shown = readableOf(card);
    expect(shown).toContain(sql);
    expect(
      records
        .flatMap((record) => ('reply' in record ? (record.reply.files ?? []) : []))
        .filter((file) => file.filename.includes(id)),
    ).toEqual([]);
    const digest = /parameters sha256 `([0-9a-f]{12})`/.exec(shown)?.[1];
    expect(digest).toBeDefined();
    await approve(id);
    expect(await desk.stateOf(id)).toMatch(/succeeded|failed/);
    const rows = (await bed.runtime.services.audit.list({ limit: 200 })).filter(
      (row) => row.approvalId === id,
    );
    const executing = rows.find((row) => row.outcome === 'executing');
    expect(executing?.detail).toMatch(new RegExp(`params sha256 ${digest}[0-9a-f]{52}`));
    const request = await bed.runtime.services.approvals.peek(id);
    expect(request?.paramsDigest.slice(0, 12)).toBe(digest);
  });

  it('db exec with a statement too long for the card says so in bold, and the file posted with it holds it whole', async () => {
    const sql = `UPDATE orders SET status = 'refunded' WHERE id = 8 -- ${'<y> & '.repeat(1_000)}\nOR 1 = 1`;
    const records = await bed.run(`db exec ${sql}`);
    const card = cardsIn(records).find((post) =>
      post.reply.blocks.some(
        (block) => block.type === 'actions' && block.buttons.some((b) => b.actionId === 'approvals:approve'),
      ),
    )!;
    const id = requestIdIn(wordsOf(card.reply));
    const shown = readableOf(card.reply);
    expect(shown).toMatch(
      new RegExp(
        `\\*Too long to show here: Statement \\(${sql.length.toLocaleString('en-US')} characters\\)\\. It is in full in the file approval-${id}\\.txt posted with this card`,
      ),
    );
    expect(shown).not.toContain('OR 1 = 1');
    const withFile = cardsIn(records).find((post) =>
      (post.reply.files ?? []).some((file) => file.filename === `approval-${id}.txt`),
    );
    expect(withFile).toBeDefined();
    const content = fileText(withFile!.reply.files!.find((file) => file.filename === `approval-${id}.txt`)!);
    expect(content).toContain(sql);
    expect(content).toContain(`"database":"${bed.sandbox.databaseId}"`);
    expect(content).toContain(`"sql":${JSON.stringify(sql)}`);
    // The comment hides "OR 1 = 1" from the card, not from the count: every row matches.
    expect(shown).toMatch(/[1-9]\d+ rows match its WHERE now/);
    // The file went up before the card, so an approver never sees a card that points at nothing.
    const fileMessage = records.find(
      (record) => record.kind === 'post' && wordsOf(record.reply).includes(`approval request ${id}, in full`),
    );
    expect(fileMessage).toBe(withFile);
    expect(records.indexOf(fileMessage!)).toBeLessThan(records.indexOf(card));

    // The list shows what each request will do, under the same rule.
    const listed = answers(await bed.run('approvals', { userId: 'U0LEAD' }));
    const listText = listed.map(readableOf).join('\n');
    expect(listText).toContain(`Run a write statement on database ${bed.sandbox.databaseId}`);
    expect(listText).toContain('*Too long to show here: Statement');
    expect(listText).toContain('approval-requests.txt sent with this list');
    const listFile = listed
      .flatMap((reply) => reply.files ?? [])
      .find((f) => f.filename === 'approval-requests.txt');
    expect(fileText(listFile!)).toContain(sql);
    await bed.submit(
      { callbackId: 'approvals:reject', privateMetadata: id },
      { reason: undefined },
      { userId: 'U0LEAD', channelId: 'C0APPROVALS' },
    );
    expect(await desk.stateOf(id)).toBe('rejected');
  });

  it('db exec shows on the card how many rows its WHERE matches now, and the result puts the rows affected beside it', async () => {
    const sql = "UPDATE orders SET note = 'checked' WHERE id IN (5, 6, 999)";
    const { id, card } = await newCard(`db exec ${sql}`);
    const shown = readableOf(card);
    expect(shown).toContain('2 rows match its WHERE now');
    expect(shown).toContain('triggers and foreign-key cascades are not counted');
    expect(shown).not.toContain('No WHERE');
    const approved = await approve(id);
    expect(await desk.stateOf(id)).toBe('succeeded');
    expect(
      postsIn(approved, 'C0OPS').some((post) =>
        wordsOf(post.reply).includes('2 rows affected (the preview counted 2 rows)'),
      ),
    ).toBe(true);
  });

  it('db exec warns in bold that an UPDATE or DELETE without WHERE changes every row, and says when it cannot count', async () => {
    const everyRow = await newCard('db exec DELETE FROM orders');
    const shown = readableOf(everyRow.card);
    expect(shown).toContain('*No WHERE: this changes every row of orders.*');
    expect(shown).toMatch(
      /It changes all \d+ rows the table holds now \(counted \d\d:\d\d UTC, read-only\); rows changed by triggers and foreign-key cascades are not counted\./,
    );
    expect(shown).not.toContain('match its WHERE');
    await cancel(everyRow.id);
    expect(await desk.stateOf(everyRow.id)).toBe('cancelled');

    const withCte = await newCard(
      "db exec WITH gone AS (SELECT 5 AS id) UPDATE orders SET note = 'x' WHERE id IN (SELECT id FROM gone)",
    );
    expect(readableOf(withCte.card)).toContain(
      'Impact unknown: the statement is not one the bot can rewrite into a count.',
    );
    expect(readableOf(withCte.card)).not.toContain('No WHERE');
    await cancel(withCte.id);
    expect(await desk.stateOf(withCte.id)).toBe('cancelled');
  });

  it('db exec locks the database per person: two people each have one open write, and a second of one’s own points to the first', async () => {
    const mine = await newCard("db exec UPDATE orders SET note = 'a' WHERE id = 1");
    const theirs = await newCard("db exec UPDATE orders SET note = 'b' WHERE id = 2", 'U0ERIN');
    // The card still names the database as what it changes.
    expect(readableOf(theirs.card)).toContain(bed.runtime.services.database!.databaseId);

    const again = await bed.run("db exec UPDATE orders SET note = 'c' WHERE id = 3");
    const refused = answered(again);
    expect(refused).toContain('You already have an open request for db.exec');
    expect(refused).toContain(mine.id);
    expect(refused).toContain(`/edge approvals cancel ${mine.id}`);
    expect(cardsIn(again)).toEqual([]);

    await cancel(mine.id, 'U0YOU');
    await cancel(theirs.id, 'U0ERIN');
    expect(await desk.stateOf(mine.id)).toBe('cancelled');
    expect(await desk.stateOf(theirs.id)).toBe('cancelled');
  });

  it('db exec refuses a statement the database calls read-only, pointing to /edge db query', async () => {
    const records = await bed.run('db exec SELECT count(*) FROM orders');
    const told = answered(records);
    expect(told).toContain('only reads');
    expect(told).toContain('/edge db query');
    expect(told).not.toContain('Approval requested');
    expect(cardsIn(records)).toEqual([]);
  });

  it('db exec refuses a statement that cannot be parsed before asking anyone to approve it', async () => {
    const records = await bed.run('db exec UPDAT orders SET status = 1');
    expect(answered(records)).toContain('could not be parsed');
    expect(cardsIn(records)).toEqual([]);
  });

  it('db exec does not run statements that are neither reads nor changes, and asks nobody to approve them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-attach-'));
    const path = join(dir, 'x.db');
    try {
      for (const [sql, keyword] of [
        [`ATTACH DATABASE '${path}' AS x`, 'ATTACH'],
        ['PRAGMA foreign_keys = OFF', 'PRAGMA'],
        ['BEGIN IMMEDIATE', 'BEGIN'],
        ['VACUUM', 'VACUUM'],
      ] as const) {
        const records = await bed.run(`db exec ${sql}`);
        const told = answered(records);
        expect(told).toContain(`/edge does not run ${keyword} statements`);
        expect(told).not.toContain('/edge db query');
        expect(told).not.toContain('Approval requested');
        expect(cardsIn(records)).toEqual([]);
      }
      expect(existsSync(path)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('db tokens create gives a read-only token to the requester alone, by DM', async () => {
    const { id, card } = await newCard('db tokens create --read-only --expires 30d');
    // The database is named on the card as the platform names it.
    expect(readableOf(card)).toContain(`${bed.sandbox.databaseId} · shop`);
    const approved = await approve(id);
    expect(await desk.stateOf(id)).toBe('succeeded');
    const dm = dmsIn(approved).find((record) => wordsOf(record.reply).includes('Read-only token'));
    const token = /`([^`]{20,})`/.exec(JSON.stringify(dm?.reply.blocks))?.[1];
    expect(token).toBeDefined();
    const client = createClient({ url: bed.sandbox.databaseUrl, authToken: token });
    try {
      await expect(client.execute('SELECT count(*) FROM customers')).resolves.toBeDefined();
      await expect(client.execute("INSERT INTO customers (name) VALUES ('x')")).rejects.toThrow();
    } finally {
      client.close();
    }
    expect(
      [...approved, ...bed.messenger.records].filter(
        (record) => record.kind !== 'dm' && JSON.stringify(record).includes(token!),
      ),
    ).toEqual([]);
  });

  it('db tokens refuse at once a database the platform does not know, before any form or card', async () => {
    for (const text of [
      'db tokens create --read-only --db db_nowhere',
      'db tokens create --db db_nowhere',
      'db tokens invalidate --db db_nowhere',
    ]) {
      const records = await bed.run(text);
      const told = answered(records);
      expect(told).toContain('No database db_nowhere was found on the platform');
      expect(told).not.toContain('Approval requested');
      expect({ cards: cardsIn(records), forms: records.filter((r) => r.kind === 'form') }).toEqual({
        cards: [],
        forms: [],
      });
    }
    const stored = await bed.runtime.services.state.client.execute(
      "SELECT count(*) AS n FROM approvals WHERE target = 'db_nowhere'",
    );
    expect(Number(stored.rows[0]?.n)).toBe(0);
  });

  it('db tokens invalidate warns that the bot’s own token stops working, needs two typed confirmations, and with --regenerate the bot keeps working', async () => {
    const { id, card } = await newCard('db tokens invalidate --regenerate');
    expect(wordsOf(card)).toContain('SERVICE_DATABASE_AUTH_TOKEN stops working');
    for (const user of ['U0LEAD', 'U0LEAD2'])
      await bed.submit(
        { callbackId: 'approvals:confirm', privateMetadata: id },
        { confirmation: bed.sandbox.databaseId },
        { userId: user, channelId: 'C0APPROVALS' },
      );
    expect(await desk.stateOf(id)).toBe('succeeded');
    const old = createClient({
      url: bed.sandbox.databaseUrl,
      authToken: bed.sandbox.databaseTokens.fullAccess,
    });
    try {
      await expect(old.execute('SELECT 1')).rejects.toThrow();
    } finally {
      old.close();
    }
    const rows = await bed.runtime.services.database!.runReadOnlyQuery('SELECT count(*) FROM customers');
    expect(Number(rows.rows[0]?.[0])).toBeGreaterThan(0);
  });

  it('db tokens invalidate without --regenerate warns that /edge db will stop working', async () => {
    const { card } = await newCard('db tokens invalidate');
    expect(wordsOf(card)).toContain('will stop working');
  });
});
