/**
 * `/edge watch logs` where Slack has a say: a channel Slack archives or the bot is not in, a
 * watch asked for in a mention's thread, and user groups Slack cannot list. The real bot against
 * the fake Slack and the sandbox; the poller is ticked by hand after each move of the pinned
 * clock. How a watch follows, alerts, ends and is limited is tested through the engine in
 * test/operations/watch-poller.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedCall } from '../support/fake-slack.js';
import { type Harness, startHarness } from '../support/harness.js';
import { everyoneMayRun } from '../support/policies.js';

const MINUTE = 60_000;
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

/** Adds `count` origin errors to the zone's log and runs the next poll. */
async function stepWithErrors(zone: number, count: number) {
  h.sandbox.knobs.addLogEntries({
    pullZoneId: zone,
    at: h.clock() + 10_000,
    count,
    status: 504,
    code: 'http_timeout',
  });
  await step(MINUTE);
}

/** The watch has ended, its owner was told `why` by DM, and nothing more is downloaded for it. */
async function expectEndedAndTold(id: string, zone: number, why: string) {
  const state = async () =>
    (
      await h.runtime.services.state.client.execute({
        sql: 'SELECT state FROM watches WHERE id = ?',
        args: [id],
      })
    ).rows[0]?.state;
  await expect.poll(state).toBe('ended');
  const dm = await h.fake.waitFor('chat.postMessage', (call) =>
    text(call).includes(`Your watch of pull zone ${zone}`),
  );
  expect(text(dm)).toContain(why);
  const before = downloads(zone);
  await step(MINUTE);
  await step(MINUTE);
  expect(downloads(zone)).toBe(before);
}

/** Runs `steps` while Slack refuses the channel with `problem`, then lets it be again. */
async function whileRefused(
  channelId: string,
  problem: Parameters<Harness['fake']['setChannelProblem']>[1],
  steps: () => Promise<void>,
): Promise<void> {
  h.fake.setChannelProblem(channelId, problem);
  try {
    await steps();
  } finally {
    h.fake.setChannelProblem(channelId, undefined);
  }
}

describe('polling costs', () => {
  it.each([
    ['is_archived', 'that channel is archived', 410112],
    ['restricted_action_read_only_channel', 'that channel is read-only', 410113],
  ] as const)(
    'ends when its channel cannot take posts (%s), and tells its owner privately, instead of polling on',
    async (problem, why, zone) => {
      const { channelId, id } = await startWatch(`watch logs ${zone} --for 3h`);
      await step(MINUTE);
      await whileRefused(channelId, problem, async () => {
        await step(MINUTE);
        await expectEndedAndTold(id, zone, why);
      });
    },
  );
});

describe('alerts', () => {
  it('end the watch when the channel takes no thread replies, and its owner is told privately', async () => {
    // The watch message is posted and updated there; its alerts, replies in its thread, are refused.
    const zone = quietZone();
    const { channelId, ts, id } = await startWatch(`watch logs ${zone} --alert 5/1m`);
    await whileRefused(channelId, 'restricted_action_non_threadable_channel', async () => {
      await stepWithErrors(zone, 8);
      // Its message was redrawn with the errors: only the alert was refused.
      expect(messageText(channelId, ts)).toContain('8 errors');
      await expectEndedAndTold(id, zone, 'that channel takes no thread replies');
    });
  });
});

describe('a redraw that fails for a moment', () => {
  it('neither ends the watch nor keeps its alert from going out', async () => {
    const zone = quietZone();
    const { channelId, ts, id } = await startWatch(`watch logs ${zone} --alert 5/1m`);
    h.fake.fail('chat.update', {
      error: 'internal_error',
      times: Number.POSITIVE_INFINITY,
      when: (args) => args.channel === channelId && args.ts === ts,
    });
    await stepWithErrors(zone, 8);
    const alert = await h.fake.waitFor(
      'chat.postMessage',
      (call) => call.args.channel === channelId && call.args.thread_ts === ts,
    );
    expect(text(alert)).toContain('8 origin errors');
    const state = await h.runtime.services.state.client.execute({
      sql: 'SELECT state FROM watches WHERE id = ?',
      args: [id],
    });
    expect(state.rows[0]?.state).toBe('running');
    // Its message's redraws fail on (this channel's alone): it is stopped here.
    await h.click('watch.logs:stop', id, { channelId });
  });
});

describe('ending once', () => {
  it('tells the owner once when a poll finds the channel archived and an alert due', async () => {
    const zone = quietZone();
    const { channelId, id } = await startWatch(`watch logs ${zone} --alert 5/1m`);
    await whileRefused(channelId, 'is_archived', async () => {
      await stepWithErrors(zone, 8);
      await expectEndedAndTold(id, zone, 'that channel is archived');
      const told = h.fake.calls.filter(
        (call) =>
          call.method === 'chat.postMessage' && text(call).includes(`Your watch of pull zone ${zone}`),
      );
      expect(told).toHaveLength(1);
    });
  });
});

describe('asking for a watch', () => {
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
});
