/**
 * `/edge watch logs` end to end: the real bot against the fake Slack and the sandbox, the sandbox
 * adding origin errors as the pinned clock moves. The poller is ticked by hand after each move.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { everyoneMayRun } from '../support/policies.js';

const MINUTE = 60_000;
const SECOND = 1_000;
let zones = 770_000;
let channels = 0;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.faults.clear();
});

const text = (call: RecordedCall) => JSON.stringify(call.args.blocks ?? call.args.text ?? '');

/** A pull zone of its own whose log has nothing until a test adds entries. */
function quietZone(harness: Harness = h): number {
  const zone = ++zones;
  harness.sandbox.knobs.setLogDay(zone, 0);
  return zone;
}

function addErrors(
  harness: Harness,
  zone: number,
  count: number,
  at: number,
  status = 504,
  code = 'http_timeout',
) {
  harness.sandbox.knobs.addLogEntries({ pullZoneId: zone, at, count, status, code });
}

/** Starts a watch in a channel of its own; its message and id. */
async function startWatch(line: string, harness: Harness = h, userId?: string) {
  const channelId = `C0WATCH${++channels}`;
  await harness.command(line, { channelId, ...(userId ? { userId } : {}) });
  const posted = await harness.fake.waitFor(
    'chat.postMessage',
    (call) => call.args.channel === channelId && text(call).includes('Watching origin errors'),
  );
  const ts = String(posted.response.ts);
  const id = /wa_[0-9a-f]{12}/.exec(text(posted))![0];
  // Polled once the watch knows its message, which it learns right after Slack answered.
  await expect
    .poll(
      async () =>
        (
          await harness.runtime.services.state.client.execute({
            sql: 'SELECT message_ts FROM watches WHERE id = ?',
            args: [id],
          })
        ).rows[0]?.message_ts,
    )
    .toBe(ts);
  return { channelId, ts, id };
}

/** Moves the shared clock and runs one poller pass, as the timer would. */
async function step(ms: number, harness: Harness = h) {
  harness.clock.advance(ms);
  await harness.runtime.watchPoller.tick();
}

const messageText = (channelId: string, ts: string, harness: Harness = h) =>
  JSON.stringify(harness.fake.message(channelId, ts)?.blocks ?? '');

/** Downloads of one pull zone's log so far. */
const downloads = (zone: number, harness: Harness = h) =>
  harness.sandbox.requests.byRoute('logs.origin').filter((request) => request.path.includes(`/${zone}/`))
    .length;

const alertsIn = (channelId: string, harness: Harness = h) =>
  harness.fake
    .callsTo('chat.postMessage')
    .filter((call) => call.args.channel === channelId && text(call).includes('rotating_light'));

describe('a watch follows origin errors live', () => {
  it('updates its message in place with the new errors, the sparkline and when it polled', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone} --status 5xx`);
    addErrors(h, zone, 3, h.clock() + 10 * SECOND);
    addErrors(h, zone, 2, h.clock() + 20 * SECOND, 404, 'notfound_localdb');
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('3 errors');
    expect(messageText(watch.channelId, watch.ts)).toContain(
      `Last polled ${h.clock.iso().slice(0, 16).replace('T', ' ')} UTC`,
    );
    expect(messageText(watch.channelId, watch.ts)).toMatch(/[▁▂▃▄▅▆▇█]{60}/);
    // The same day read again counts nothing twice.
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('3 errors');
    expect(h.fake.message(watch.channelId, watch.ts)?.updates).toBeGreaterThanOrEqual(2);
    await h.click('watch.logs:stop', watch.id, { channelId: watch.channelId });
  });

  it('alerts once per episode in its thread, and says when the episode ended, with its peak', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone} --status 5xx --alert 5/1m`);
    addErrors(h, zone, 3, h.clock() + 10 * SECOND);
    await step(MINUTE);
    expect(alertsIn(watch.channelId)).toHaveLength(0);

    addErrors(h, zone, 8, h.clock() + 10 * SECOND);
    await step(MINUTE);
    expect(alertsIn(watch.channelId)).toHaveLength(1);
    const alert = alertsIn(watch.channelId)[0]!;
    expect(alert.args.thread_ts).toBe(watch.ts);
    expect(text(alert)).toContain('8 origin errors');

    // Still over the threshold: the same episode, its peak raised in place.
    addErrors(h, zone, 12, h.clock() + 10 * SECOND);
    await step(MINUTE);
    expect(alertsIn(watch.channelId)).toHaveLength(1);
    const alertTs = String(alert.response.ts);
    expect(messageText(watch.channelId, alertTs)).toContain('12 origin errors');

    await step(2 * MINUTE);
    expect(messageText(watch.channelId, alertTs)).toContain('episode is over');
    expect(messageText(watch.channelId, alertTs)).toContain('peak 12');

    addErrors(h, zone, 9, h.clock() + 10 * SECOND);
    await step(MINUTE);
    expect(alertsIn(watch.channelId)).toHaveLength(2);
    await h.click('watch.logs:stop', watch.id, { channelId: watch.channelId });
  });

  it('Snooze 30m pauses alerts while polling and the message go on', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone} --alert 2/1m`);
    await h.click('watch.logs:snooze', watch.id, { channelId: watch.channelId });
    await expect.poll(() => messageText(watch.channelId, watch.ts)).toContain('alerts snoozed until');
    addErrors(h, zone, 5, h.clock() + 10 * SECOND);
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('5 errors');
    expect(alertsIn(watch.channelId)).toHaveLength(0);
    // After the snooze, a new episode is announced again.
    await step(31 * MINUTE);
    addErrors(h, zone, 5, h.clock() + 10 * SECOND);
    await step(MINUTE);
    expect(alertsIn(watch.channelId)).toHaveLength(1);
    await h.click('watch.logs:stop', watch.id, { channelId: watch.channelId });
  });
});

describe('a watch whose replica died before it noted its message', () => {
  it('while it runs, a click on its message notes that message, so Snooze and Stop update it', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    await h.runtime.services.state.client.execute({
      sql: 'UPDATE watches SET message_ts = NULL WHERE id = ?',
      args: [watch.id],
    });
    const click = (actionId: string) =>
      h.click(actionId, watch.id, { channelId: watch.channelId, messageTs: watch.ts });
    await click('watch.logs:snooze');
    await expect.poll(() => messageText(watch.channelId, watch.ts)).toContain('alerts snoozed until');
    const noted = await h.runtime.services.state.client.execute({
      sql: 'SELECT message_ts FROM watches WHERE id = ?',
      args: [watch.id],
    });
    expect(noted.rows[0]?.message_ts).toBe(watch.ts);
    await click('watch.logs:stop');
    await expect.poll(() => messageText(watch.channelId, watch.ts)).not.toContain('watch.logs:stop');
  });

  it('is ended by the poller, and a click on its stale message brings that message up to date', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    // As if its replica had died between posting the message and noting where.
    await h.runtime.services.state.client.execute({
      sql: 'UPDATE watches SET message_ts = NULL WHERE id = ?',
      args: [watch.id],
    });
    await step(10 * MINUTE);
    const state = await h.runtime.services.state.client.execute({
      sql: 'SELECT state FROM watches WHERE id = ?',
      args: [watch.id],
    });
    expect(state.rows[0]?.state).toBe('ended');
    expect(messageText(watch.channelId, watch.ts)).toContain('watch.logs:stop');
    /** Clicks `actionId` for this watch on its message and returns the answer's body as JSON. */
    const clickOnItsMessage = async (actionId: string) => {
      const answer = h.fake.responseUrl();
      await h.click(actionId, watch.id, {
        channelId: watch.channelId,
        messageTs: watch.ts,
        responseUrl: answer,
      });
      return JSON.stringify((await h.fake.waitForResponse((p) => answer.endsWith(p.id), 5_000)).body);
    };
    // A Stop from elsewhere (the /edge watches listing) leaves whatever message it was on alone.
    await clickOnItsMessage('watches:stop');
    expect(messageText(watch.channelId, watch.ts)).toContain('watch.logs:stop');

    expect(await clickOnItsMessage('watch.logs:stop')).toContain('already ended');
    expect(messageText(watch.channelId, watch.ts)).not.toContain('watch.logs:stop');
  });
});

describe('a watch ends', () => {
  it('by Stop: the message shows who stopped it, a note follows in its thread, and it is audited', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    await h.click('watch.logs:stop', watch.id, { channelId: watch.channelId, userId: 'U0OTHER' });
    const note = await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === watch.channelId && text(call).includes('ended: stopped by'),
    );
    expect(note.args.thread_ts).toBe(watch.ts);
    expect(messageText(watch.channelId, watch.ts)).toContain('ended');
    expect(messageText(watch.channelId, watch.ts)).not.toContain('watch.logs:stop');
    const audit = await h.runtime.services.state.client.execute(
      "SELECT user_id, outcome, params FROM audit_log WHERE operation = 'watch.logs' AND outcome = 'ended'",
    );
    expect(audit.rows.some((row) => row.user_id === 'U0OTHER' && String(row.params).includes(watch.id))).toBe(
      true,
    );
    // Nothing polls an ended watch.
    const before = downloads(zone);
    await step(MINUTE);
    expect(downloads(zone)).toBe(before);
  });

  it('when its --for is over', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone} --for 3m`);
    await step(MINUTE);
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('Stop');
    await step(MINUTE);
    await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === watch.channelId && text(call).includes('its 3m are over'),
    );
    expect(messageText(watch.channelId, watch.ts)).toContain('ended');
  });
});

describe('polling costs', () => {
  it('ends when its channel is archived, and tells its owner privately, instead of polling on', async () => {
    const { channelId, id } = await startWatch('watch logs 410112 --for 3h');
    await step(MINUTE);
    h.fake.setChannelProblem(channelId, 'is_archived');
    try {
      await step(MINUTE);
      const state = async () =>
        (
          await h.runtime.services.state.client.execute({
            sql: 'SELECT state FROM watches WHERE id = ?',
            args: [id],
          })
        ).rows[0]?.state;
      await expect.poll(state).toBe('ended');
      const dm = await h.fake.waitFor('chat.postMessage', (call) =>
        text(call).includes('Your watch of pull zone 410112'),
      );
      expect(text(dm)).toContain('that channel is archived');
      // Nothing more is downloaded for it.
      const before = downloads(410112);
      await step(MINUTE);
      await step(MINUTE);
      expect(downloads(410112)).toBe(before);
    } finally {
      h.fake.setChannelProblem(channelId, undefined);
    }
  });

  it('downloads a pull zone once per poll for every watch on it', async () => {
    const zone = quietZone();
    const a = await startWatch(`watch logs ${zone} --status 5xx`);
    const b = await startWatch(`watch logs ${zone} --code http_timeout`);
    addErrors(h, zone, 4, h.clock() + 5 * SECOND);
    const before = downloads(zone);
    await step(MINUTE);
    expect(downloads(zone) - before).toBe(1);
    expect(messageText(a.channelId, a.ts)).toContain('4 errors');
    expect(messageText(b.channelId, b.ts)).toContain('4 errors');
    const metrics = await (await fetch(`${h.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^edgeops_watches_running [1-9]/m);
    expect(metrics).toMatch(/^edgeops_watch_poll_seconds_count [1-9]/m);
    expect(metrics).toContain('edgeops_watch_lease_takeovers_total 0');
    await h.click('watch.logs:stop', a.id, { channelId: a.channelId });
    await h.click('watch.logs:stop', b.id, { channelId: b.channelId });
  });

  it('a 429 slows the watch down and says so; it goes on afterwards', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    h.sandbox.faults.set('logs.origin', { status: 429, times: 3 });
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('slowed: the platform asked us to wait');
    expect(messageText(watch.channelId, watch.ts)).toContain('Stop');
    h.sandbox.faults.clear();
    addErrors(h, zone, 2, h.clock() + 5 * SECOND);
    // Slowed to twice the interval: a minute later it has not polled yet, two minutes later it has.
    const before = downloads(zone);
    await step(MINUTE);
    expect(downloads(zone)).toBe(before);
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('2 errors');
    expect(messageText(watch.channelId, watch.ts)).not.toContain('slowed');
    await h.click('watch.logs:stop', watch.id, { channelId: watch.channelId });
  });
});

describe('a broken download', () => {
  it('counts nothing from a cut-off day, says the poll failed, and counts it all on the next poll', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    addErrors(h, zone, 40, h.clock() + 5 * SECOND);
    h.sandbox.faults.set('logs.origin', { truncate: true, times: 3 });
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('the last poll failed');
    expect(messageText(watch.channelId, watch.ts)).toContain('0 errors');
    h.sandbox.faults.clear();
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('40 errors');
    expect(messageText(watch.channelId, watch.ts)).not.toContain('failed');
    await h.click('watch.logs:stop', watch.id, { channelId: watch.channelId });
  });
});

describe('around midnight', () => {
  it('reads the previous day too in the first minutes after midnight, so its last errors are counted', async () => {
    h.clock.set('2026-11-23T23:58:30.000Z');
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    addErrors(h, zone, 2, Date.parse('2026-11-23T23:59:40.000Z'));
    h.clock.set('2026-11-24T00:00:20.000Z');
    await h.runtime.watchPoller.tick();
    expect(messageText(watch.channelId, watch.ts)).toContain('2 errors');
    const days = h.sandbox.requests
      .byRoute('logs.origin')
      .filter((request) => request.path.includes(`/${zone}/`))
      .map((request) => request.path.split('/').at(-1));
    expect(days).toEqual(expect.arrayContaining(['11-23-2026', '11-24-2026']));
    await h.click('watch.logs:stop', watch.id, { channelId: watch.channelId });
  });
});

describe('asking for a watch', () => {
  async function refusal(line: string): Promise<string> {
    const { responseUrl } = await h.command(line);
    return JSON.stringify((await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id))).body);
  }

  it('in a channel the bot is not in, says why and starts nothing that would count against the cap', async () => {
    const channelId = 'C0WATCHNOTIN';
    h.fake.setChannelProblem(channelId, 'not_in_channel');
    try {
      const { responseUrl } = await h.command('watch logs 308006', { channelId, userId: 'U0NOTIN' });
      const said = JSON.stringify(
        (await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id))).body,
      );
      expect(said).toContain('the bot is not in that channel');
      expect(said).toContain('the watch did not start');
      expect(said).not.toContain('correlation id');
      const running = await h.runtime.services.state.client.execute({
        sql: "SELECT count(*) AS n FROM watches WHERE channel_id = ? AND state = 'running'",
        args: [channelId],
      });
      expect(Number(running.rows[0]?.n)).toBe(0);
    } finally {
      h.fake.setChannelProblem(channelId, undefined);
    }
  });

  it('refuses a typo in --code, an interval below the minimum and more than 24 hours', async () => {
    expect(await refusal('watch logs 308006 --code http_timout')).toContain(
      'did you mean --code http_timeout',
    );
    expect(await refusal('watch logs 308006 --every 10s')).toContain('--every must be at least 1m');
    expect(await refusal('watch logs 308006 --for 25h')).toContain('at most 24h');
    expect(await refusal('watch logs 308006 --alert lots')).toContain('--alert 50/5m');
  });

  it('in a thread through a mention, the watch message goes in that thread', async () => {
    const zone = quietZone();
    await h.mention(`watch logs ${zone}`, { channelId: 'C0THREADW', threadTs: '1700000000.000100' });
    const posted = await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === 'C0THREADW' && text(call).includes('Watching origin errors'),
    );
    expect(posted.args.thread_ts).toBe('1700000000.000100');
    await h.click('watch.logs:stop', /wa_[0-9a-f]{12}/.exec(text(posted))![0], { channelId: 'C0THREADW' });
  });

  it('/edge watches lists running watches with their owners, and anyone granted may stop one there', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`, h, 'U0ALICE');
    const { responseUrl } = await h.command('watches', { channelId: watch.channelId });
    const listing = JSON.stringify(
      (await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id))).body,
    );
    expect(listing).toContain(`Pull zone ${zone}`);
    expect(listing).toContain('<@U0ALICE>');
    expect(listing).toContain('watches:stop');
    await h.click('watches:stop', watch.id, { channelId: watch.channelId, userId: 'U0BOB' });
    await expect.poll(() => messageText(watch.channelId, watch.ts)).toContain('stopped by <@U0BOB>');
  });
});

describe('the shared platform budget', () => {
  let frugal: Harness;
  beforeAll(async () => {
    frugal = await startHarness({ env: { EDGEOPS_WATCH_CALLS_PER_MINUTE: '1' } });
  });
  afterAll(async () => {
    await frugal?.close();
  });

  it('holds watches to the calls per minute, and /edge logs does not wait for it', async () => {
    const [first, second] = [quietZone(frugal), quietZone(frugal)];
    await startWatch(`watch logs ${first}`, frugal);
    await startWatch(`watch logs ${second}`, frugal, 'U0OTHER');
    await step(MINUTE, frugal);
    expect(downloads(first, frugal) + downloads(second, frugal)).toBe(1);
    const before = downloads(first, frugal);
    await frugal.command(`logs ${first}`);
    await expect.poll(() => downloads(first, frugal)).toBeGreaterThan(before);
    // A minute later the budget has one call again: the other zone's turn.
    await step(MINUTE, frugal);
    expect(downloads(first, frugal) + downloads(second, frugal)).toBeGreaterThanOrEqual(3);
    expect(Math.min(downloads(first, frugal), downloads(second, frugal))).toBeGreaterThanOrEqual(1);
  });
});

describe('/edge watches and the policy', () => {
  let scoped: Harness;
  beforeAll(async () => {
    scoped = await startHarness({
      policyYaml: `
roles:
  everyone: ["*"]
  oncall: [U0ALICE]
grants:
  - ops: [watch.logs]
    roles: [oncall]
    channels: [C0PRIVATE, C0SHARED]
  - ops: [watch.logs]
    roles: [everyone]
    channels: [C0SHARED]
`,
    });
  });
  afterAll(async () => {
    await scoped?.close();
  });

  async function watchIn(channelId: string): Promise<string> {
    await scoped.command(`watch logs ${quietZone(scoped)}`, { channelId, userId: 'U0ALICE' });
    const posted = await scoped.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === channelId && text(call).includes('Watching origin errors'),
    );
    return /wa_[0-9a-f]{12}/.exec(text(posted))![0];
  }

  async function listing(userId: string, channelId: string): Promise<string> {
    const { responseUrl } = await scoped.command('watches', { channelId, userId });
    return JSON.stringify((await scoped.fake.waitForResponse((post) => responseUrl.endsWith(post.id))).body);
  }

  it('lists only the watches of channels where the caller may run watch.logs', async () => {
    const hidden = await watchIn('C0PRIVATE');
    const shown = await watchIn('C0SHARED');
    const bobs = await listing('U0BOB', 'C0SHARED');
    expect(bobs).toContain(shown);
    expect(bobs).toContain('Running watches (1)');
    expect(bobs).not.toContain(hidden);
    expect(bobs).not.toContain('C0PRIVATE');
    const alices = await listing('U0ALICE', 'C0SHARED');
    expect(alices).toContain(hidden);
    expect(alices).toContain(shown);
  });
});

describe('limits and the policy', () => {
  let capped: Harness;
  beforeAll(async () => {
    capped = await startHarness({
      policyYaml: everyoneMayRun(),
      env: { EDGEOPS_MAX_WATCHES_PER_USER: '2', EDGEOPS_MAX_WATCHES: '3' },
    });
  });
  afterAll(async () => {
    await capped?.close();
  });

  it('caps running watches per person and in the workspace, with a clear answer', async () => {
    const zone = quietZone(capped);
    await startWatch(`watch logs ${zone}`, capped);
    await startWatch(`watch logs ${zone}`, capped);
    const mine = await capped.command(`watch logs ${zone}`);
    expect(
      JSON.stringify((await capped.fake.waitForResponse((p) => mine.responseUrl.endsWith(p.id))).body),
    ).toContain('the most one person may have');
    const third = await startWatch(`watch logs ${zone}`, capped, 'U0OTHER');
    const workspace = await capped.command(`watch logs ${zone}`, { userId: 'U0THIRD' });
    expect(
      JSON.stringify((await capped.fake.waitForResponse((p) => workspace.responseUrl.endsWith(p.id))).body),
    ).toContain('the most allowed');
    await capped.click('watch.logs:stop', third.id, { channelId: third.channelId });
  });

  it('does not end a watch because Slack failed to say who is in a group the policy names', async () => {
    await capped.runtime.services.state.client.execute(
      "UPDATE watches SET state = 'ended' WHERE state = 'running'",
    );
    writeFileSync(
      capped.policyPath!,
      'roles:\n  watchers: [S0WATCHERS]\ngrants:\n  - ops: [watch.logs]\n    roles: [watchers]\n',
    );
    expect(capped.runtime.policies.reload()).toBe(true);
    capped.fake.setUserGroup('S0WATCHERS', ['U0YOU']);
    const zone = quietZone(capped);
    const watch = await startWatch(`watch logs ${zone}`, capped);
    capped.fake.fail('usergroups.users.list', { error: 'fatal_error', times: Number.POSITIVE_INFINITY });
    // Past the five minutes a group's members are cached for: the next check cannot read them.
    await step(6 * MINUTE, capped);
    expect(messageText(watch.channelId, watch.ts, capped)).toContain('Stop');
    expect(messageText(watch.channelId, watch.ts, capped)).toContain('Last polled');
    capped.fake.reset();
    await capped.click('watch.logs:stop', watch.id, { channelId: watch.channelId });
    writeFileSync(capped.policyPath!, everyoneMayRun());
    expect(capped.runtime.policies.reload()).toBe(true);
  });

  it('ends a watch when the policy no longer grants watch.logs to its owner in that channel', async () => {
    await capped.runtime.services.state.client.execute(
      "UPDATE watches SET state = 'ended' WHERE state = 'running'",
    );
    const zone = quietZone(capped);
    const watch = await startWatch(`watch logs ${zone}`, capped);
    await step(MINUTE, capped);
    writeFileSync(
      capped.policyPath!,
      'roles:\n  everyone: ["*"]\ngrants:\n  - ops: [dns.list, logs.origin]\n    roles: [everyone]\n',
    );
    expect(capped.runtime.policies.reload()).toBe(true);
    await step(MINUTE, capped);
    await capped.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === watch.channelId && text(call).includes('no longer lets'),
    );
    expect(messageText(watch.channelId, watch.ts, capped)).toContain('ended');
  });
});
