/**
 * Two bot processes share one state database and follow one watch: only the lease holder polls;
 * when it is killed (SIGKILL, no shutdown hooks) the other takes over within two poll intervals
 * and goes on from the last entry counted, so the total equals the entries added, none twice.
 * Both processes read the test's clock from a file, so the test moves time for all of them.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type AppProcess, startAppProcess } from '../support/app-process.js';
import { pinnedClock } from '../support/clock.js';
import { type FakeSlack, startFakeSlack } from '../support/fake-slack.js';
import { slashCommand } from '../support/payloads.js';
import { everyoneMayRun } from '../support/policies.js';
import { postSigned } from '../support/signer.js';

const SIGNING_SECRET = 'watch-replica-secret-3c1f';
const MINUTE = 60_000;
const SECOND = 1_000;
const ZONE = 880_001;
const clock = pinnedClock();

let dir: string;
let fake: FakeSlack;
let sandbox: Sandbox;
const processes: AppProcess[] = [];

/** Moves the clock of the test, the sandbox, the fake Slack and both bot processes. */
function moveClock(ms: number): void {
  clock.advance(ms);
  writeFileSync(join(dir, 'clock.tmp'), String(clock()));
  renameSync(join(dir, 'clock.tmp'), join(dir, 'clock'));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edgeops-watch-replicas-'));
  writeFileSync(join(dir, 'policy.yml'), everyoneMayRun());
  moveClock(0);
  fake = await startFakeSlack({ now: clock });
  sandbox = await startSandbox({ now: clock });
  sandbox.knobs.setLogDay(ZONE, 0);
});
afterAll(async () => {
  for (const app of processes) await app.stop().catch(() => undefined);
  await sandbox?.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<AppProcess> {
  const app = await startAppProcess(
    {
      SLACK_BOT_TOKEN: 'xoxb-watch-replica-token-12',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      PLATFORM_API_URL: sandbox.apiUrl,
      PLATFORM_API_KEY: sandbox.apiKey,
      PLATFORM_LOGGING_URL: sandbox.loggingUrl,
      STATE_DATABASE_URL: `file:${join(dir, 'state.db')}`,
      EDGEOPS_POLICY: join(dir, 'policy.yml'),
      TEST_CLOCK_FILE: join(dir, 'clock'),
      TEST_WATCH_TICK_MS: '100',
    },
    20_000,
    'edgeops is ready',
    'test/support/clocked-app.ts',
  );
  processes.push(app);
  return app;
}

async function watchRow(): Promise<{ total: number; owner: string; messageTs: string | null }> {
  const client = createClient({ url: `file:${join(dir, 'state.db')}` });
  try {
    const row = (await client.execute('SELECT lease_owner, message_ts, progress_json FROM watches')).rows[0];
    return {
      total: row ? (JSON.parse(String(row.progress_json)) as { total: number }).total : -1,
      owner: String(row?.lease_owner ?? ''),
      messageTs: row?.message_ts === null || row === undefined ? null : String(row.message_ts),
    };
  } finally {
    client.close();
  }
}

const downloads = () =>
  sandbox.requests.byRoute('logs.origin').filter((request) => request.path.includes(`/${ZONE}/`)).length;

let added = 0;
function addErrors(count: number): void {
  sandbox.knobs.addLogEntries({ pullZoneId: ZONE, at: clock() + 5 * SECOND, count });
  added += count;
}

it('one replica polls; when it is killed the other takes over within two intervals, counting each entry once, and a restart resumes it', async () => {
  const [a, b] = [await start(), await start()];
  await postSigned(
    a.eventsUrl,
    slashCommand({
      text: `watch logs ${ZONE} --every 1m`,
      channelId: 'C0WATCHR',
      responseUrl: fake.responseUrl(),
    }),
    { signingSecret: SIGNING_SECRET },
  );
  await expect.poll(async () => (await watchRow()).messageTs, { timeout: 10_000 }).not.toBeNull();
  // Its first poll (at the start) is done by whichever replica got there first.
  await expect.poll(downloads, { timeout: 10_000 }).toBe(1);

  for (const count of [3, 5, 7]) {
    addErrors(count);
    moveClock(MINUTE);
    await expect.poll(async () => (await watchRow()).total, { timeout: 10_000 }).toBe(added);
  }
  // Several polls, each made once: only the lease holder polled.
  await new Promise((settle) => setTimeout(settle, 500));
  expect(downloads()).toBe(4);

  const holder = (await watchRow()).owner;
  const [polling, other] = holder.includes(`-${a.child.pid}-`) ? [a, b] : [b, a];
  expect(holder).toContain(`-${polling.child.pid}-`);
  await polling.kill();

  addErrors(11);
  // One interval on: the dead replica's lease still holds, nobody polls.
  moveClock(MINUTE);
  await new Promise((settle) => setTimeout(settle, 500));
  expect(downloads()).toBe(4);
  // Half an interval more (1.5 intervals after the last poll): the lease has expired, the other takes it.
  moveClock(MINUTE / 2 + SECOND);
  await expect.poll(async () => (await watchRow()).total, { timeout: 10_000 }).toBe(added);
  expect((await watchRow()).owner).toContain(`-${other.child.pid}-`);
  const metrics = await (await fetch(`${other.metricsUrl()}/metrics`)).text();
  expect(metrics).toContain('edgeops_watch_lease_takeovers_total 1');

  addErrors(2);
  moveClock(MINUTE);
  await expect.poll(async () => (await watchRow()).total, { timeout: 10_000 }).toBe(added);
  expect(added).toBe(28);
  const { messageTs } = await watchRow();
  // The message is updated just after the counts are saved: wait for it rather than race it.
  await expect
    .poll(
      () => JSON.stringify(fake.messages.find((m) => m.channel === 'C0WATCHR' && m.ts === messageTs)?.blocks),
      { timeout: 10_000 },
    )
    .toContain('28 errors');

  // A restart resumes it: the last replica stops cleanly (handing its lease back), a new one polls on.
  await other.stop();
  const restarted = await start();
  addErrors(4);
  moveClock(MINUTE);
  await expect.poll(async () => (await watchRow()).total, { timeout: 10_000 }).toBe(added);
  expect((await watchRow()).owner).toContain(`-${restarted.child.pid}-`);
  expect(fake.refusals).toEqual([]);
}, 90_000);
