/** Failures the fault matrix first found; each is checked end to end here. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pinnedClock } from '../support/clock.js';
import { type Harness, startHarness } from '../support/harness.js';
import { checkboxes, staticSelect } from '../support/payloads.js';
import { everyoneMayRun } from '../support/policies.js';

const clock = pinnedClock();

const POLICY = everyoneMayRun({ gated: ['pullzone.reset-key'] });

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

const answer = async (text: string, channelId = 'C0OPS') => {
  const { responseUrl } = await h.command(text, { channelId });
  return (await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 10_000)).body;
};
const finalRow = async (channelId: string, operation: string) =>
  (await h.runtime.services.audit.list({ limit: 100 })).find(
    (row) => row.channelId === channelId && row.operation === operation && row.outcome !== 'started',
  );

describe('failures are told plainly, audited as failed, and carry a correlation id when unexpected', () => {
  it('tells the user to run the command again when the form’s trigger expired', async () => {
    h.fake.fail('views.open', { error: 'expired_trigger_id', times: 1 });
    const told = await answer('library create Late');
    expect(String(told.text)).toMatch(/run the command again/);
    expect(String(told.text)).not.toContain('Something went wrong');
  });

  it('escapes platform text in the notification text of an error reply', async () => {
    sandbox.faults.set('apikey.list', { status: 400, times: 1, body: { Message: 'Refused <!channel>' } });
    const told = JSON.stringify(await answer('apikeys'));
    expect(told).not.toContain('<!channel>');
    expect(told).toContain('&lt;!channel&gt;');
  });

  it('audits a failed direct bot-detection change as failed, with a correlation id for a 500', async () => {
    await h.command('shield bot-detection 5101', { channelId: 'C0BOT' });
    const opened = await h.fake.waitFor(
      'views.open',
      (c) => JSON.stringify(c.args).includes('C0BOT'),
      10_000,
    );
    const metadata = String((opened.args.view as { private_metadata: string }).private_metadata);
    sandbox.faults.set('shield.botDetection', { status: 500, times: 1 });
    await h.submitView('shield.bot-detection:submit', metadata, {
      executionMode: staticSelect('1'),
      requestIntegrity: staticSelect('2'),
      ipAddress: staticSelect('1'),
      fingerprint: staticSelect('3'),
      aggression: staticSelect('2'),
      complex: checkboxes([]),
    });
    const told = await h.fake.waitFor(
      'chat.postEphemeral',
      (c) => c.args.channel === 'C0BOT' && JSON.stringify(c.args).includes('failed'),
      10_000,
    );
    const id = /correlation id (c-[0-9a-f]+)/.exec(JSON.stringify(told.args))?.[1];
    expect(id).toBeDefined();
    expect(h.logs.some((line) => line.includes(id!))).toBe(true);
    await expect
      .poll(async () => (await finalRow('C0BOT', 'shield.bot-detection'))?.outcome, { timeout: 5_000 })
      .toBe('failed');
  });

  it('shows a correlation id, also in the log, when an approved change fails with a 500', async () => {
    const id = /ap_[0-9a-f]{16}/.exec(
      JSON.stringify(await answer('pullzone reset-key 410113 rotate', 'C0RESET')),
    )![0];
    sandbox.faults.set('pullzone.resetSecurityKey', { status: 500, times: 1 });
    await h.click('approvals:approve', id, {
      userId: 'U0LEAD',
      channelId: 'C0APPROVALS',
      responseUrl: h.fake.responseUrl(),
    });
    const posted = await h.fake.waitFor('chat.postMessage', (c) => c.args.channel === 'C0RESET', 10_000);
    const correlation = /correlation id (c-[0-9a-f]+)/.exec(JSON.stringify(posted.args))?.[1];
    expect(correlation).toBeDefined();
    expect(h.logs.some((line) => line.includes(correlation!))).toBe(true);
  });

  it('reports an origin-log body cut mid-stream as a connection failure, audited as failed', async () => {
    sandbox.faults.set('logs.origin', { truncate: true, times: 1 });
    expect(String((await answer('logs 308006', 'C0CUT')).text)).toMatch(/Could not reach the platform/);
    await expect
      .poll(async () => (await finalRow('C0CUT', 'logs.origin'))?.outcome, { timeout: 5_000 })
      .toBe('failed');
  });

  it('says the file could not be uploaded when a result file is refused', async () => {
    h.fake.fail('files.completeUploadExternal', { error: 'internal_error', times: 1 });
    expect(
      String((await answer('db query SELECT o.id, p.id FROM orders o, orders p', 'C0UPLOAD')).text),
    ).toMatch(/could not be uploaded/);
    await expect
      .poll(async () => (await finalRow('C0UPLOAD', 'db.query'))?.outcome, { timeout: 5_000 })
      .toBe('failed');
  });
});
