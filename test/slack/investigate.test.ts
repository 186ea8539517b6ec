import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVESTIGATE_FORM, INVESTIGATE_SHORTCUT } from '../../src/operations/logs/investigate.js';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { datetimePicker, externalSelect, newTs, staticSelect } from '../support/payloads.js';

/** Everyone reads origin logs; the Shield export is for U0SEC only. */
const POLICY = `
roles:
  everyone: ["*"]
  security: [U0SEC]
grants:
  - ops: [logs.origin, dns.list]
    roles: [everyone]
  - ops: [shield.export]
    roles: [security]
`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ policyYaml: POLICY });
});
afterAll(async () => {
  await h?.close();
});

interface OpenedView {
  callback_id: string;
  private_metadata: string;
  blocks: {
    block_id?: string;
    element?: {
      type?: string;
      initial_value?: string;
      initial_option?: { value: string };
      initial_date_time?: number;
    };
  }[];
}

/** Uses the shortcut on a message and returns the form Slack was asked to open. */
async function investigate(
  text: string,
  options: { messageTs?: string; threadTs?: string; userId?: string } = {},
): Promise<{ view: OpenedView; messageTs: string }> {
  const messageTs = options.messageTs ?? newTs(h.clock());
  const { ack, triggerId } = await h.shortcut({
    callbackId: INVESTIGATE_SHORTCUT,
    text,
    messageTs,
    threadTs: options.threadTs,
    userId: options.userId,
  });
  expect(ack.status).toBe(200);
  const opened = await h.fake.waitFor('views.open', (call) => call.args.trigger_id === triggerId, 10_000);
  return { view: opened.args.view as unknown as OpenedView, messageTs };
}

const initial = (view: OpenedView, id: string) => view.blocks.find((block) => block.block_id === id)?.element;

const textOf = (call: RecordedCall) => `${String(call.args.text)} ${JSON.stringify(call.args.blocks ?? [])}`;

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

describe('"Investigate with edgeops" on an alert', () => {
  it('opens a form pre-filled with the pull zone and a window around the alert’s times', async () => {
    const { view, messageTs } = await investigate(
      ':rotating_light: High 5xx rate on pull zone 308006 since 13:30 UTC (fired 2026-11-21T13:40:00Z)',
    );
    expect(view.callback_id).toBe(INVESTIGATE_FORM);
    expect(initial(view, 'what')?.initial_option?.value).toBe('logs');
    // The picker takes both kinds: its value says which.
    expect(initial(view, 'zone')?.initial_option?.value).toBe('pullzone:308006');
    expect(initial(view, 'zone')?.type).toBe('external_select');
    expect(initial(view, 'from')?.initial_date_time).toBe(seconds('2026-11-21T13:00:00Z'));
    expect(initial(view, 'to')?.initial_date_time).toBe(seconds('2026-11-21T14:00:00Z'));
    expect(JSON.parse(view.private_metadata)).toMatchObject({ c: 'C0OPS', t: messageTs });
  });

  it('answers a submitted form in the message’s thread, through policy and audit', async () => {
    const { view, messageTs } = await investigate('pullzone=308006 origin errors rising');
    const ack = await h.submitView(INVESTIGATE_FORM, view.private_metadata, {
      what: staticSelect('logs'),
      zone: externalSelect('pullzone:308006'),
      from: datetimePicker(seconds('2026-11-21T13:00:00Z')),
      to: datetimePicker(seconds('2026-11-21T14:00:00Z')),
    });
    expect(ack.status).toBe(200);
    expect(ack.body).toBeUndefined();
    const answer = await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.thread_ts === messageTs && textOf(call).includes('308006'),
      10_000,
    );
    expect(answer.args.channel).toBe('C0OPS');
    const rows = await h.runtime.services.audit.list({ limit: 20 });
    const outcomes = rows
      .filter((row) => row.operation === 'logs.origin' && row.target === '308006' && row.userId === 'U0YOU')
      .map((row) => [row.outcome, row.channelId]);
    expect(outcomes).toContainEqual(['started', 'C0OPS']);
    await expect
      .poll(
        async () =>
          (await h.runtime.services.audit.list({ limit: 20 })).some(
            (row) =>
              row.operation === 'logs.origin' && row.target === '308006' && row.outcome === 'succeeded',
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
  });

  it('answers in the thread a message is a reply in', async () => {
    const threadTs = newTs(h.clock());
    const { view } = await investigate('pull zone 308006', { threadTs });
    expect(JSON.parse(view.private_metadata)).toMatchObject({ t: threadTs });
  });

  it('shows what is wrong on the fields, before anything runs', async () => {
    const { view } = await investigate('zone 5101 blocks spiking');
    expect(initial(view, 'what')?.initial_option?.value).toBe('shield');
    const badZone = await h.submitView(
      INVESTIGATE_FORM,
      view.private_metadata,
      {
        what: staticSelect('shield'),
        zone: externalSelect('the WAF one'),
        from: datetimePicker(seconds('2026-11-21T13:00:00Z')),
        to: datetimePicker(seconds('2026-11-21T14:00:00Z')),
      },
      { userId: 'U0SEC' },
    );
    expect(badZone.body).toEqual({
      response_action: 'errors',
      errors: { zone: 'Type the Shield zone id as a number, e.g. 5101.' },
    });
    const logsBefore = h.sandbox.requests.count('logs.origin');
    const otherKind = await h.submitView(INVESTIGATE_FORM, view.private_metadata, {
      what: staticSelect('logs'),
      zone: externalSelect('shieldzone:5101'),
      from: datetimePicker(seconds('2026-11-21T13:00:00Z')),
      to: datetimePicker(seconds('2026-11-21T14:00:00Z')),
    });
    expect(otherKind.body).toEqual({
      response_action: 'errors',
      errors: {
        zone: 'Shield zone 5101 has no origin error logs: pick a pull zone, or run the Shield event export.',
      },
    });
    expect(h.sandbox.requests.count('logs.origin')).toBe(logsBefore);
    const before = h.sandbox.requests.count('shield.export');
    const tooOld = await h.submitView(
      INVESTIGATE_FORM,
      view.private_metadata,
      {
        what: staticSelect('shield'),
        zone: externalSelect('shieldzone:5101'),
        from: datetimePicker(seconds('2026-11-17T13:00:00Z')),
        to: datetimePicker(seconds('2026-11-21T14:00:00Z')),
      },
      { userId: 'U0SEC' },
    );
    expect(tooOld.body).toMatchObject({
      response_action: 'errors',
      errors: { from: expect.stringContaining('72 hours') },
    });
    expect(h.sandbox.requests.count('shield.export')).toBe(before);
  });

  it('tells someone the policy denies why, privately, in the thread, and runs nothing', async () => {
    const { view, messageTs } = await investigate('zone 5101 blocks spiking', { userId: 'U0BOB' });
    const before = h.sandbox.requests.count('shield.export');
    await h.submitView(
      INVESTIGATE_FORM,
      view.private_metadata,
      {
        what: staticSelect('shield'),
        zone: externalSelect('5101'),
        from: datetimePicker(seconds('2026-11-21T13:00:00Z')),
        to: datetimePicker(seconds('2026-11-21T14:00:00Z')),
      },
      { userId: 'U0BOB' },
    );
    const denial = await h.fake.waitFor(
      'chat.postEphemeral',
      (call) => call.args.thread_ts === messageTs && call.args.user === 'U0BOB',
      10_000,
    );
    expect(textOf(denial)).toContain('shield.export');
    expect(h.sandbox.requests.count('shield.export')).toBe(before);
  });
});
