/**
 * `/edge watch logs` through the engine: the sandbox adds origin errors as the pinned clock moves,
 * the poller is ticked by hand after each move, and the watch's message is read as it shows now.
 * What only Slack shows (an archived channel, a channel the bot is not in, a mention's thread,
 * user groups Slack cannot list) is in test/slack/watches.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  answered,
  type EngineTestbed,
  fieldsOf,
  headlineIn,
  postsIn,
  type Recorded,
  startEngineTestbed,
  wordsOf,
} from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

const MINUTE = 60_000;
const SECOND = 1_000;
let zones = 770_000;
let channels = 0;

/** A testbed whose watch poller posts through its messenger, and polls when a test ticks it. */
async function watchingTestbed(options: Parameters<typeof startEngineTestbed>[0] = {}) {
  const testbed = await startEngineTestbed(options);
  testbed.runtime.watchPoller.start(testbed.messenger);
  return testbed;
}

let bed: EngineTestbed;
beforeAll(async () => {
  bed = await watchingTestbed();
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => {
  bed.sandbox.faults.clear();
});

/** A pull zone of its own whose log has nothing until a test adds entries. */
function quietZone(testbed: EngineTestbed = bed): number {
  const zone = ++zones;
  testbed.sandbox.knobs.setLogDay(zone, 0);
  return zone;
}

function addErrors(
  testbed: EngineTestbed,
  zone: number,
  count: number,
  at: number,
  status = 504,
  code = 'http_timeout',
) {
  testbed.sandbox.knobs.addLogEntries({ pullZoneId: zone, at, count, status, code });
}

const messageIdOf = (posted: Extract<Recorded, { kind: 'post' }>) =>
  /wa_[0-9a-f]{12}/.exec(wordsOf(posted.reply))![0];

/** Starts a watch in a channel of its own; its message and id. */
async function startWatch(line: string, testbed: EngineTestbed = bed, userId?: string) {
  const channelId = `C0WATCH${++channels}`;
  const records = await testbed.run(line, { channelId, ...(userId ? { userId } : {}) });
  const posted = postsIn(records, channelId).find((post) =>
    wordsOf(post.reply).includes('Watching origin errors'),
  );
  if (!posted) throw new Error(`no watch message: ${answered(records)}`);
  const { ts } = posted.ref;
  const id = messageIdOf(posted);
  // The watch knows its message once it has been posted.
  const noted = await testbed.runtime.services.state.client.execute({
    sql: 'SELECT message_ts FROM watches WHERE id = ?',
    args: [id],
  });
  expect(noted.rows[0]?.message_ts).toBe(ts);
  return { channelId, ts, id };
}

/** Moves the shared clock and runs one poller pass, as the timer would. */
async function step(ms: number, testbed: EngineTestbed = bed) {
  testbed.clock.advance(ms);
  await testbed.runtime.watchPoller.tick();
}

const messageText = (channelId: string, ts: string, testbed: EngineTestbed = bed) =>
  JSON.stringify(testbed.board.shown({ channelId, ts })?.blocks ?? '');

/** Downloads of one pull zone's log so far. */
const downloads = (zone: number, testbed: EngineTestbed = bed) =>
  testbed.sandbox.requests.byRoute('logs.origin').filter((request) => request.path.includes(`/${zone}/`))
    .length;

const alertsIn = (channelId: string, testbed: EngineTestbed = bed) =>
  postsIn(testbed.messenger.records, channelId).filter((post) =>
    JSON.stringify(post.reply.blocks).includes('rotating_light'),
  );

const stop = (watch: { id: string; channelId: string }, testbed: EngineTestbed = bed, userId?: string) =>
  testbed.click(
    { actionId: 'watch.logs:stop', value: watch.id },
    { channelId: watch.channelId, ...(userId ? { userId } : {}) },
  );

const stateOf = async (id: string, testbed: EngineTestbed = bed) =>
  (
    await testbed.runtime.services.state.client.execute({
      sql: 'SELECT state FROM watches WHERE id = ?',
      args: [id],
    })
  ).rows[0]?.state;

describe('a watch follows origin errors live', () => {
  it('updates its message in place with the new errors, the sparkline and when it polled', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone} --status 5xx`);
    addErrors(bed, zone, 3, bed.clock() + 10 * SECOND);
    addErrors(bed, zone, 2, bed.clock() + 20 * SECOND, 404, 'notfound_localdb');
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('3 errors');
    expect(messageText(watch.channelId, watch.ts)).toContain(
      `Last polled ${bed.clock.iso().slice(0, 16).replace('T', ' ')} UTC`,
    );
    expect(messageText(watch.channelId, watch.ts)).toMatch(/[▁▂▃▄▅▆▇█]{60}/);
    // The same day read again counts nothing twice.
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('3 errors');
    const updates = bed.messenger.records.filter(
      (record) =>
        record.kind === 'update' && record.ref.channelId === watch.channelId && record.ref.ts === watch.ts,
    );
    expect(updates.length).toBeGreaterThanOrEqual(2);
    await stop(watch);
  });

  it('alerts once per episode in its thread, and says when the episode ended, with its peak', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone} --status 5xx --alert 5/1m`);
    addErrors(bed, zone, 3, bed.clock() + 10 * SECOND);
    await step(MINUTE);
    expect(alertsIn(watch.channelId)).toHaveLength(0);

    addErrors(bed, zone, 8, bed.clock() + 10 * SECOND);
    await step(MINUTE);
    expect(alertsIn(watch.channelId)).toHaveLength(1);
    const alert = alertsIn(watch.channelId)[0]!;
    expect(alert.threadTs).toBe(watch.ts);
    expect(JSON.stringify(alert.reply.blocks)).toContain('8 origin errors');

    // Still over the threshold: the same episode, its peak raised in place.
    addErrors(bed, zone, 12, bed.clock() + 10 * SECOND);
    await step(MINUTE);
    expect(alertsIn(watch.channelId)).toHaveLength(1);
    const alertTs = alert.ref.ts;
    expect(messageText(watch.channelId, alertTs)).toContain('12 origin errors');

    await step(2 * MINUTE);
    expect(messageText(watch.channelId, alertTs)).toContain('episode is over');
    expect(messageText(watch.channelId, alertTs)).toContain('peak 12');

    addErrors(bed, zone, 9, bed.clock() + 10 * SECOND);
    await step(MINUTE);
    expect(alertsIn(watch.channelId)).toHaveLength(2);
    await stop(watch);
  });

  it('Snooze 30m pauses alerts while polling and the message go on', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone} --alert 2/1m`);
    await bed.click({ actionId: 'watch.logs:snooze', value: watch.id }, { channelId: watch.channelId });
    expect(messageText(watch.channelId, watch.ts)).toContain('alerts snoozed until');
    addErrors(bed, zone, 5, bed.clock() + 10 * SECOND);
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('5 errors');
    expect(alertsIn(watch.channelId)).toHaveLength(0);
    // After the snooze, a new episode is announced again.
    await step(31 * MINUTE);
    addErrors(bed, zone, 5, bed.clock() + 10 * SECOND);
    await step(MINUTE);
    expect(alertsIn(watch.channelId)).toHaveLength(1);
    await stop(watch);
  });
});

describe('a watch whose replica died before it noted its message', () => {
  it('while it runs, a click on its message notes that message, so Snooze and Stop update it', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    await bed.runtime.services.state.client.execute({
      sql: 'UPDATE watches SET message_ts = NULL WHERE id = ?',
      args: [watch.id],
    });
    const click = (actionId: string) =>
      bed.click({ actionId, value: watch.id }, { channelId: watch.channelId, messageTs: watch.ts });
    await click('watch.logs:snooze');
    expect(messageText(watch.channelId, watch.ts)).toContain('alerts snoozed until');
    const noted = await bed.runtime.services.state.client.execute({
      sql: 'SELECT message_ts FROM watches WHERE id = ?',
      args: [watch.id],
    });
    expect(noted.rows[0]?.message_ts).toBe(watch.ts);
    await click('watch.logs:stop');
    expect(messageText(watch.channelId, watch.ts)).not.toContain('watch.logs:stop');
  });

  it('is ended by the poller, and a click on its stale message brings that message up to date', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    // As if its replica had died between posting the message and noting where.
    await bed.runtime.services.state.client.execute({
      sql: 'UPDATE watches SET message_ts = NULL WHERE id = ?',
      args: [watch.id],
    });
    await step(10 * MINUTE);
    expect(await stateOf(watch.id)).toBe('ended');
    expect(messageText(watch.channelId, watch.ts)).toContain('watch.logs:stop');
    /** Clicks `actionId` for this watch on its message and returns the answer's words. */
    const clickOnItsMessage = async (actionId: string) =>
      answered(
        await bed.click({ actionId, value: watch.id }, { channelId: watch.channelId, messageTs: watch.ts }),
      );
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
    const stopped = await stop(watch, bed, 'U0OTHER');
    const note = postsIn([...stopped, ...bed.messenger.records], watch.channelId).find((post) =>
      wordsOf(post.reply).includes('ended: stopped by'),
    );
    expect(note?.threadTs).toBe(watch.ts);
    expect(messageText(watch.channelId, watch.ts)).toContain('ended');
    expect(messageText(watch.channelId, watch.ts)).not.toContain('watch.logs:stop');
    const audit = await bed.runtime.services.state.client.execute(
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
    expect(
      postsIn(bed.messenger.records, watch.channelId).some((post) =>
        wordsOf(post.reply).includes('its 3m are over'),
      ),
    ).toBe(true);
    expect(messageText(watch.channelId, watch.ts)).toContain('ended');
  });
});

describe('polling costs', () => {
  it('downloads a pull zone once per poll for every watch on it', async () => {
    const zone = quietZone();
    const a = await startWatch(`watch logs ${zone} --status 5xx`);
    const b = await startWatch(`watch logs ${zone} --code http_timeout`);
    addErrors(bed, zone, 4, bed.clock() + 5 * SECOND);
    const before = downloads(zone);
    await step(MINUTE);
    expect(downloads(zone) - before).toBe(1);
    expect(messageText(a.channelId, a.ts)).toContain('4 errors');
    expect(messageText(b.channelId, b.ts)).toContain('4 errors');
    const metrics = await bed.runtime.metrics.registry.metrics();
    expect(metrics).toMatch(/^edgeops_watches_running [1-9]/m);
    expect(metrics).toMatch(/^edgeops_watch_poll_seconds_count [1-9]/m);
    expect(metrics).toContain('edgeops_watch_lease_takeovers_total 0');
    await stop(a);
    await stop(b);
  });

  it('a 429 slows the watch down and says so; it goes on afterwards', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    bed.sandbox.faults.set('logs.origin', { status: 429, times: 3 });
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('slowed: the platform asked us to wait');
    expect(messageText(watch.channelId, watch.ts)).toContain('Stop');
    bed.sandbox.faults.clear();
    addErrors(bed, zone, 2, bed.clock() + 5 * SECOND);
    // Slowed to twice the interval: a minute later it has not polled yet, two minutes later it has.
    const before = downloads(zone);
    await step(MINUTE);
    expect(downloads(zone)).toBe(before);
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('2 errors');
    expect(messageText(watch.channelId, watch.ts)).not.toContain('slowed');
    await stop(watch);
  });
});

describe('a broken download', () => {
  it('counts nothing from a cut-off day, says the poll failed, and counts it all on the next poll', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    addErrors(bed, zone, 40, bed.clock() + 5 * SECOND);
    bed.sandbox.faults.set('logs.origin', { truncate: true, times: 3 });
    await step(MINUTE);
    const failed = messageText(watch.channelId, watch.ts);
    expect(failed).toContain('the last poll failed');
    expect(failed).toContain('0 errors');
    // The correlation id finds the poll's log line.
    const correlationId = /correlation id (c-[0-9a-f]{10})/.exec(failed)?.[1];
    expect(correlationId).toBeDefined();
    expect(
      bed.logs.filter((line) => line.includes(correlationId!) && line.includes('a watch poll failed')),
    ).toHaveLength(1);
    bed.sandbox.faults.clear();
    await step(MINUTE);
    expect(messageText(watch.channelId, watch.ts)).toContain('40 errors');
    expect(messageText(watch.channelId, watch.ts)).not.toContain('failed');
    await stop(watch);
  });
});

describe('a poll the platform refuses', () => {
  it('says why in the platform’s words, with no correlation id for a cause the reader can fix', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    bed.sandbox.faults.set('logs.origin', { status: 401, times: 3 });
    await step(MINUTE);
    const failed = messageText(watch.channelId, watch.ts);
    expect(failed).toContain('the last poll failed');
    expect(failed).toContain('PLATFORM_API_KEY');
    expect(failed).not.toContain('correlation id');
    bed.sandbox.faults.clear();
    await stop(watch);
  });
});

describe('what a watch counts', () => {
  const sinceStart = (watch: { channelId: string; ts: string }, testbed: EngineTestbed = bed) =>
    fieldsOf(testbed.board.shown(watch)!).get('Since the start');

  it('counts none of the entries stamped after its poll, and each once after the clock has passed it', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    const start = bed.clock();
    const stamped = (offsetMs: number, logId: string) => ({
      logId,
      timestamp: start + offsetMs,
      log: '{"RequestUrl":"/","StatusCode":504,"ErrorCode":"http_timeout"}',
      labels: { ErrorCode: 'http_timeout', StatusCode: '504', ServerZone: 'DE' },
    });
    // A platform whose clock runs ahead of ours: every answer already holds the next minutes.
    const logs = [
      stamped(10 * SECOND, 'a'),
      stamped(20 * SECOND, 'b'),
      stamped(3 * MINUTE, 'c'),
      stamped(3 * MINUTE, 'd'),
      stamped(3 * MINUTE + 30 * SECOND, 'e'),
      stamped(20 * MINUTE, 'f'),
    ];
    bed.sandbox.faults.set('logs.origin', { status: 200, body: { logs } });
    await step(MINUTE);
    expect(sinceStart(watch)).toBe('2 errors');
    await step(MINUTE);
    expect(sinceStart(watch)).toBe('2 errors');
    await step(2 * MINUTE);
    expect(sinceStart(watch)).toBe('5 errors');
    await step(MINUTE);
    expect(sinceStart(watch)).toBe('5 errors');
    await step(20 * MINUTE);
    expect(sinceStart(watch)).toBe('6 errors');
    await step(MINUTE);
    expect(sinceStart(watch)).toBe('6 errors');
    await stop(watch);
  });

  describe.each([
    { name: 'in the afternoon', at: '2026-11-21T14:00:20.000Z' },
    { name: 'with its last hour across midnight', at: '2026-11-22T00:20:20.000Z' },
  ])('on a busy zone $name', ({ at }) => {
    let busy: EngineTestbed;
    beforeAll(async () => {
      busy = await watchingTestbed();
      busy.clock.set(at);
    });
    afterAll(async () => {
      await busy?.close();
    });

    /** `/edge logs` run now: its headline, and the count it starts with. */
    async function logsNow(line: string): Promise<{ headline: string; count: number }> {
      const headline = headlineIn(await busy.run(line)).text;
      return { headline, count: Number(/^([\d,]+) origin errors/.exec(headline)![1]!.replaceAll(',', '')) };
    }

    it('counts the minute since it started, and its last hour is what /edge logs --last 1h counts then', async () => {
      // Ten errors a minute on every day, as the sandbox's busy zone 900001 has 694.
      const zone = ++zones;
      busy.sandbox.knobs.setLogDay(zone, 14_400);
      const watch = await startWatch(`watch logs ${zone}`, busy);
      const filtered = await startWatch(`watch logs ${zone} --status 5xx`, busy);
      await step(MINUTE, busy);
      // Since the start: the minute since it started, not the rest of the day.
      const { count: minute } = await logsNow(`logs ${zone} --last 1m`);
      expect(minute).toBeGreaterThanOrEqual(9);
      expect(minute).toBeLessThanOrEqual(11);
      expect(sinceStart(watch, busy)).toBe(`${minute} errors`);
      for (const [shown, last] of [
        [watch, `logs ${zone} --last 1h`],
        [filtered, `logs ${zone} --last 1h --status 5xx`],
      ] as const) {
        const code = busy.board.shown(shown)!.blocks.find((block) => block.type === 'code');
        const sparkline = code?.type === 'code' ? code.text : '';
        const { span, total } = /last hour, (?<span>.+? UTC): (?<total>[\d,]+) errors/.exec(sparkline)!
          .groups!;
        const logs = await logsNow(last);
        expect(logs.headline).toContain(`last 1h, ${span}`);
        expect(Number(total!.replaceAll(',', ''))).toBe(logs.count);
      }
      await stop(watch, busy);
      await stop(filtered, busy);
    }, 30_000);
  });
});

describe('around midnight', () => {
  it('reads the previous day too in the first minutes after midnight, so its last errors are counted', async () => {
    bed.clock.set('2026-11-23T23:58:30.000Z');
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`);
    addErrors(bed, zone, 2, Date.parse('2026-11-23T23:59:40.000Z'));
    bed.clock.set('2026-11-24T00:00:20.000Z');
    await bed.runtime.watchPoller.tick();
    expect(messageText(watch.channelId, watch.ts)).toContain('2 errors');
    const days = bed.sandbox.requests
      .byRoute('logs.origin')
      .filter((request) => request.path.includes(`/${zone}/`))
      .map((request) => request.path.split('/').at(-1));
    expect(days).toEqual(expect.arrayContaining(['11-23-2026', '11-24-2026']));
    await stop(watch);
  });
});

describe('asking for a watch', () => {
  const refusal = async (line: string) => answered(await bed.run(line));

  it('refuses a typo in --code, an interval below the minimum and more than 24 hours', async () => {
    expect(await refusal('watch logs 308006 --code http_timout')).toContain(
      'did you mean --code http_timeout',
    );
    expect(await refusal('watch logs 308006 --every 10s')).toContain('--every must be at least 1m');
    expect(await refusal('watch logs 308006 --for 25h')).toContain('at most 24h');
    expect(await refusal('watch logs 308006 --alert lots')).toContain('--alert 50/5m');
  });

  it('/edge watches lists running watches with their owners, and anyone granted may stop one there', async () => {
    const zone = quietZone();
    const watch = await startWatch(`watch logs ${zone}`, bed, 'U0ALICE');
    const listing = answered(await bed.run('watches', { channelId: watch.channelId }));
    expect(listing).toContain(`Pull zone ${zone}`);
    expect(listing).toContain('<@U0ALICE>');
    expect(listing).toContain('watches:stop');
    await bed.click(
      { actionId: 'watches:stop', value: watch.id },
      { channelId: watch.channelId, userId: 'U0BOB' },
    );
    expect(messageText(watch.channelId, watch.ts)).toContain('stopped by <@U0BOB>');
  });
});

describe('the shared platform budget', () => {
  let frugal: EngineTestbed;
  beforeAll(async () => {
    frugal = await watchingTestbed({ env: { EDGEOPS_WATCH_CALLS_PER_MINUTE: '1' } });
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
    await frugal.run(`logs ${first}`);
    expect(downloads(first, frugal)).toBeGreaterThan(before);
    // A minute later the budget has one call again: the other zone's turn.
    await step(MINUTE, frugal);
    expect(downloads(first, frugal) + downloads(second, frugal)).toBeGreaterThanOrEqual(3);
    expect(Math.min(downloads(first, frugal), downloads(second, frugal))).toBeGreaterThanOrEqual(1);
  });
});

describe('/edge watches and the policy', () => {
  let scoped: EngineTestbed;
  beforeAll(async () => {
    scoped = await watchingTestbed({
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
    const records = await scoped.run(`watch logs ${quietZone(scoped)}`, { channelId, userId: 'U0ALICE' });
    const posted = postsIn(records, channelId).find((post) =>
      wordsOf(post.reply).includes('Watching origin errors'),
    );
    return messageIdOf(posted!);
  }

  const listing = async (userId: string, channelId: string) =>
    answered(await scoped.run('watches', { channelId, userId }));

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
  let capped: EngineTestbed;
  beforeAll(async () => {
    capped = await watchingTestbed({
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
    expect(answered(await capped.run(`watch logs ${zone}`))).toContain('the most one person may have');
    const third = await startWatch(`watch logs ${zone}`, capped, 'U0OTHER');
    expect(answered(await capped.run(`watch logs ${zone}`, { userId: 'U0THIRD' }))).toContain(
      'the most allowed',
    );
    await stop(third, capped);
  });

  it('ends a watch when the policy no longer grants watch.logs to its owner in that channel', async () => {
    await capped.runtime.services.state.client.execute(
      "UPDATE watches SET state = 'ended' WHERE state = 'running'",
    );
    const zone = quietZone(capped);
    const watch = await startWatch(`watch logs ${zone}`, capped);
    await step(MINUTE, capped);
    capped.setPolicy(
      'roles:\n  everyone: ["*"]\ngrants:\n  - ops: [dns.list, logs.origin]\n    roles: [everyone]\n',
    );
    await step(MINUTE, capped);
    expect(
      postsIn(capped.messenger.records, watch.channelId).some((post) =>
        wordsOf(post.reply).includes('no longer lets'),
      ),
    ).toBe(true);
    expect(messageText(watch.channelId, watch.ts, capped)).toContain('ended');
  });
});
