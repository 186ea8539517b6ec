/**
 * The Home tab end to end: opening it publishes what waits for the user (each linked to its card,
 * where Approve is), their own requests, their recent actions, their watches and what they may
 * run; a change redraws the Homes it concerns; and a long backlog stays within Slack's limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEEDED_IDS } from '../../src/sandbox/seed.js';
import { type Harness, startHarness } from '../support/harness.js';
import { homeTab } from '../support/home-tab.js';
import { DEFAULT_TEAM_DOMAIN } from '../support/payloads.js';
import { APPROVALS_POLICY } from '../support/policies.js';

let h: Harness;
const tab = homeTab(() => h);
const { homeOf, openHome, clickOnHome } = tab;

beforeAll(async () => {
  h = await startHarness({ policyYaml: APPROVALS_POLICY });
  h.fake.setUserGroup('S0LEADS', ['U0GROUPLEAD']);
  h.fake.setUserGroup('S0SOLO', []);
});
afterAll(async () => {
  await h?.close();
});

/** Each test asks about its own pull zone, one the sandbox has: one open request per operation and target. */
const ZONES = [SEEDED_IDS.pullZone, SEEDED_IDS.mediaPullZone, SEEDED_IDS.apiPullZone];
let nextZone = 0;
const freshZone = () => ZONES[nextZone++]!;

const text = (value: unknown) => JSON.stringify(value);

/** Asks for a key reset as U0YOU and returns the request id from its card. */
async function requestReset(zone: number): Promise<string> {
  const { responseUrl } = await h.command(`pullzone reset-key ${zone} rotated after an incident`, {
    userId: 'U0YOU',
  });
  const reply = text((await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body);
  expect(reply).toContain('Approval requested');
  const card = await h.fake.waitFor(
    'chat.postMessage',
    (call) => call.args.channel === 'C0APPROVALS' && text(call.args.blocks).includes(String(zone)),
    5_000,
  );
  return /ap_[0-9a-f]{16}/.exec(text(card.args.blocks))![0];
}

describe('the Home tab', () => {
  it('shows an approver what waits for them, linked to its card, and the requester their own request with Cancel', async () => {
    const id = await requestReset(freshZone());
    const card = await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === 'C0APPROVALS' && text(call.args.blocks).includes(id),
      5_000,
    );
    const link = `https://${DEFAULT_TEAM_DOMAIN}.slack.com/archives/C0APPROVALS/p${String(card.response?.ts).replace('.', '')}`;

    const lead = await openHome('U0LEAD', (home) => home.includes(id));
    expect(lead).toContain('"type":"home"');
    expect(lead).toMatch(/Waiting for you \(\d+\)/);
    expect(lead).toContain(`<${link}|Open its card>`);
    expect(lead).toContain('asked by <@U0YOU>');
    // Approve only beside everything the card shows: not here.
    expect(lead).not.toContain(`approvals:approve#${id}`);
    expect(lead).not.toContain(`approvals:reject#${id}`);
    expect(lead).not.toContain(`approvals:cancel#${id}`);

    // An approver through a user group sees it too; someone who may not approve does not.
    expect(await openHome('U0GROUPLEAD', (home) => home.includes(id))).toContain(`<${link}|Open its card>`);
    expect(await openHome('U0SHA')).not.toContain(id);

    const mine = await openHome('U0YOU', (home) => home.includes(id));
    expect(mine).toContain(`approvals:cancel#${id}`);
    expect(mine).not.toContain(`approvals:approve#${id}`);
    expect(mine).toContain('Your recent actions');
    expect(mine).toContain('pullzone.reset-key');
    expect(mine).toContain('Your running watches (0)');
    expect(mine).toContain('What you may run');
    expect(mine).toContain('`logs`');
  });

  it('redraws both Homes once the request is approved on its card', async () => {
    const zone = freshZone();
    const id = await requestReset(zone);
    await openHome('U0LEAD', (home) => home.includes(id));
    await openHome('U0YOU', (home) => home.includes(`approvals:cancel#${id}`));
    const resets = h.sandbox.requests.count('pullzone.resetSecurityKey');

    const ack = await h.click('approvals:approve', id, { userId: 'U0LEAD', channelId: 'C0APPROVALS' });
    expect(ack.status).toBe(200);

    await expect.poll(async () => (await h.runtime.services.approvals.peek(id))?.state).toBe('succeeded');
    expect(h.sandbox.requests.count('pullzone.resetSecurityKey')).toBe(resets + 1);
    // Both Homes are drawn again without being opened: the request is no longer listed.
    await homeOf('U0LEAD', (home) => !home.includes(id));
    await homeOf('U0YOU', (home) => !home.includes(`approvals:cancel#${id}`));
  });

  it('answers /edge home with the same content, for the console and whoever types it', async () => {
    const { responseUrl } = await h.command('home', { userId: 'U0YOU' });
    const reply = text((await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body);
    expect(reply).toMatch(/Waiting for you \(\d+\)/);
    expect(reply).toMatch(/Your open requests \(\d+\)/);
    expect(reply).toContain('Your recent actions');
    expect(reply).toContain('What you may run');
  });

  it('publishes the Home again as plain text when Slack refuses it, its words kept', async () => {
    // The redraws earlier changes caused are done, so the two publishes of this Home come last.
    await h.runtime.services.home.refresher.flush();
    // Slack refuses this user's rich Home, whatever else is being drawn meanwhile.
    h.fake.fail('views.publish', {
      error: 'invalid_blocks',
      when: (args) => args.user_id === 'U0YOU' && JSON.stringify(args.view).includes('"type":"header"'),
    });
    const home = await openHome('U0YOU', (view) => !view.includes('"type":"header"'));
    expect(h.fake.callsTo('views.publish').at(-2)?.args.user_id).toBe('U0YOU');
    expect(home).toMatch(/Waiting for you \(\d+\)/);
    expect(home).toMatch(/Your open requests \(\d+\)/);
    expect(home).toContain('What you may run');
    expect(home).not.toContain('"type":"actions"');
  });

  it('stays within 100 blocks with 200 pending requests, says how many are not shown, and lists them all on request', async () => {
    // More than 200 requests straight into the state database, as a backlog would have built up:
    // more than the approval service lists at once.
    await tab.backlog(205, 600_000, ['U0LEAD', 'U0LEAD2', 'S0LEADS']);

    const lead = await openHome('U0LEAD', (home) => home.includes('backlog'));
    const blocks = JSON.parse(lead).blocks as unknown[];
    expect(blocks.length).toBeLessThanOrEqual(100);
    // The service lists 200 at most: the count says there are more.
    const waiting = Number(/Waiting for you \((\d+)\+\)/.exec(lead)![1]);
    expect(waiting).toBe(200);
    // Each request shown points to where it is decided, as none of these has a card.
    // A request whose card was posted in an earlier test points to the card once its link is known.
    const shown = (
      lead.match(
        /shows everything that will run, with Approve and Reject|to read everything that will run, and approve or reject it there/g,
      ) ?? []
    ).length;
    expect(lead).not.toContain('approvals:approve#');
    const notShown = Number(/(\d+) more requests waiting for you are not shown here/.exec(lead)![1]);
    expect(shown + notShown).toBe(waiting);
    expect(lead).toContain('At least');
    expect(lead).toContain('"action_id":"home:approvals"');
    expect(lead).toContain('"value":"approvals"');

    const mine = await openHome('U0YOU', (home) => home.includes('backlog'));
    expect((JSON.parse(mine).blocks as unknown[]).length).toBeLessThanOrEqual(100);
    expect(mine).toMatch(/\d+ more requests of yours are not shown here/);
    // Nothing was refused by the fake Slack, nor cut into a file the Home could not carry.
    expect(mine).not.toContain('.txt');
    expect(h.fake.refusals).toEqual([]);

    // "Show all": the approvals listing, answered privately in the app's DM.
    await clickOnHome('U0LEAD', 'home:approvals', 'approvals');
    const all = await h.fake.waitFor(
      'chat.postEphemeral',
      (call) =>
        call.args.channel === h.fake.dmChannelFor('U0LEAD') &&
        text(call.args).includes('Waiting for you, and yours'),
      10_000,
    );
    // More wait than are read at once, and the answer says so.
    // The count is everyone's, and says so: the list below it is only what concerns the reader.
    expect(text(all.args)).toMatch(
      /\d+ requests are waiting, everyone's together; the newest 200 are read here, and those that are yours or wait for you are listed/,
    );
    // /edge approvals reads 50, and says so instead of stopping there without a word.
    const { responseUrl } = await h.command('approvals', { userId: 'U0LEAD' });
    const listed = text((await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body);
    expect(listed).toMatch(/\d+ requests are waiting; the newest 50 are read here/);
    // Someone none of the newest 200 concerns is not told that nothing waits anywhere.
    await clickOnHome('U0STRANGER', 'home:approvals', 'approvals');
    const none = await h.fake.waitFor(
      'chat.postEphemeral',
      (call) => call.args.channel === h.fake.dmChannelFor('U0STRANGER'),
      10_000,
    );
    expect(text(none.args)).toContain('None of those read here is yours or waits for your approval');
    expect(text(none.args)).toMatch(
      /\d+ requests are waiting, everyone's together; the newest 200 are read here/,
    );
  });
});

describe('a watch on the Home', () => {
  it('appears on its owner’s Home when it starts and leaves it when it is stopped', async () => {
    await openHome('U0WATCHER');
    const zone = 530_001;
    h.sandbox.knobs.setLogDay(zone, 0);
    await h.command(`watch logs ${zone}`, { userId: 'U0WATCHER', channelId: 'C0WATCHHOME' });
    const home = await homeOf('U0WATCHER', (view) => view.includes(`Pull zone ${zone}`));
    expect(home).toContain('Your running watches (1)');
    const watchId = /wa_[0-9a-f]{12}/.exec(home)![0];

    expect(home).toContain(`home:stop#${watchId}`);
    await clickOnHome('U0WATCHER', `home:stop#${watchId}`, watchId);

    await homeOf('U0WATCHER', (view) => view.includes('Your running watches (0)'));
  });
});

// Last in this file: it moves the shared clock to the digest's time.
describe('a digest on the Home', () => {
  it('shows its next time again once it has run', async () => {
    h.clock.set('2026-11-23T08:00:00.000Z');
    await openHome('U0DIGESTER');
    const zone = 530_002;
    h.sandbox.knobs.setLogDay(zone, 0);
    await h.command(`digest logs ${zone} --at 09:00`, { userId: 'U0DIGESTER', channelId: 'C0DIGESTHOME' });
    await homeOf('U0DIGESTER', (view) => view.includes('next Mon 2026-11-23 09:00 UTC'));
    h.clock.set('2026-11-23T09:00:00.000Z');
    await h.runtime.digestRunner.tick();
    await homeOf('U0DIGESTER', (view) => view.includes('next Tue 2026-11-24 09:00 UTC'));
  });
});
