import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CustomerDatabase, createCustomerDatabase } from '../../src/database/customer-database.js';
import { md } from '../../src/reply/markup.js';
import { inChannel } from '../../src/reply/model.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pinnedClock } from '../support/clock.js';
import type { UploadedFile } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { DEFAULT_CHANNEL_ID } from '../support/payloads.js';

const clock = pinnedClock();

let sandbox: Sandbox;
let h: Harness;
let database: CustomerDatabase;

beforeAll(async () => {
  sandbox = await startSandbox({ now: clock });
  h = await startHarness({ clock, sandbox, serviceDatabase: true });
  const configured = h.config.serviceDatabase;
  if (!configured) throw new Error('the harness did not read SERVICE_DATABASE_URL');
  database = createCustomerDatabase({ ...configured, secrets: h.runtime.secrets });
});
afterAll(async () => {
  await database?.close();
  await h?.close();
  await sandbox?.close();
});

/** The next upload whose name matches, ignoring files uploaded by earlier tests. */
async function upload(name: RegExp, timeoutMs = 20_000): Promise<UploadedFile> {
  const earlier = new Set(h.fake.uploads.filter((file) => name.test(file.filename)));
  return h.fake.waitForUpload((file) => name.test(file.filename) && !earlier.has(file), timeoutMs);
}

/** The registry's masked form of a secret, as messages show it too. */
const masked = (secret: string) => `[redacted …${secret.slice(-4)}]`;

/**
 * Every file the bot uploads passes the secret registry on its way out (PRODUCT §6): the bytes
 * Slack receives hold the masked form, and the file's comment says how many values were masked.
 */
describe('files uploaded to Slack', () => {
  it('mask the platform key in a db query row, and the comment says so', async () => {
    const key = h.config.platform!.apiKey;
    // Longer than a table cell: the table shows its start, the file has it whole.
    const pasted =
      'was pasted here by mistake in a note long enough to be cut short in the table of the message';
    await database.runWrite(`UPDATE orders SET note = '${key} ${pasted}' WHERE id = 2`);
    const next = upload(/^query-\d{8}-\d{6}\.csv$/);
    await h.command('db query SELECT id, note FROM orders WHERE id IN (1, 2, 3) ORDER BY id');
    const file = await next;
    const csv = file.bytes.toString('utf8');
    expect(csv).not.toContain(key);
    expect(csv.split('\r\n')[2]).toBe(`2,${masked(key)} ${pasted}`);
    expect(file.length).toBe(file.bytes.length);
    expect(file.initialComment).toContain('1 value that is a secret of this bot was masked.');
    expect(file.channelId).toBe(DEFAULT_CHANNEL_ID);
    // The table in the message shows the start of each value: no part of the key is in it.
    const message = await h.fake.waitFor('chat.postMessage', (call) =>
      JSON.stringify(call.args.blocks ?? []).includes('SELECT id, note FROM orders'),
    );
    expect(JSON.stringify(message.args)).not.toContain(key.slice(0, 12));
  });

  it('mask a secret in the fields of a streamed Shield export, however many rows hold it', async () => {
    // A value the bot holds as a secret that the platform's export carries in some rows.
    const secret = 't13d1516h2_8daaf6152771_02713d6af862';
    h.runtime.secrets.add(secret);
    const next = upload(/^shield-events-5101-/);
    await h.command('shield export 5101 --last 2h');
    const file = await next;
    expect(file.bytes.toString('utf8')).not.toContain(secret);
    const rows = parseCsv(file.bytes, { columns: true }) as Record<string, string>[];
    const maskedRows = rows.filter((row) => row.ja4 === masked(secret)).length;
    expect(maskedRows).toBeGreaterThan(1);
    expect(file.length).toBe(file.bytes.length);
    expect(file.initialComment).toContain(
      `${maskedRows.toLocaleString('en-US')} values that are secrets of this bot were masked.`,
    );
  });

  it('mask a secret in a file made in memory, and keep the one the reply exists to deliver', async () => {
    const key = h.config.platform!.apiKey;
    const delivered = 'pk_new_0f3e9a7c5b1d2e4f';
    h.runtime.secrets.add(delivered);
    const next = upload(/^parameters\.txt$/);
    await h.systemSurface.sendDirect('U0REQUESTER', {
      ...inChannel('Your new key', [{ type: 'text', text: md`Your new key is in the file.` }]),
      visibility: 'dm',
      reveals: [delivered],
      files: [
        {
          filename: 'parameters.txt',
          title: 'Parameters',
          content: `account key: ${key}\nnew key: ${delivered}\n`,
          comment: 'Every parameter in full.',
        },
      ],
    });
    const file = await next;
    expect(file.bytes.toString('utf8')).toBe(`account key: ${masked(key)}\nnew key: ${delivered}\n`);
    expect(file.initialComment).toBe(
      'Every parameter in full.\n1 value that is a secret of this bot was masked.',
    );
  });
});
