/**
 * `/edge digest` through the engine: the sandbox holds origin errors where a test puts them, the
 * pinned clock is moved to each occurrence and the digest runner is ticked by hand, as its timer
 * would; what a digest posted is read from the records of the messenger it posts through.
 */
import { once } from 'node:events';
import { readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Messenger } from '../../src/operations/engine/ports.js';
import type { Reply } from '../../src/reply/model.js';
import { temporaryCsvPath } from '../../src/reports/csv/temp-file.js';
import {
  answered,
  buttonsOf,
  dmsIn,
  type EngineReplica,
  type EngineTestbed,
  postsIn,
  type Recorded,
  readableOf,
  startEngineTestbed,
  startReplica,
  wordsOf,
} from '../support/engine.js';
import { everyoneMayRun } from '../support/policies.js';

let zones = 880_000;
let channels = 0;

/** Channels where posting fails as it does once the bot has been removed. */
const goneChannels = new Set<string>();

/** The testbed's messenger, refusing posts in the channels of `goneChannels` as Slack would. */
function runnerMessenger(bed: EngineTestbed): Messenger {
  return {
    ...bed.messenger,
    async postToChannel(channelId, reply, threadTs) {
      if (goneChannels.has(channelId))
        throw Object.assign(new Error('An API error occurred: not_in_channel'), {
          data: { ok: false, error: 'not_in_channel' },
        });
      return bed.messenger.postToChannel(channelId, reply, threadTs);
    },
  };
}

/** A testbed whose digest runner posts through its messenger, and runs when a test ticks it. */
async function digestTestbed(options: Parameters<typeof startEngineTestbed>[0] = {}) {
  const bed = await startEngineTestbed(options);
  bed.runtime.digestRunner.start(runnerMessenger(bed));
  return bed;
}

let bed: EngineTestbed;
beforeAll(async () => {
  // Each test sets digests of its own, and they run on as the clock moves.
  bed = await digestTestbed({ env: { EDGEOPS_MAX_DIGESTS_PER_USER: '100', EDGEOPS_MAX_DIGESTS: '1000' } });
});
afterAll(async () => {
  await bed?.close();
});

/** A pull zone of its own whose log has nothing until a test adds entries. */
function quietZone(testbed: EngineTestbed = bed): number {
  const zone = ++zones;
  testbed.sandbox.knobs.setLogDay(zone, 0);
  return zone;
}

const newChannel = () => `C0DIGEST${++channels}`;

/** Sets a digest in a channel of its own; its channel and id. */
async function setDigest(line: string, testbed: EngineTestbed = bed, userId = 'U0YOU') {
  const channelId = newChannel();
  const records = await testbed.run(line, { channelId, userId });
  const set = postsIn(records, channelId).find((post) => wordsOf(post.reply).includes('set a digest here'));
  if (!set) throw new Error(`no digest was set: ${answered(records)}`);
  return { channelId, id: /dg_[0-9a-f]{12}/.exec(wordsOf(set.reply))![0], set: set.reply };
}

/** Moves the shared clock and runs one pass of the runner, as its timer would. */
async function tickAt(at: string, testbed: EngineTestbed = bed) {
  testbed.clock.set(at);
  await testbed.runtime.digestRunner.tick();
}

/** What the digests posted in a channel, in order, its own set message left out. */
const digestPosts = (channelId: string, records: readonly Recorded[] = bed.messenger.records) =>
  postsIn(records, channelId).map((post) => post.reply);

const textOf = (reply: Reply) => readableOf(reply);

describe('setting, listing and stopping a digest', () => {
  it('says in the channel what will arrive and when, lists it with Stop, and Stop ends it for good', async () => {
    bed.clock.set('2026-11-23T08:00:00.000Z');
    const zone = quietZone();
    const { channelId, id, set } = await setDigest(`digest logs ${zone} --at 09:00 --tz Europe/Berlin`);
    expect(textOf(set)).toContain(`<@U0YOU> set a digest here: origin errors of pull zone ${zone}`);
    expect(textOf(set)).toContain('every day at 09:00 Europe/Berlin');
    // 09:00 in Berlin is 08:00 UTC in winter: already gone today, so tomorrow.
    expect(textOf(set)).toContain('The first arrives Tue 2026-11-24 09:00 Europe/Berlin');

    const listing = answered(await bed.run('digests', { channelId, userId: 'U0OTHER' }));
    expect(listing).toContain('Digests in this channel (1)');
    expect(listing).toContain(id);
    expect(listing).toContain('Next: Tue 2026-11-24 09:00 Europe/Berlin');
    expect(answered(await bed.run('digests', { channelId: newChannel() }))).toContain('No digest is set in');

    const stopped = await bed.click({ actionId: `digests:stop#${id}`, value: id }, { channelId });
    expect(answered(stopped)).toContain('is stopped');
    expect(
      postsIn(stopped, channelId)
        .map((post) => textOf(post.reply))
        .join('\n'),
    ).toContain('has stopped: stopped by <@U0YOU>');
    expect(answered(await bed.run('digests', { channelId }))).toContain('No digest is set in');
    await tickAt('2026-11-24T08:00:00.000Z');
    expect(digestPosts(channelId)).toEqual([]);
    const rows = await bed.runtime.services.audit.list({ limit: 20, filter: { operation: 'digest.set' } });
    expect(rows.some((row) => row.outcome === 'ended' && row.correlationId === id)).toBe(true);
  });

  it('refuses what it cannot schedule, saying what to type instead', async () => {
    const refusal = async (line: string) => answered(await bed.run(line, { channelId: newChannel() }));
    expect(await refusal('digest logs 308006 --at 09:00 --tz Berlin')).toContain('e.g. --tz Europe/Berlin');
    expect(await refusal('digest logs 308006 --at 09:00 --tz Europe/Berln')).toContain(
      'e.g. --tz Europe/Berlin',
    );
    expect(await refusal('digest logs 308006 --at 09:00 --tz +02:00')).toContain(
      'is not a time zone: give an IANA name, Area/City',
    );
    expect(await refusal('digest logs 308006 --at 25:00')).toContain('e.g. --at 09:00');
    expect(await refusal('digest logs 308006')).toContain('--at is required');
    expect(await refusal('digest logs 308006 --at 09:00 --every month')).toContain(
      '--every takes day, weekday',
    );
    expect(await refusal('digest shield 5101 --at 09:00 --filter country:near:DE')).toContain(
      '--filter operator',
    );
    // The group word alone is its help.
    const help = answered(await bed.run('digest', { channelId: newChannel() }));
    expect(help).toContain('/edge digest logs PULLZONE_ID --at HH:MM');
    expect(help).toContain('/edge digest shield SHIELD_ZONE_ID --at HH:MM');
    // Any spelling of a zone the database knows is taken, as the database spells it.
    const { set } = await setDigest(`digest logs ${quietZone()} --at 7:30 --tz america/new_york`);
    expect(textOf(set)).toContain('every day at 07:30 America/New_York');
  });
});

describe('a digest posts at its local time', () => {
  it('the headline and breakdown of the day since the one before, with the CSV, once', async () => {
    bed.clock.set('2026-11-23T08:00:00.000Z');
    const zone = quietZone();
    bed.sandbox.knobs.addLogEntries({ pullZoneId: zone, at: Date.parse('2026-11-23T03:00:00Z'), count: 7 });
    // Before the period: not counted.
    bed.sandbox.knobs.addLogEntries({ pullZoneId: zone, at: Date.parse('2026-11-22T08:00:00Z'), count: 5 });
    const { channelId } = await setDigest(`digest logs ${zone} --at 09:00`);
    await tickAt('2026-11-23T08:59:59.000Z');
    expect(digestPosts(channelId)).toEqual([]);
    await tickAt('2026-11-23T09:00:00.000Z');
    const [posted] = digestPosts(channelId);
    expect(posted).toBeDefined();
    const headline = textOf(posted!);
    expect(headline).toContain(`Digest of origin errors of pull zone ${zone}, every day at 09:00 UTC`);
    expect(headline).toContain(`7 origin errors* · pull zone ${zone} · 09:00 yesterday – 09:00 today (UTC)`);
    expect(headline).not.toContain('late');
    const thread = posted!.thread?.[0];
    expect(thread?.files?.[0]?.filename).toBe(`origin-errors-${zone}-20261122T0900Z-20261123T0900Z.csv`);
    await tickAt('2026-11-23T09:00:30.000Z');
    expect(digestPosts(channelId)).toHaveLength(1);
    const runs = await bed.runtime.services.audit.list({ limit: 50, filter: { operation: 'digest.set' } });
    expect(runs.filter((row) => row.outcome === 'posted' && row.channelId === channelId)).toHaveLength(1);
  });

  it('names a comparison day the platform failed to serve, with the id of its occurrence’s audit row', async () => {
    bed.clock.set('2026-11-23T08:00:00.000Z');
    const zone = quietZone();
    bed.sandbox.knobs.addLogEntries({ pullZoneId: zone, at: Date.parse('2026-11-23T03:00:00Z'), count: 3 });
    const { channelId } = await setDigest(`digest logs ${zone} --at 09:00`);
    // The period's two days are served; the day before them, needed only to compare, fails every try.
    bed.sandbox.faults.set('logs.origin', { status: 503, after: 2, times: 3 });
    await tickAt('2026-11-23T09:00:00.000Z');
    bed.sandbox.faults.clear();
    const [posted] = digestPosts(channelId);
    // The summary, with its notes, is in the post's thread.
    const text = (posted!.thread ?? []).map((reply) => textOf(reply)).join('\n');
    const id = /the platform did not serve 2026-11-21 \(.*; correlation id ([^)\s]+)\)/.exec(text)?.[1];
    expect(id).toBeDefined();
    const runs = await bed.runtime.services.audit.list({ limit: 50, filter: { operation: 'digest.set' } });
    expect(runs.find((row) => row.outcome === 'posted' && row.channelId === channelId)?.correlationId).toBe(
      id,
    );
    expect(bed.logs.some((line) => line.includes('could not be fetched') && line.includes(id!))).toBe(true);
  });

  it('says a quiet period in one line', async () => {
    bed.clock.set('2026-11-23T08:00:00.000Z');
    const zone = quietZone();
    const { channelId } = await setDigest(`digest logs ${zone} --at 09:00`);
    await tickAt('2026-11-23T09:00:00.000Z');
    const posts = digestPosts(channelId);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.blocks).toHaveLength(1);
    expect(textOf(posts[0]!)).toContain(
      `No origin errors on pull zone ${zone} between 09:00 yesterday and 09:00 today (UTC)`,
    );
    expect(posts[0]!.files ?? []).toEqual([]);
  });

  it('two digests of one zone due at the same time share one download of each day', async () => {
    bed.clock.set('2026-11-23T08:00:00.000Z');
    const zone = quietZone();
    bed.sandbox.knobs.addLogEntries({ pullZoneId: zone, at: Date.parse('2026-11-23T01:00:00Z'), count: 3 });
    const first = await setDigest(`digest logs ${zone} --at 09:00`);
    const second = await setDigest(`digest logs ${zone} --at 10:00 --tz Europe/Berlin`, bed, 'U0OTHER');
    const downloads = () =>
      bed.sandbox.requests.byRoute('logs.origin').filter((request) => request.path.includes(`/${zone}/`))
        .length;
    await tickAt('2026-11-23T09:00:00.000Z');
    expect(digestPosts(first.channelId)).toHaveLength(1);
    expect(digestPosts(second.channelId)).toHaveLength(1);
    // The window's two days and the day before them, once for both.
    expect(downloads()).toBe(3);
  });

  it('after downtime, posts the latest missed occurrence once, late, saying so', async () => {
    bed.clock.set('2026-11-23T08:00:00.000Z');
    const zone = quietZone();
    const { channelId } = await setDigest(`digest logs ${zone} --at 09:00`);
    await tickAt('2026-11-23T09:00:00.000Z');
    // No replica runs from here until Thursday 11:30.
    await tickAt('2026-11-26T11:30:00.000Z');
    await tickAt('2026-11-26T11:31:00.000Z');
    const posts = digestPosts(channelId).map(textOf);
    expect(posts).toHaveLength(2);
    expect(posts[1]).toContain('between 09:00 yesterday and 09:00 today (UTC)');
    expect(posts[1]).toContain(
      'posted late: it was due at Thu 2026-11-26 09:00 UTC; 2 earlier ones were missed while the bot was not running, and not posted',
    );
    await tickAt('2026-11-27T09:00:00.000Z');
    const next = digestPosts(channelId).map(textOf);
    expect(next).toHaveLength(3);
    expect(next[2]).not.toContain('late');
  });

  it('follows the local clock across both daylight-saving changes in Europe/Berlin', async () => {
    const spring = quietZone();
    bed.clock.set('2026-03-27T12:00:00.000Z');
    const march = await setDigest(`digest logs ${spring} --at 09:00 --tz Europe/Berlin`);
    // Saturday, still winter time: 09:00 is 08:00 UTC.
    await tickAt('2026-03-28T07:59:00.000Z');
    await tickAt('2026-03-28T08:00:00.000Z');
    expect(digestPosts(march.channelId)).toHaveLength(1);
    // Sunday the clocks go forward: 09:00 is 07:00 UTC, not 08:00.
    await tickAt('2026-03-29T06:59:00.000Z');
    expect(digestPosts(march.channelId)).toHaveLength(1);
    await tickAt('2026-03-29T07:00:00.000Z');
    const afterSpring = digestPosts(march.channelId).map(textOf);
    expect(afterSpring).toHaveLength(2);
    expect(afterSpring[1]).toContain('between 09:00 yesterday and 09:00 today (Europe/Berlin)');

    const autumn = quietZone();
    bed.clock.set('2026-10-23T12:00:00.000Z');
    const october = await setDigest(`digest logs ${autumn} --at 09:00 --tz Europe/Berlin`);
    // Saturday, summer time: 09:00 is 07:00 UTC.
    await tickAt('2026-10-24T07:00:00.000Z');
    expect(digestPosts(october.channelId)).toHaveLength(1);
    // Sunday the clocks go back: 09:00 is 08:00 UTC, not 07:00.
    await tickAt('2026-10-25T07:00:00.000Z');
    expect(digestPosts(october.channelId)).toHaveLength(1);
    await tickAt('2026-10-25T08:00:00.000Z');
    const afterAutumn = digestPosts(october.channelId).map(textOf);
    expect(afterAutumn).toHaveLength(2);
    expect(afterAutumn[1]).toContain('between 09:00 yesterday and 09:00 today (Europe/Berlin)');
    expect(afterAutumn.join('\n')).not.toContain('late');
  });

  it('a Monday weekday digest covers the weekend, in daily counts', async () => {
    bed.clock.set('2026-11-20T08:00:00.000Z');
    const zone = quietZone();
    bed.sandbox.knobs.addLogEntries({ pullZoneId: zone, at: Date.parse('2026-11-21T12:00:00Z'), count: 4 });
    const { channelId } = await setDigest(`digest logs ${zone} --at 09:00 --every weekday`);
    await tickAt('2026-11-20T09:00:00.000Z');
    await tickAt('2026-11-21T09:00:00.000Z');
    await tickAt('2026-11-22T09:00:00.000Z');
    expect(digestPosts(channelId)).toHaveLength(1);
    await tickAt('2026-11-23T09:00:00.000Z');
    const posts = digestPosts(channelId);
    expect(posts).toHaveLength(2);
    expect(textOf(posts[1]!)).toContain('4 origin errors* · pull zone');
    expect(textOf(posts[1]!)).toContain('09:00 on Friday – 09:00 today (UTC)');
    expect(textOf(posts[1]!.thread![0]!)).toContain('Errors per day (UTC)');
  });
});

describe('a Shield digest', () => {
  it('summarises the export of at most the last 71 hours, and says so of a longer period', async () => {
    bed.clock.set('2026-11-23T08:00:00.000Z');
    const { channelId } = await setDigest('digest shield 5101 --at 09:00 --every week');
    await tickAt('2026-11-23T09:00:00.000Z');
    const [first] = digestPosts(channelId);
    expect(textOf(first!)).toContain('Shield events* · zone 5101');
    expect(textOf(first!)).toContain(
      'the platform exports the last 72 hours only, so this covers its last part',
    );
    expect(first!.thread?.[0]?.files?.[0]?.filename).toMatch(/^shield-events-5101-/);
    const exported = bed.sandbox.requests.byRoute('shield.export').at(-1);
    const body = exported?.body as { from?: number; to?: number } | undefined;
    expect(body?.to).toBe(Date.parse('2026-11-23T09:00:00Z'));
    expect(body?.from).toBe(Date.parse('2026-11-20T10:00:00Z'));
  });
});

describe('the Home', () => {
  it("shows the caller's digests with Stop", async () => {
    bed.clock.set('2026-11-23T08:00:00.000Z');
    const zone = quietZone();
    const { id } = await setDigest(`digest logs ${zone} --at 09:00`, bed, 'U0HOMER');
    const home = (await bed.run('home', { userId: 'U0HOMER', channelId: newChannel() })).find(
      (record) => record.kind === 'respond',
    );
    expect(home?.kind === 'respond' && textOf(home.reply)).toContain('Your digests (1)');
    const stop = home?.kind === 'respond' ? buttonsOf(home.reply).find((b) => b.value === id) : undefined;
    expect(stop?.actionId).toMatch(/^home:stop-digest/);
    expect(answered(await bed.click(stop!, { userId: 'U0HOMER', channelId: 'D0HOME' }))).toContain(
      'is stopped',
    );
  });
});

describe('a digest whose channel the bot has left', () => {
  it('stops, and its owner is told by DM', async () => {
    bed.clock.set('2026-11-23T08:00:00.000Z');
    const zone = quietZone();
    const { channelId, id } = await setDigest(`digest logs ${zone} --at 09:00`, bed, 'U0LEFT');
    goneChannels.add(channelId);
    await tickAt('2026-11-23T09:00:00.000Z');
    const dm = dmsIn(bed.messenger.records, 'U0LEFT').map((record) => textOf(record.reply));
    expect(dm.join('\n')).toContain('has stopped: the bot is not in that channel (invite it there)');
    expect(
      (
        await bed.runtime.services.state.client.execute({
          sql: 'SELECT state, ended_reason FROM digests WHERE id = ?',
          args: [id],
        })
      ).rows[0],
    ).toMatchObject({ state: 'ended', ended_reason: 'channel' });
  });
});

describe('limits and the policy', () => {
  let gated: EngineTestbed;
  beforeAll(async () => {
    gated = await digestTestbed({
      policyYaml: everyoneMayRun(),
      env: { EDGEOPS_MAX_DIGESTS_PER_USER: '2', EDGEOPS_MAX_DIGESTS: '3' },
    });
  });
  afterAll(async () => {
    await gated?.close();
  });

  const endAll = () =>
    gated.runtime.services.state.client.execute("UPDATE digests SET state = 'ended' WHERE state = 'running'");

  it('caps digests per person and in the workspace, with a clear answer', async () => {
    await endAll();
    gated.clock.set('2026-11-23T08:00:00.000Z');
    const zone = quietZone(gated);
    await setDigest(`digest logs ${zone} --at 09:00`, gated);
    await setDigest(`digest logs ${zone} --at 10:00`, gated);
    expect(answered(await gated.run(`digest logs ${zone} --at 11:00`))).toContain(
      'the most one person may have',
    );
    await setDigest(`digest logs ${zone} --at 11:00`, gated, 'U0OTHER');
    expect(answered(await gated.run(`digest logs ${zone} --at 12:00`, { userId: 'U0THIRD' }))).toContain(
      'the most allowed',
    );
  });

  it('refuses a digest of what the policy holds for approval, with that reason', async () => {
    await endAll();
    gated.setPolicy(everyoneMayRun({ gated: ['logs.origin'] }));
    try {
      const refused = answered(await gated.run(`digest logs ${quietZone(gated)} --at 09:00`));
      expect(refused).toContain('The policy holds logs.origin in this channel for approval');
      expect(refused).toContain('a digest never runs what waits for approval');
    } finally {
      gated.setPolicy(everyoneMayRun());
    }
  });

  it('stops a running digest, saying why, once the policy holds what it runs for approval', async () => {
    await endAll();
    gated.clock.set('2026-11-23T08:00:00.000Z');
    const { channelId } = await setDigest(`digest logs ${quietZone(gated)} --at 09:00`, gated, 'U0ALICE');
    gated.setPolicy(everyoneMayRun({ gated: ['logs.origin'] }));
    try {
      await tickAt('2026-11-23T09:00:00.000Z', gated);
      const posts = digestPosts(channelId, gated.messenger.records).map(textOf);
      expect(posts).toHaveLength(1);
      expect(posts[0]).toContain('now holds logs.origin in this channel for approval');
      expect(
        dmsIn(gated.messenger.records, 'U0ALICE')
          .map((dm) => textOf(dm.reply))
          .join('\n'),
      ).toContain('Your digest of origin errors');
    } finally {
      gated.setPolicy(everyoneMayRun());
    }
  });

  it('stops when its owner may no longer run logs.origin in its channel, and tells them by DM', async () => {
    await endAll();
    gated.clock.set('2026-11-23T08:00:00.000Z');
    const { channelId } = await setDigest(`digest logs ${quietZone(gated)} --at 09:00`, gated, 'U0BOB');
    gated.setPolicy(
      'roles:\n  everyone: ["*"]\ngrants:\n  - ops: [dns.list, digest.list]\n    roles: [everyone]\n',
    );
    try {
      await tickAt('2026-11-23T09:00:00.000Z', gated);
      const posts = digestPosts(channelId, gated.messenger.records).map(textOf);
      expect(posts).toHaveLength(1);
      expect(posts[0]).toContain('the policy no longer lets <@U0BOB> run logs.origin in this channel');
      expect(
        dmsIn(gated.messenger.records, 'U0BOB')
          .map((dm) => textOf(dm.reply))
          .join('\n'),
      ).toContain('has stopped');
    } finally {
      gated.setPolicy(everyoneMayRun());
    }
  });
});

describe('a policy that changes while a digest is made', () => {
  it('is asked again before the digest is posted: nothing is posted, and the digest stops saying why', async () => {
    const gated = await digestTestbed({ policyYaml: everyoneMayRun() });
    const { authorizer } = gated.runtime;
    const decide = authorizer.decide.bind(authorizer);
    try {
      gated.clock.set('2026-11-23T08:00:00.000Z');
      const { channelId } = await setDigest(`digest logs ${quietZone(gated)} --at 09:00`, gated, 'U0CAROL');
      // The runner's first check passes; the policy changes at once, while the period is read.
      let checks = 0;
      authorizer.decide = async (operation, who) => {
        const decision = await decide(operation, who);
        if (who.userId === 'U0CAROL' && ++checks === 1)
          gated.setPolicy(
            'roles:\n  everyone: ["*"]\ngrants:\n  - ops: [dns.list, digest.list]\n    roles: [everyone]\n',
          );
        return decision;
      };
      await tickAt('2026-11-23T09:00:00.000Z', gated);
      expect(checks).toBe(2);
      const posts = digestPosts(channelId, gated.messenger.records).map(textOf);
      expect(posts).toHaveLength(1);
      expect(posts[0]).toContain('the policy no longer lets <@U0CAROL> run logs.origin in this channel');
    } finally {
      authorizer.decide = decide;
      await gated.close();
    }
  });
});

describe('a period the platform answers with a body that cannot be read', () => {
  it('is posted as a failure that says why and gives the correlation id of its log line', async () => {
    // The origin-log service answers every day with JSON that breaks inside the first entry.
    const garbled = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"logs":[{"logId":"x"]}');
    });
    garbled.listen(0, '127.0.0.1');
    await once(garbled, 'listening');
    const url = `http://127.0.0.1:${(garbled.address() as AddressInfo).port}`;
    const failing = await digestTestbed({ env: { PLATFORM_LOGGING_URL: url } });
    try {
      failing.clock.set('2026-11-23T08:00:00.000Z');
      const zone = quietZone(failing);
      const { channelId } = await setDigest(`digest logs ${zone} --at 09:00`, failing);
      await tickAt('2026-11-23T09:00:00.000Z', failing);
      const posts = digestPosts(channelId, failing.messenger.records);
      expect(posts).toHaveLength(1);
      const text = textOf(posts[0]!);
      expect(text).toContain('could not be made: The origin log response could not be read');
      expect(text).toContain('Try again; if it persists, report it with the correlation id');
      const correlationId = /correlation id (c-[0-9a-f]{10})/.exec(text)?.[1];
      expect(correlationId).toBeDefined();
      const logged = failing.logs.filter((line) => line.includes(correlationId!));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain('a digest could not be made');
      // And its audit row names it.
      const rows = await failing.runtime.services.audit.list({
        limit: 10,
        filter: { operation: 'digest.set' },
      });
      expect(
        rows.filter((row) => row.detail?.includes(correlationId!) && row.outcome === 'failed'),
      ).toHaveLength(1);
    } finally {
      await failing.close();
      garbled.close();
    }
  });
});

describe('a state database that fails as a digest starts posting', () => {
  it('leaves none of the files the digest made, and posts nothing', async () => {
    const failing = await digestTestbed();
    try {
      failing.clock.set('2026-11-23T08:00:00.000Z');
      const zone = quietZone(failing);
      failing.sandbox.knobs.addLogEntries({
        pullZoneId: zone,
        at: Date.parse('2026-11-23T03:00:00Z'),
        count: 7,
      });
      const { channelId } = await setDigest(`digest logs ${zone} --at 09:00`, failing);
      await failing.runtime.services.state.client.execute(
        `CREATE TRIGGER fail_posting BEFORE UPDATE OF state ON digest_runs WHEN NEW.state = 'posting'
         BEGIN SELECT RAISE(ABORT, 'the state database failed'); END`,
      );
      // This process's temporary CSVs are named after it: none may be left once the run is over.
      const named = temporaryCsvPath();
      rmSync(named);
      const ours = basename(named).slice(0, -'0123456789.csv'.length);
      await tickAt('2026-11-23T09:00:00.000Z', failing);
      expect(digestPosts(channelId, failing.messenger.records)).toEqual([]);
      expect(readdirSync(tmpdir()).filter((name) => name.startsWith(ours))).toEqual([]);
    } finally {
      await failing.close();
    }
  });
});

describe('two replicas on one state database', () => {
  let replica: EngineReplica;
  beforeAll(async () => {
    replica = await startReplica(bed);
    replica.runtime.digestRunner.start(replica.messenger);
  });
  afterAll(async () => {
    await replica?.close();
  });

  it('post a daily, a weekday and a weekly digest once per occurrence', async () => {
    bed.clock.set('2026-11-23T08:00:00.000Z');
    const daily = await setDigest(`digest logs ${quietZone()} --at 09:00`);
    const weekday = await setDigest(`digest logs ${quietZone()} --at 09:00 --every weekday`);
    const weekly = await setDigest(`digest logs ${quietZone()} --at 09:00 --every week`);
    for (let day = 0; day < 7; day++) {
      bed.clock.set(Date.parse('2026-11-23T09:00:00.000Z') + day * 86_400_000);
      // Both replicas wake at the same moment, as their timers may.
      await Promise.all([bed.runtime.digestRunner.tick(), replica.runtime.digestRunner.tick()]);
    }
    const both = [...bed.messenger.records, ...replica.messenger.records];
    expect(digestPosts(daily.channelId, both)).toHaveLength(7);
    expect(digestPosts(weekday.channelId, both)).toHaveLength(5);
    expect(digestPosts(weekly.channelId, both)).toHaveLength(1);
    expect(textOf(digestPosts(weekly.channelId, both)[0]!)).toContain(
      'between 09:00 on 2026-11-16 and 09:00 today (UTC)',
    );
  });
});
