/**
 * The Home under a policy that limits where things run and who approves: its buttons work
 * although a Home click answers in the app's DM, and "waiting for you" follows the check a click
 * on Approve goes through (the policy in force, the escalation role once it applies).
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardRef } from '../../src/operations/approvals/card.js';
import { parsePolicy } from '../../src/policy/load.js';
import { SEEDED_IDS } from '../../src/sandbox/seed.js';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { homeTab } from '../support/home-tab.js';
import { DEFAULT_TEAM_DOMAIN } from '../support/payloads.js';

/** Everything runs in C0OPS only; key resets wait for a lead, and escalate to oncall; writes wait for a lead. */
const POLICY = `
channels: [C0OPS]
roles:
  everyone: ["*"]
  leads: [U0LEAD, U0LEAD2]
  oncall: [U0ONCALL]
grants:
  - ops: "*"
    roles: [everyone]
approvals:
  channel: C0APPROVALS
  ttl: 30m
  rules:
    - ops: [pullzone.reset-key]
      approvers: [leads]
      required: 1
      escalate_to: oncall
    - ops: [db.exec]
      approvers: [leads]
      required: 1
`;

let h: Harness;
const tab = homeTab(() => h);
const { homeOf, openHome } = tab;

beforeAll(async () => {
  h = await startHarness({ policyYaml: POLICY, serviceDatabase: true });
});
afterAll(async () => {
  await h?.close();
});

const text = (value: unknown) => JSON.stringify(value);

/** The action id and value of the Home's button labelled `label`. */
function buttonOf(home: string, label: string): { actionId: string; value: string } {
  const blocks = JSON.parse(home).blocks as {
    elements?: { text?: { text?: string }; action_id: string; value: string }[];
  }[];
  const button = blocks.flatMap((block) => block.elements ?? []).find((e) => e.text?.text === label);
  if (!button) throw new Error(`no button ${label} on the Home`);
  return { actionId: button.action_id, value: button.value };
}

/** Clicks a button of the user's Home tab, as Slack sends it. */
const clickOnHome = (userId: string, button: { actionId: string; value: string }) =>
  tab.clickOnHome(userId, button.actionId, button.value);

/** The next private answer in the app's DM with the user. */
const dmAnswer = (userId: string, predicate: (answer: string) => boolean) =>
  h.fake.waitFor(
    'chat.postEphemeral',
    (call) => call.args.channel === h.fake.dmChannelFor(userId) && predicate(text(call.args)),
    10_000,
  );

/** Writes the policy file and waits until the bot has reloaded it. */
async function usePolicy(yaml: string) {
  const parsed = parsePolicy(yaml, h.policyPath!);
  if (!parsed.ok) throw new Error(parsed.error);
  writeFileSync(h.policyPath!, yaml);
  await expect
    .poll(() => JSON.stringify(h.runtime.policies.current().roles), { timeout: 5_000 })
    .toBe(JSON.stringify(parsed.policy.roles));
}

/** Asks for a key reset in C0OPS as U0YOU and returns the request id from its card. */
async function requestReset(zone: number): Promise<string> {
  await h.command(`pullzone reset-key ${zone} rotated after an incident`, {
    userId: 'U0YOU',
    channelId: 'C0OPS',
  });
  const card = await h.fake.waitFor(
    'chat.postMessage',
    (call) => call.args.channel === 'C0APPROVALS' && text(call.args.blocks).includes(String(zone)),
    5_000,
  );
  return /ap_[0-9a-f]{16}/.exec(text(card.args.blocks))![0];
}

describe('the Home under a policy with channels', () => {
  it('stops a watch of C0OPS from the Home, checked in the watch’s channel, not the DM', async () => {
    const zone = 530_101;
    h.sandbox.knobs.setLogDay(zone, 0);
    await h.command(`watch logs ${zone}`, { userId: 'U0WATCHER', channelId: 'C0OPS' });
    const home = await openHome('U0WATCHER', (view) => view.includes(`Pull zone ${zone}`));

    await clickOnHome('U0WATCHER', buttonOf(home, 'Stop'));

    const answer = await dmAnswer('U0WATCHER', (call) => /stopped|Not allowed/.test(call));
    expect(text(answer.args)).toContain(`The watch of pull zone ${zone} is stopped`);
    await homeOf('U0WATCHER', (view) => view.includes('Your running watches (0)'));
  });

  it('lists every request waiting for you privately in the DM on "Show all"', async () => {
    await tab.backlog(8, 700_000, ['U0LEAD']);
    const home = await openHome('U0LEAD', (view) => view.includes('more requests waiting for you'));

    await clickOnHome('U0LEAD', buttonOf(home, 'Show all waiting for you'));

    const answer = await dmAnswer('U0LEAD', (call) => /Waiting for you, and yours|Not allowed/.test(call));
    expect(text(answer.args)).toContain('Waiting for you, and yours');
    expect(text(answer.args)).toContain('backlog 7');
  });

  it('lists on "Show all" only what is yours or waits for you, even for someone with approvals.list', async () => {
    await tab.backlog(6, 710_000, ['U0LEAD']);
    await tab.backlog(1, 730_000, ['U0LEAD'], 'U0OTHER');
    const home = await openHome('U0YOU', (view) => view.includes('Show all of yours'));

    await clickOnHome('U0YOU', buttonOf(home, 'Show all of yours'));

    const answer = text(
      (await dmAnswer('U0YOU', (call) => /Waiting for you, and yours|Not allowed/.test(call))).args,
    );
    expect(answer).toContain('Waiting for you, and yours');
    for (const zone of [710_000, 710_005]) expect(answer).toContain(`pull zone ${zone}`);
    // Someone else's request for someone else's decision is not this user's business here.
    expect(answer).not.toContain('pull zone 730000');
    expect(answer).not.toContain('Not allowed');
  });
});

describe('waiting for you, as the policy in force and escalation say', () => {
  it('leaves a request off the Home of an approver the policy no longer names', async () => {
    const id = await requestReset(SEEDED_IDS.pullZone);
    await openHome('U0LEAD2', (view) => view.includes(id));

    await usePolicy(POLICY.replace('leads: [U0LEAD, U0LEAD2]', 'leads: [U0LEAD]'));
    try {
      const home = await openHome('U0LEAD2');
      expect(home).not.toContain(id);
      expect(home).toContain('Waiting for you (0)');
    } finally {
      await usePolicy(POLICY);
    }
  });

  it('never publishes a Home drawn under the policy a change replaced, and publishes the one drawn after', async () => {
    const id = await requestReset(SEEDED_IDS.apiPullZone);
    // The redraws this request caused are done before the Home is held open.
    await h.runtime.services.home.refresher.flush();
    const { home } = h.runtime.services;
    const show = home.show;
    let drawnUnderOld!: () => void;
    const drawn = new Promise<void>((resolve) => {
      drawnUnderOld = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = false;
    home.show = async (ctx) => {
      const reply = await show(ctx);
      if (ctx.userId === 'U0LEAD2' && !held) {
        held = true;
        drawnUnderOld();
        await released;
      }
      return reply;
    };
    const before = h.fake.callsTo('views.publish').length;
    const newer = (c: RecordedCall) =>
      c.args.user_id === 'U0LEAD2' && h.fake.callsTo('views.publish').indexOf(c) >= before;
    try {
      expect((await h.openHome('U0LEAD2')).status).toBe(200);
      await drawn;
      expect(JSON.stringify(h.fake.callsTo('views.publish').filter(newer))).toBe('[]');

      writeFileSync(h.policyPath!, POLICY.replace('leads: [U0LEAD, U0LEAD2]', 'leads: [U0LEAD]'));
      expect(h.runtime.policies.reload()).toBe(true);
      release();

      const first = await h.fake.waitFor('views.publish', newer, 5_000);
      expect(text(first.args.view)).not.toContain(id);
      expect(text(first.args.view)).toContain('Waiting for you (0)');
      for (const call of h.fake.callsTo('views.publish').filter(newer))
        expect(text(call.args.view)).not.toContain(id);
    } finally {
      home.show = show;
      release();
      await usePolicy(POLICY);
    }
  });

  it('shows a request to the escalation role from half its time to live, redrawing their Home', async () => {
    const id = await requestReset(SEEDED_IDS.mediaPullZone);
    expect(await openHome('U0ONCALL')).not.toContain(id);

    h.clock.advance(15 * 60_000);
    await h.runtime.approvals.sweep(h.systemSurface);

    // Drawn again without being opened.
    await homeOf('U0ONCALL', (view) => view.includes(id));
  });
});

describe('a write waiting for an approver, on their Home', () => {
  it('links to its card, where the statement and its warning are, and offers no Approve or Reject', async () => {
    await h.command('db exec DELETE FROM customers', { userId: 'U0YOU', channelId: 'C0OPS' });
    const card = await h.fake.waitFor(
      'chat.postMessage',
      (call) =>
        call.args.channel === 'C0APPROVALS' && text(call.args.blocks).includes('DELETE FROM customers'),
      5_000,
    );
    const id = /ap_[0-9a-f]{16}/.exec(text(card.args.blocks))![0];
    try {
      // Slack has the card before the bot has recorded where it is: the link needs the record.
      await expect
        .poll(async () => {
          const request = await h.runtime.services.approvals.peek(id);
          return request ? cardRef(request) : undefined;
        })
        .toBeDefined();
      const home = await openHome('U0LEAD', (view) => view.includes(id));
      expect(home).toContain('Run a write statement on database');
      expect(home).not.toContain('approvals:approve');
      expect(home).not.toContain('approvals:reject');
      const link = `https://${DEFAULT_TEAM_DOMAIN}.slack.com/archives/C0APPROVALS/p${String(card.response.ts).replace('.', '')}`;
      expect(home).toContain(`<${link}|Open its card>`);
      // The card it links to has the buttons, beside the statement and the bold No WHERE warning.
      expect(text(card.args.blocks)).toContain('*No WHERE: this changes every row of');
      expect(text(card.args.blocks)).toContain(`"action_id":"approvals:approve"`);
    } finally {
      await h.command(`approvals cancel ${id}`, { userId: 'U0YOU', channelId: 'C0OPS' });
      await expect.poll(async () => (await h.runtime.services.approvals.peek(id))?.state).toBe('cancelled');
    }
  });
});
