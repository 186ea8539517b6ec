/**
 * `/edge db tokens create` through Slack: with no access flag a form opens with read-only
 * chosen, and the card it leads to shows an expiry 30 days on, written as every date is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pinnedClock } from '../support/clock.js';
import { type Harness, startHarness } from '../support/harness.js';
import { staticSelect, textInput } from '../support/payloads.js';
import { everyoneMayRun } from '../support/policies.js';

const clock = pinnedClock('2026-11-21T14:00:00.000Z');
let sandbox: Sandbox;
let h: Harness;

beforeAll(async () => {
  sandbox = await startSandbox({ now: clock });
  h = await startHarness({
    clock,
    sandbox,
    policyYaml: everyoneMayRun({ gated: ['db.tokens.create'], leads: ['U0LEAD'] }),
    serviceDatabase: true,
  });
});
afterAll(async () => {
  await h?.close();
  await sandbox?.close();
});

interface OpenedView {
  callback_id: string;
  private_metadata: string;
  blocks: { block_id?: string; element?: { initial_option?: { value: string }; initial_value?: string } }[];
}

describe('/edge db tokens create without an access flag', () => {
  it('asks in a form, read-only chosen and 30 days, and the card shows that expiry as a date', async () => {
    const { triggerId } = await h.command('db tokens create');
    const opened = await h.fake.waitFor('views.open', (call) => call.args.trigger_id === triggerId, 10_000);
    const view = opened.args.view as unknown as OpenedView;
    expect(view.callback_id).toBe('db.tokens.create:access');
    const field = (id: string) => view.blocks.find((block) => block.block_id === id)?.element;
    expect(field('access')?.initial_option?.value).toBe('read-only');
    expect(field('expires')?.initial_value).toBe('30d');
    // Nobody has been asked to approve anything yet.
    expect(h.fake.callsTo('chat.postMessage').filter((c) => c.args.channel === 'C0APPROVALS')).toEqual([]);

    const ack = await h.submitView('db.tokens.create:access', view.private_metadata, {
      access: staticSelect('read-only'),
      expires: textInput('30d'),
    });
    expect(ack.status).toBe(200);
    const card = await h.fake.waitFor(
      'chat.postMessage',
      (c) => c.args.channel === 'C0APPROVALS' && JSON.stringify(c.args.blocks).includes('read-only token'),
      10_000,
    );
    expect(JSON.stringify(card.args.blocks)).toContain('2026-12-21 14:00 UTC');
  });
});
