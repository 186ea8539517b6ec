/**
 * Slack's side failing: a rate-limited post, an expired trigger, a file that cannot be
 * uploaded. The answer still arrives, or the user is told what happened, and no temporary file
 * is left behind.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pinnedClock } from '../support/clock.js';
import { type Harness, startHarness } from '../support/harness.js';

const clock = pinnedClock();

let sandbox: Sandbox;
let h: Harness;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edgeops-slack-faults-'));
  sandbox = await startSandbox({ now: clock });
  h = await startHarness({
    clock,
    sandbox,
    serviceDatabase: true,
  });
});
afterAll(async () => {
  await h?.close();
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  h.fake.reset();
});

let channel = 0;
/** Each test posts into a channel of its own, so messages are attributed without doubt. */
const freshChannel = () => `C0SF${++channel}`;

const postsTo = (channelId: string) =>
  h.fake.callsTo('chat.postMessage').filter((call) => call.args.channel === channelId);

describe('Slack faults', () => {
  it('a reply still arrives in the channel after chat.postMessage is rate limited once', async () => {
    const channelId = freshChannel();
    h.fake.fail('chat.postMessage', { status: 429, retryAfter: 1, times: 1 });
    await h.command('db query SELECT 1 AS one', { channelId });
    const delivered = await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === channelId && call.status === 200,
      10_000,
    );
    expect(String(delivered.args.text)).toContain('1 row');
    expect(postsTo(channelId).map((call) => call.status)).toEqual([429, 200]);
    expect(h.fake.messages.filter((message) => message.channel === channelId)).toHaveLength(1);
  });

  it('answers privately when Slack refuses to open a form because the trigger expired', async () => {
    const channelId = freshChannel();
    h.fake.fail('views.open', { error: 'expired_trigger_id' });
    const { responseUrl } = await h.command('library create Late', { channelId });
    const told = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000);
    expect(told.body.response_type).toBe('ephemeral');
    expect(h.fake.views).toEqual([]);
    expect(postsTo(channelId)).toEqual([]);
  });

  it.each([
    ['the upload step', 'upload', 'logs 308006'],
    ['files.completeUploadExternal', 'files.completeUploadExternal', 'shield export 5101 --last 1h'],
  ])(
    'a report whose CSV fails at %s tells the user and leaves no temporary file',
    async (_, method, text) => {
      const channelId = freshChannel();
      // Reports write their CSV under the OS temporary folder: give this test a folder of its own.
      const reports = mkdtempSync(join(dir, 'reports-'));
      const previous = process.env.TMPDIR;
      process.env.TMPDIR = reports;
      try {
        h.fake.fail(method, method === 'upload' ? { status: 500, times: 10 } : { error: 'internal_error' });
        const { responseUrl } = await h.command(text, { channelId });
        const told = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 15_000);
        const id = /correlation id (c-[0-9a-f]+)/.exec(String(told.body.text))?.[1];
        expect(id).toBeDefined();
        expect(h.logs.some((line) => line.includes(id!))).toBe(true);
        expect(h.fake.uploads).toEqual([]);
        // Only the CSV counts: under vitest the report worker's TypeScript loader keeps a cache there too.
        const csvFiles = () => readdirSync(reports).filter((name) => name.endsWith('.csv'));
        await expect.poll(csvFiles, { timeout: 5_000 }).toEqual([]);
      } finally {
        // Assigning undefined would leave the text "undefined" as the temporary folder.
        if (previous === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = previous;
      }
    },
  );

  it('a query result whose file cannot be uploaded is reported to the user with a correlation id', async () => {
    const channelId = freshChannel();
    h.fake.fail('files.completeUploadExternal', { error: 'internal_error', times: 1 });
    // More rows than a table shows: the answer carries its CSV.
    const { responseUrl } = await h.command('db query SELECT o.id, p.id FROM orders o, orders p', {
      channelId,
    });
    const told = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000);
    const id = /correlation id (c-[0-9a-f]+)/.exec(String(told.body.text))?.[1];
    expect(id).toBeDefined();
    expect(h.logs.some((line) => line.includes(id!))).toBe(true);
    expect(h.fake.uploads).toEqual([]);
  });
});
