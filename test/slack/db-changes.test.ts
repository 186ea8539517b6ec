import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pinnedClock } from '../support/clock.js';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { textInput } from '../support/payloads.js';
import { everyoneMayRun } from '../support/policies.js';

const clock = pinnedClock();

const POLICY = everyoneMayRun({
  leads: ['U0LEAD', 'U0LEAD2'],
  gated: ['db.exec', 'db.tokens.create'],
  rules: [{ ops: ['db.tokens.invalidate'], required: 2, confirm: true }],
});

let sandbox: Sandbox;
let h: Harness;

beforeAll(async () => {
  sandbox = await startSandbox({ now: clock });
  h = await startHarness({
    clock,
    sandbox,
    policyYaml: POLICY,
    serviceDatabase: true,
  });
});
afterAll(async () => {
  await h?.close();
  await sandbox?.close();
});

async function newCard(text: string): Promise<{ id: string; card: RecordedCall }> {
  const seen = new Set(h.fake.callsTo('chat.postMessage'));
  const { responseUrl } = await h.command(text);
  const note = JSON.stringify((await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body);
  expect(note).toContain('Approval requested');
  const card = await h.fake.waitFor(
    'chat.postMessage',
    (c) => !seen.has(c) && c.args.channel === 'C0APPROVALS',
    5_000,
  );
  return { id: /ap_[0-9a-f]{16}/.exec(JSON.stringify(card.args.blocks))![0], card };
}

/** The text of a message's blocks as people read it: entities decoded, invisible guards removed. */
function approverTextOf(blocks: unknown): string {
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) {
        if (key === 'text' && typeof child === 'string') texts.push(child);
        else walk(child);
      }
  };
  walk(blocks);
  return texts
    .join('\n')
    .replace(/[\u200b\u2060]/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

const approverText = (call: RecordedCall) => approverTextOf(call.args.blocks);

const stateOf = async (id: string) => (await h.runtime.services.approvals.peek(id))?.state;

async function approve(id: string, userId = 'U0LEAD') {
  await h.click('approvals:approve', id, {
    userId,
    channelId: 'C0APPROVALS',
    responseUrl: h.fake.responseUrl(),
  });
}

describe('database changes through approval', () => {
  it('db exec shows the statement on the card and reports the rows affected after approval', async () => {
    const sql = "UPDATE orders SET status = 'refunded' WHERE id IN (3, 4)";
    const { id, card } = await newCard(`db exec ${sql}`);
    expect(JSON.stringify(card.args.blocks)).toContain(
      "UPDATE orders SET status = 'refunded' WHERE id IN (3, 4)",
    );
    await approve(id);
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('succeeded');
    const result = await h.fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === 'C0OPS' && JSON.stringify(c.args).includes('2 rows affected'),
      5_000,
    );
    expect(result).toBeDefined();
    const rows = await h.runtime.services.database!.runReadOnlyQuery(
      "SELECT count(*) FROM orders WHERE status = 'refunded' AND id IN (3, 4)",
    );
    expect(String(rows.rows[0]?.[0])).toBe('2');
  });

  it('db exec shows a 2,300-character statement whole on the card, tail included, with the digest the execution audits', async () => {
    const sql = `UPDATE orders SET status = 'refunded' WHERE id = 7 -- ${'x'.repeat(2_300)}\nOR 1 = 1`;
    const { id, card } = await newCard(`db exec ${sql}`);
    const shown = approverText(card);
    expect(shown).toContain(sql);
    expect(h.fake.uploads.filter((file) => file.filename.includes(id))).toEqual([]);
    const digest = /parameters sha256 `([0-9a-f]{12})`/.exec(shown)?.[1];
    expect(digest).toBeDefined();
    await approve(id);
    await expect.poll(() => stateOf(id), { timeout: 10_000 }).toMatch(/succeeded|failed/);
    const rows = (await h.runtime.services.audit.list({ limit: 200 })).filter((row) => row.approvalId === id);
    const executing = rows.find((row) => row.outcome === 'executing');
    expect(executing?.detail).toMatch(new RegExp(`params sha256 ${digest}[0-9a-f]{52}`));
    const request = await h.runtime.services.approvals.peek(id);
    expect(request?.paramsDigest.slice(0, 12)).toBe(digest);
  });

  it('db exec with a statement too long for the card says so in bold, and the file posted with it holds it whole', async () => {
    const sql = `UPDATE orders SET status = 'refunded' WHERE id = 8 -- ${'<y> & '.repeat(1_000)}\nOR 1 = 1`;
    const seen = new Set(h.fake.callsTo('chat.postMessage'));
    await h.command(`db exec ${sql}`);
    const card = await h.fake.waitFor(
      'chat.postMessage',
      (c) =>
        !seen.has(c) &&
        c.args.channel === 'C0APPROVALS' &&
        JSON.stringify(c.args).includes('approvals:approve'),
      10_000,
    );
    const id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(card.args.blocks))![0];
    const shown = approverText(card);
    expect(shown).toMatch(
      new RegExp(
        `\\*Too long to show here: Statement \\(${sql.length.toLocaleString('en-US')} characters\\)\\. It is in full in the file approval-${id}\\.txt posted with this card`,
      ),
    );
    expect(shown).not.toContain('OR 1 = 1');
    const file = await h.fake.waitForUpload((upload) => upload.filename === `approval-${id}.txt`, 10_000);
    expect(file.channels).toContain('C0APPROVALS');
    const content = file.bytes.toString('utf8');
    expect(content).toContain(sql);
    expect(content).toContain(`"database":"${h.sandbox.databaseId}"`);
    expect(content).toContain(`"sql":${JSON.stringify(sql)}`);
    // The comment hides "OR 1 = 1" from the card, not from the count: every row matches.
    expect(shown).toMatch(/[1-9]\d+ rows match its WHERE now/);
    // The file went up before the card, so an approver never sees a card that points at nothing.
    const fileMessage = h.fake
      .callsTo('chat.postMessage')
      .find((c) => !seen.has(c) && JSON.stringify(c.args).includes(`approval request ${id}, in full`));
    expect(h.fake.calls.indexOf(fileMessage!)).toBeLessThan(h.fake.calls.indexOf(card));

    // The list shows what each request will do, under the same rule.
    const { responseUrl } = await h.command('approvals', { userId: 'U0LEAD' });
    const listed = (await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 10_000)).body;
    const listText = approverTextOf(listed.blocks);
    expect(listText).toContain(`Run a write statement on database ${h.sandbox.databaseId}`);
    expect(listText).toContain('*Too long to show here: Statement');
    expect(listText).toContain('approval-requests.txt sent with this list');
    const listFile = await h.fake.waitForUpload(
      (upload) => upload.filename === 'approval-requests.txt',
      10_000,
    );
    expect(listFile.bytes.toString('utf8')).toContain(sql);
    await h.submitView(
      'approvals:reject',
      JSON.stringify({ c: 'C0APPROVALS', m: id }),
      { reason: textInput(null) },
      { userId: 'U0LEAD' },
    );
    await expect.poll(() => stateOf(id), { timeout: 10_000 }).toBe('rejected');
  });

  it('cancels the request when the file with its full statement cannot be uploaded, and posts no card', async () => {
    const sql = `UPDATE orders SET status = 'refunded' WHERE id = 9 -- ${'w'.repeat(6_000)}`;
    h.fake.fail('files.completeUploadExternal', { error: 'internal_error' });
    const seen = new Set(h.fake.callsTo('chat.postMessage'));
    const { responseUrl } = await h.command(`db exec ${sql}`);
    const told = JSON.stringify(
      (await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 10_000)).body,
    );
    expect(told).toContain(
      'I could not post the approval card in <#C0APPROVALS>: the file with its full parameters could not be uploaded there.',
    );
    const id = /ap_[0-9a-f]{16}/.exec(told)![0];
    expect(await stateOf(id)).toBe('cancelled');
    const cards = h.fake
      .callsTo('chat.postMessage')
      .filter((c) => !seen.has(c) && JSON.stringify(c.args).includes('approvals:approve'));
    expect(cards).toEqual([]);
  });

  it('db exec shows on the card how many rows its WHERE matches now, and the result puts the rows affected beside it', async () => {
    const sql = "UPDATE orders SET note = 'checked' WHERE id IN (5, 6, 999)";
    const { id, card } = await newCard(`db exec ${sql}`);
    const shown = approverText(card);
    expect(shown).toContain('2 rows match its WHERE now');
    expect(shown).toContain('triggers and foreign-key cascades are not counted');
    expect(shown).not.toContain('No WHERE');
    await approve(id);
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('succeeded');
    await h.fake.waitFor(
      'chat.postMessage',
      (c) =>
        c.args.channel === 'C0OPS' &&
        JSON.stringify(c.args).includes('2 rows affected (the preview counted 2 rows)'),
      5_000,
    );
  });

  it('db exec warns in bold that an UPDATE or DELETE without WHERE changes every row, and says when it cannot count', async () => {
    const cancel = (id: string) =>
      h.click('approvals:cancel', id, { channelId: 'C0OPS', responseUrl: h.fake.responseUrl() });
    const everyRow = await newCard('db exec DELETE FROM orders');
    const shown = approverText(everyRow.card);
    expect(shown).toContain('*No WHERE: this changes every row of orders.*');
    expect(shown).toMatch(/\d+ rows match its WHERE now/);
    await cancel(everyRow.id);
    await expect.poll(() => stateOf(everyRow.id), { timeout: 5_000 }).toBe('cancelled');

    const withCte = await newCard(
      "db exec WITH gone AS (SELECT 5 AS id) UPDATE orders SET note = 'x' WHERE id IN (SELECT id FROM gone)",
    );
    expect(approverText(withCte.card)).toContain(
      'Impact unknown: the statement is not one the bot can rewrite into a count.',
    );
    expect(approverText(withCte.card)).not.toContain('No WHERE');
    await cancel(withCte.id);
    await expect.poll(() => stateOf(withCte.id), { timeout: 5_000 }).toBe('cancelled');
  });

  it('db exec locks the database per person: two people each have one open write, and a second of one’s own points to the first', async () => {
    const cancel = (id: string, userId: string) =>
      h.click('approvals:cancel', id, { userId, channelId: 'C0OPS', responseUrl: h.fake.responseUrl() });
    const mine = await newCard("db exec UPDATE orders SET note = 'a' WHERE id = 1");
    const seen = new Set(h.fake.callsTo('chat.postMessage'));
    const { responseUrl: theirsUrl } = await h.command("db exec UPDATE orders SET note = 'b' WHERE id = 2", {
      userId: 'U0ERIN',
    });
    const theirsNote = JSON.stringify(
      (await h.fake.waitForResponse((p) => theirsUrl.endsWith(p.id), 5_000)).body,
    );
    expect(theirsNote).toContain('Approval requested');
    const theirs = await h.fake.waitFor(
      'chat.postMessage',
      (c) => !seen.has(c) && c.args.channel === 'C0APPROVALS',
      5_000,
    );
    const theirsId = /ap_[0-9a-f]{16}/.exec(JSON.stringify(theirs.args.blocks))![0];
    // The card still names the database as what it changes.
    expect(approverText(theirs)).toContain(h.runtime.services.database!.databaseId);

    const cards = h.fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'C0APPROVALS').length;
    const { responseUrl } = await h.command("db exec UPDATE orders SET note = 'c' WHERE id = 3");
    const refused = JSON.stringify(
      (await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body,
    );
    expect(refused).toContain('You already have an open request for db.exec');
    expect(refused).toContain(mine.id);
    expect(refused).toContain(`/edge approvals cancel ${mine.id}`);
    expect(h.fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'C0APPROVALS')).toHaveLength(
      cards,
    );

    await cancel(mine.id, 'U0YOU');
    await cancel(theirsId, 'U0ERIN');
    await expect.poll(() => stateOf(mine.id), { timeout: 5_000 }).toBe('cancelled');
    await expect.poll(() => stateOf(theirsId), { timeout: 5_000 }).toBe('cancelled');
  });

  it('db exec refuses a statement the database calls read-only, pointing to /edge db query', async () => {
    const cards = h.fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'C0APPROVALS').length;
    const { responseUrl } = await h.command('db exec SELECT count(*) FROM orders');
    const told = JSON.stringify(
      (await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body,
    );
    expect(told).toContain('only reads');
    expect(told).toContain('/edge db query');
    expect(told).not.toContain('Approval requested');
    expect(h.fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'C0APPROVALS')).toHaveLength(
      cards,
    );
  });

  it('db exec refuses a statement that cannot be parsed before asking anyone to approve it', async () => {
    const cards = h.fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'C0APPROVALS').length;
    const { responseUrl } = await h.command('db exec UPDAT orders SET status = 1');
    const told = JSON.stringify(
      (await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body,
    );
    expect(told).toContain('could not be parsed');
    expect(h.fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'C0APPROVALS')).toHaveLength(
      cards,
    );
  });

  it('db exec does not run statements that are neither reads nor changes, and asks nobody to approve them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeops-attach-'));
    const path = join(dir, 'x.db');
    const cards = () =>
      h.fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'C0APPROVALS').length;
    const before = cards();
    try {
      for (const [sql, keyword] of [
        [`ATTACH DATABASE '${path}' AS x`, 'ATTACH'],
        ['PRAGMA foreign_keys = OFF', 'PRAGMA'],
        ['BEGIN IMMEDIATE', 'BEGIN'],
        ['VACUUM', 'VACUUM'],
      ] as const) {
        const { responseUrl } = await h.command(`db exec ${sql}`);
        const told = JSON.stringify(
          (await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body,
        );
        expect(told).toContain(`/edge does not run ${keyword} statements`);
        expect(told).not.toContain('/edge db query');
        expect(told).not.toContain('Approval requested');
      }
      expect(cards()).toBe(before);
      expect(existsSync(path)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('db tokens create gives a read-only token to the requester alone, by DM', async () => {
    const { id, card } = await newCard('db tokens create --read-only --expires 30d');
    // The database is named on the card as the platform names it.
    expect(approverText(card)).toContain(`${sandbox.databaseId} · shop`);
    await approve(id);
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('succeeded');
    const dm = await h.fake.waitFor(
      'chat.postMessage',
      (c) => String(c.args.channel).startsWith('D') && JSON.stringify(c.args).includes('Read-only token'),
      5_000,
    );
    const token = /`([^`]{20,})`/.exec(JSON.stringify(dm.args.blocks))?.[1];
    expect(token).toBeDefined();
    const client = createClient({ url: sandbox.databaseUrl, authToken: token });
    try {
      await expect(client.execute('SELECT count(*) FROM customers')).resolves.toBeDefined();
      await expect(client.execute("INSERT INTO customers (name) VALUES ('x')")).rejects.toThrow();
    } finally {
      client.close();
    }
    expect(
      h.fake.calls.filter(
        (c) => !String(c.args.channel ?? '').startsWith('D') && JSON.stringify(c.args).includes(token!),
      ),
    ).toEqual([]);
  });

  it('db tokens refuse at once a database the platform does not know, before any form or card', async () => {
    const cards = () =>
      h.fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'C0APPROVALS').length;
    const before = { cards: cards(), forms: h.fake.callsTo('views.open').length };
    for (const text of [
      'db tokens create --read-only --db db_nowhere',
      'db tokens create --db db_nowhere',
      'db tokens invalidate --db db_nowhere',
    ]) {
      const { responseUrl } = await h.command(text);
      const told = JSON.stringify(
        (await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body,
      );
      expect(told).toContain('No database db_nowhere was found on the platform');
      expect(told).not.toContain('Approval requested');
    }
    expect({ cards: cards(), forms: h.fake.callsTo('views.open').length }).toEqual(before);
    const stored = await h.runtime.services.state.client.execute(
      "SELECT count(*) AS n FROM approvals WHERE target = 'db_nowhere'",
    );
    expect(Number(stored.rows[0]?.n)).toBe(0);
  });

  it('db tokens invalidate warns that the bot’s own token stops working, needs two typed confirmations, and with --regenerate the bot keeps working', async () => {
    const { id, card } = await newCard('db tokens invalidate --regenerate');
    expect(JSON.stringify(card.args.blocks)).toContain('SERVICE_DATABASE_AUTH_TOKEN stops working');
    for (const user of ['U0LEAD', 'U0LEAD2'])
      await h.submitView(
        'approvals:confirm',
        JSON.stringify({ c: 'C0APPROVALS', m: id }),
        { confirmation: textInput(sandbox.databaseId) },
        { userId: user },
      );
    await expect.poll(() => stateOf(id), { timeout: 5_000 }).toBe('succeeded');
    const old = createClient({ url: sandbox.databaseUrl, authToken: sandbox.databaseTokens.fullAccess });
    try {
      await expect(old.execute('SELECT 1')).rejects.toThrow();
    } finally {
      old.close();
    }
    const rows = await h.runtime.services.database!.runReadOnlyQuery('SELECT count(*) FROM customers');
    expect(Number(rows.rows[0]?.[0])).toBeGreaterThan(0);
  });

  it('db tokens invalidate without --regenerate warns that /edge db will stop working', async () => {
    const { card } = await newCard('db tokens invalidate');
    expect(JSON.stringify(card.args.blocks)).toContain('will stop working');
  });
});
