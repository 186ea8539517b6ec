/** A bare `/edge` opens a menu of what this person may run here; each entry opens its form. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, SIGNING_SECRET, startHarness } from '../support/harness.js';
import { blockActions, newTs, textInput, viewOutput } from '../support/payloads.js';
import { postSigned } from '../support/signer.js';

/**
 * Everyone lists DNS zones and reads the audit log; API keys are listed in C0OPS only; origin
 * logs and the Shield export are for U0ALICE, in C0INCIDENT only.
 */
const POLICY = `
roles:
  everyone: ["*"]
  oncall: [U0ALICE]
grants:
  - ops: [dns.list, audit.list]
    roles: [everyone]
  - ops: [apikey.list]
    roles: [everyone]
    channels: [C0OPS]
  - ops: [logs.origin, shield.export]
    roles: [oncall]
    channels: [C0INCIDENT]
`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ policyYaml: POLICY });
});
afterAll(async () => {
  await h?.close();
});

interface View {
  callback_id: string;
  private_metadata: string;
  title: { text: string };
  blocks: { type: string; block_id?: string; elements?: { action_id: string; value: string }[] }[];
}

/** Types a bare `/edge` and returns the menu Slack was asked to open. */
async function openMenu(userId: string, channelId: string): Promise<{ view: View; id: string }> {
  const { ack, triggerId } = await h.command('', { userId, channelId });
  expect(ack.status).toBe(200);
  const opened = await h.fake.waitFor('views.open', (call) => call.args.trigger_id === triggerId, 10_000);
  return {
    view: opened.args.view as unknown as View,
    id: String((opened.response.view as { id: string }).id),
  };
}

const buttonsOf = (view: View) =>
  view.blocks.flatMap((block) => (block.type === 'actions' ? (block.elements ?? []) : []));

const textOf = (call: RecordedCall) => `${String(call.args.text)} ${JSON.stringify(call.args.blocks ?? [])}`;

describe('the menu', () => {
  it.each([
    ['U0ALICE', 'C0INCIDENT', ['logs', 'shield.export', 'dns', 'audit', 'whoami', 'context']],
    ['U0ALICE', 'C0OPS', ['dns', 'apikeys', 'audit', 'whoami', 'context']],
    ['U0BOB', 'C0INCIDENT', ['dns', 'audit', 'whoami', 'context']],
    ['U0BOB', 'C0OPS', ['dns', 'apikeys', 'audit', 'whoami', 'context']],
  ])(
    'lists for %s in %s exactly what the policy allows there, grouped by task',
    async (user, channel, keys) => {
      const { view } = await openMenu(user, channel);
      expect(view.title.text).toBe('edgeops');
      expect(buttonsOf(view).map((button) => button.value)).toEqual(keys);
      expect(JSON.parse(view.private_metadata)).toMatchObject({ c: channel });
      const headers = JSON.stringify(view.blocks.filter((block) => block.type === 'header'));
      if (keys.includes('logs')) expect(headers).toContain('Incident');
      expect(headers).toContain('Look up');
      expect(headers).not.toContain('Change');
    },
  );

  it('opens the chosen command’s form in its place, and answers the form in the channel', async () => {
    const { view, id } = await openMenu('U0ALICE', 'C0INCIDENT');
    const logs = buttonsOf(view).find((button) => button.value === 'logs')!;
    const click = blockActions({
      actionId: logs.action_id,
      value: logs.value,
      userId: 'U0ALICE',
      view: viewOutput({ viewId: id, privateMetadata: view.private_metadata, submit: null }),
    });
    expect((await postSigned(h.eventsUrl, click, { signingSecret: SIGNING_SECRET })).status).toBe(200);
    const updated = await h.fake.waitFor('views.update', (call) => call.args.view_id === id, 10_000);
    const form = updated.args.view as unknown as View;
    expect(form.callback_id).toBe('menu.logs:run');
    expect(form.blocks.map((block) => block.block_id).filter(Boolean)).toContain('PULLZONE_ID');

    const bad = await h.submitView(
      form.callback_id,
      form.private_metadata,
      { PULLZONE_ID: textInput('308006'), '--last': textInput('2 hours') },
      { userId: 'U0ALICE' },
    );
    expect(bad.body).toMatchObject({ response_action: 'errors', errors: { '--last': expect.any(String) } });
    expect(Object.keys((bad.body as { errors: object }).errors)).toEqual(['--last']);

    const ack = await h.submitView(
      form.callback_id,
      form.private_metadata,
      { PULLZONE_ID: textInput('308006'), '--last': textInput('1h') },
      { userId: 'U0ALICE' },
    );
    expect(ack.body).toBeUndefined();
    const answer = await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === 'C0INCIDENT' && textOf(call).includes('308006'),
      10_000,
    );
    expect(answer.args.channel).toBe('C0INCIDENT');
    const rows = await h.runtime.services.audit.list({ limit: 50 });
    // The bad value ran nothing: one request, started once, from the channel the menu was opened in.
    const started = rows.filter(
      (row) => row.operation === 'logs.origin' && row.userId === 'U0ALICE' && row.outcome === 'started',
    );
    expect(started.map((row) => [row.target, row.channelId])).toEqual([['308006', 'C0INCIDENT']]);
  });

  it('refuses a form for a command the person may not run in that channel', async () => {
    const { view, id } = await openMenu('U0BOB', 'C0INCIDENT');
    const click = blockActions({
      actionId: 'menu:open#0',
      value: 'logs',
      userId: 'U0BOB',
      view: viewOutput({ viewId: id, privateMetadata: view.private_metadata, submit: null }),
    });
    await postSigned(h.eventsUrl, click, { signingSecret: SIGNING_SECRET });
    const refused = await h.fake.waitFor(
      'chat.postEphemeral',
      (call) => call.args.user === 'U0BOB' && textOf(call).includes('not something you may run here'),
      10_000,
    );
    expect(refused.args.channel).toBe('C0INCIDENT');
    expect(h.fake.callsTo('views.update').filter((call) => call.args.view_id === id)).toEqual([]);
  });

  it('shows the menu in the thread for @edgeops alone; a button opens the form, answered in that thread', async () => {
    const threadTs = newTs(h.clock());
    await h.mention('', { userId: 'U0BOB', channelId: 'C0OPS', threadTs });
    const menu = await h.fake.waitFor(
      'chat.postEphemeral',
      (call) => call.args.thread_ts === threadTs && textOf(call).includes('menu:open'),
      10_000,
    );
    const dns = (menu.args.blocks as View['blocks'])
      .flatMap((block) => (block.type === 'actions' ? (block.elements ?? []) : []))
      .find((button) => button.value === 'dns')!;
    // A click on a message only its reader sees, in a thread: Slack names the thread in the container.
    const click = blockActions({
      actionId: dns.action_id,
      value: dns.value,
      userId: 'U0BOB',
      channelId: 'C0OPS',
      isEphemeral: true,
      container: {
        type: 'message',
        message_ts: newTs(h.clock()),
        channel_id: 'C0OPS',
        is_ephemeral: true,
        thread_ts: threadTs,
      },
      responseUrl: h.fake.responseUrl(),
    });
    await postSigned(h.eventsUrl, click, { signingSecret: SIGNING_SECRET });
    const opened = await h.fake.waitFor(
      'views.open',
      (call) => (call.args.view as unknown as View).callback_id === 'menu.dns:run',
      10_000,
    );
    const form = opened.args.view as unknown as View;
    expect(JSON.parse(form.private_metadata)).toMatchObject({ c: 'C0OPS', t: threadTs });
    const ack = await h.submitView(
      form.callback_id,
      form.private_metadata,
      { SEARCH: textInput('example') },
      {
        userId: 'U0BOB',
      },
    );
    expect(ack.body).toBeUndefined();
    await h.fake.waitFor(
      'chat.postEphemeral',
      (call) => call.args.thread_ts === threadTs && textOf(call).includes('example.com'),
      10_000,
    );
  });

  it('keeps the text list for /edge help', async () => {
    await h.command('help', { userId: 'U0BOB', channelId: 'C0OPS' });
    const answer = await h.fake.waitForResponse(
      (response) => JSON.stringify(response.body).includes('what you can run here'),
      10_000,
    );
    expect(JSON.stringify(answer.body)).toContain('/edge apikeys');
    expect(JSON.stringify(answer.body)).not.toContain('/edge logs');
  });
});
