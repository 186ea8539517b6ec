/** `/edge audit --export` through the Bolt app: the CSV reaches the requester's DM, scrubbed, formulas neutralised. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pinnedClock } from '../support/clock.js';
import { type Harness, startHarness } from '../support/harness.js';
import { DEFAULT_USER_ID } from '../support/payloads.js';

const clock = pinnedClock();
let sandbox: Sandbox;
let h: Harness;

beforeAll(async () => {
  sandbox = await startSandbox({ now: clock });
  h = await startHarness({ clock, sandbox });
});
afterAll(async () => {
  await h?.close();
  await sandbox?.close();
});

describe('/edge audit --export in Slack', () => {
  it('uploads the CSV to the requester’s DM, formulas neutralised, and tells the channel where it went', async () => {
    await h.runtime.services.audit.append({
      userId: 'U0EVE',
      channelId: 'C0OPS',
      operation: 'pullzone.reset-key',
      target: '308006',
      params: { reason: '=HYPERLINK("https://evil.example","x")' },
      outcome: 'failed',
      approvalId: null,
      correlationId: 'c-slack-export',
      detail: '=HYPERLINK("https://evil.example","x") <!channel>',
    });
    await h.command('audit --export --user U0EVE --user U0YOU');
    const file = await h.fake.waitForUpload((each) => each.filename.startsWith('audit-export-'));
    expect(file.channelId).toBe(h.fake.dmChannelFor(DEFAULT_USER_ID));
    const csv = file.bytes.toString('utf8');
    expect(csv.split('\r\n')[0]).toBe(
      'id,time,user_id,channel_id,operation,target,params,outcome,approval_id,correlation_id,detail,prev_hash,hash',
    );
    expect(csv).toContain(`"'=HYPERLINK(""https://evil.example"",""x"") <!channel>"`);
    expect(file.initialComment).toMatch(/^Hash chain verified over the period: /);
    expect(file.initialComment).toContain('only users U0EVE, U0YOU');
    const told = await h.fake.waitForResponse((post) => JSON.stringify(post.body).includes('audit export'));
    expect(JSON.stringify(told.body)).toContain('went to you by direct message');
  });
});
