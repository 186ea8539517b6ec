import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { type AppProcess, startAppProcess } from '../support/app-process.js';
import { pinnedClock } from '../support/clock.js';
import { type FakeSlack, startFakeSlack } from '../support/fake-slack.js';
import { blockActions, checkboxes, slashCommand, staticSelect, viewSubmission } from '../support/payloads.js';
import { everyoneMayRun } from '../support/policies.js';
import { postSigned } from '../support/signer.js';

const clock = pinnedClock();

const SIGNING_SECRET = 'replica-signing-secret-5e1d';
const POLICY = everyoneMayRun({
  gated: ['pullzone.reset-key'],
  leads: ['U0LEAD', 'U0LEAD2', 'U0LEAD3', 'U0LEAD4'],
});

/**
 * Where the replicas keep their shared state: a `file:` database, or a libSQL server over HTTP.
 * No `sqld` can be installed here; a second sandbox's Hrana endpoint stands in for one, so the
 * real client's remote path (HTTP, batons, transactions over streams) is what runs.
 */
type StateBackend = 'file' | 'http';
let backend: StateBackend = 'file';

let dir: string;
let fake: FakeSlack;
let sandbox: Sandbox;
let stateServer: Sandbox;

function stateDatabase(): { url: string; authToken?: string } {
  return backend === 'file'
    ? { url: `file:${join(dir, 'state.db')}` }
    : { url: stateServer.databaseUrl, authToken: stateServer.databaseTokens.fullAccess };
}

/** A client of the replicas' state database, for the test to look into it. */
function stateClient() {
  return createClient(stateDatabase());
}
const processes: AppProcess[] = [];

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: 'xoxb-replica-test-token-77',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    PLATFORM_API_URL: sandbox.apiUrl,
    PLATFORM_API_KEY: sandbox.apiKey,
    PLATFORM_LOGGING_URL: sandbox.loggingUrl,
    STATE_DATABASE_URL: stateDatabase().url,
    ...(stateDatabase().authToken ? { STATE_DATABASE_AUTH_TOKEN: stateDatabase().authToken! } : {}),
    EDGEOPS_POLICY: join(dir, 'policy.yml'),
    ...extra,
  };
}

async function start(extra: Record<string, string> = {}): Promise<AppProcess> {
  const app = await startAppProcess(env(extra));
  processes.push(app);
  return app;
}

/** Everyone may run everything, and nothing needs approval: each change runs at once. */
const UNGATED_POLICY = everyoneMayRun();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edgeops-replicas-'));
  writeFileSync(join(dir, 'policy.yml'), POLICY);
  writeFileSync(join(dir, 'ungated.yml'), UNGATED_POLICY);
  fake = await startFakeSlack({ now: clock });
  sandbox = await startSandbox({ now: clock });
  stateServer = await startSandbox({ now: clock });
});
afterAll(async () => {
  for (const app of processes) await app.stop().catch(() => undefined);
  await sandbox?.close();
  await stateServer?.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function requestReset(app: AppProcess, zone: number): Promise<string> {
  await postSigned(
    app.eventsUrl,
    slashCommand({ text: `pullzone reset-key ${zone} replica test`, responseUrl: fake.responseUrl() }),
    { signingSecret: SIGNING_SECRET },
  );
  const card = await fake.waitFor(
    'chat.postMessage',
    (call) =>
      call.args.channel === 'C0APPROVALS' && JSON.stringify(call.args.blocks).includes(`pull zone ${zone}"`),
    10_000,
  );
  return /ap_[0-9a-f]{16}/.exec(JSON.stringify(card.args.blocks))![0];
}

function approve(app: AppProcess, id: string, userId: string) {
  return postSigned(
    app.eventsUrl,
    blockActions({
      actionId: 'approvals:approve',
      value: id,
      userId,
      channelId: 'C0APPROVALS',
      responseUrl: fake.responseUrl(),
    }),
    { signingSecret: SIGNING_SECRET },
  );
}

async function states(ids: string[]): Promise<Record<string, string>> {
  const client = stateClient();
  try {
    const rows = await client.execute('SELECT id, state FROM approvals');
    const all = Object.fromEntries(rows.rows.map((row) => [String(row.id), String(row.state)]));
    return Object.fromEntries(ids.map((id) => [id, all[id] ?? 'missing']));
  } finally {
    client.close();
  }
}

async function sql(statement: string, args: (string | number)[] = []): Promise<void> {
  const client = stateClient();
  try {
    await client.execute({ sql: statement, args });
  } finally {
    client.close();
  }
}

/** The rows a query answers, each as its values. */
async function rows(statement: string, args: (string | number)[] = []): Promise<unknown[][]> {
  const client = stateClient();
  try {
    const result = await client.execute({ sql: statement, args });
    return result.rows.map((row) => result.columns.map((_, i) => row[i]));
  } finally {
    client.close();
  }
}

async function cardStored(id: string): Promise<boolean> {
  const client = stateClient();
  try {
    const rows = await client.execute({ sql: 'SELECT card_ts FROM approvals WHERE id = ?', args: [id] });
    return rows.rows[0]?.card_ts !== null && rows.rows[0]?.card_ts !== undefined;
  } finally {
    client.close();
  }
}

describe.each<StateBackend>(['file', 'http'])('with the state database on %s', (stateBackend) => {
  beforeAll(() => {
    backend = stateBackend;
    // The same pull zones are asked for again: only this backend's cards may answer a wait.
    fake.reset();
  });

  describe('several replicas sharing one state database', () => {
    // Over HTTP every state change is several round trips to one database process: a smaller burst
    // keeps the test's time in bounds; `npm run bench -- approvals` runs the full 200 on both.
    const requests = stateBackend === 'file' ? 50 : 20;
    it(`${requests * 4} concurrent clicks spread over two processes and ${requests} requests execute exactly ${requests} times`, async () => {
      const [a, b] = [await start(), await start()];
      try {
        const ids: string[] = [];
        for (let i = 0; i < requests; i++) {
          sandbox.addPullZone(600_000 + i);
          ids.push(await requestReset(i % 2 ? a! : b!, 600_000 + i));
        }
        const before = sandbox.requests.count('pullzone.resetSecurityKey');
        const approvers = ['U0LEAD', 'U0LEAD2', 'U0LEAD3', 'U0LEAD4'];
        await Promise.all(
          Array.from({ length: requests * 4 }, (_, i) =>
            approve(i % 2 ? a! : b!, ids[i % requests]!, approvers[Math.floor(i / requests)]!),
          ),
        );
        await expect
          .poll(
            async () =>
              Object.values(await states(ids)).filter(
                (state) => state === 'pending' || state === 'approved' || state === 'executing',
              ).length,
            { timeout: 60_000, interval: 250 },
          )
          .toBe(0);
        expect(sandbox.requests.count('pullzone.resetSecurityKey') - before).toBe(requests);
        // Each ran to its end.
        expect(new Set(Object.values(await states(ids)))).toEqual(new Set(['succeeded']));
      } finally {
        // Stopped even when the test fails, so no execution spills into the next test's counts.
        await a!.stop();
        await b!.stop();
      }
    }, 150_000);
  });

  describe('Slack redeliveries of ungated changes', () => {
    let a: AppProcess;
    let b: AppProcess;
    beforeAll(async () => {
      [a, b] = [
        await start({ EDGEOPS_POLICY: join(dir, 'ungated.yml') }),
        await start({ EDGEOPS_POLICY: join(dir, 'ungated.yml') }),
      ];
    }, 60_000);
    afterAll(async () => {
      await a?.stop();
      await b?.stop();
    });

    it('a command that reached two replicas (the redelivery first) runs its change once', async () => {
      const before = sandbox.requests.count('pullzone.resetSecurityKey');
      const command = slashCommand({
        text: 'pullzone reset-key 410114 rotated',
        responseUrl: fake.responseUrl(),
      });
      // Slack's redelivery overtook the first delivery, which then reaches the other replica.
      await postSigned(b.eventsUrl, command, { signingSecret: SIGNING_SECRET, retryNum: 1 });
      await expect
        .poll(() => sandbox.requests.count('pullzone.resetSecurityKey') - before, { timeout: 10_000 })
        .toBe(1);
      await postSigned(a.eventsUrl, command, { signingSecret: SIGNING_SECRET });
      // Settled once the replica has either ignored the duplicate or run the change a second time.
      const resets = () => sandbox.requests.count('pullzone.resetSecurityKey') - before;
      await expect
        .poll(() => a.output().includes('duplicate command delivery ignored') || resets() > 1, {
          timeout: 10_000,
        })
        .toBe(true);
      expect(resets()).toBe(1);
    }, 60_000);

    it('a form submission that reached two replicas at once changes Shield bot detection once', async () => {
      const before = sandbox.requests.count('shield.botDetection');
      const submission = viewSubmission({
        callbackId: 'shield.bot-detection:submit',
        privateMetadata: JSON.stringify({ c: 'C0OPS', m: String(sandbox.ids.shieldZone) }),
        values: Object.fromEntries(
          Object.entries({
            executionMode: staticSelect('1'),
            requestIntegrity: staticSelect('2'),
            ipAddress: staticSelect('2'),
            fingerprint: staticSelect('2'),
            aggression: staticSelect('2'),
            complex: checkboxes([]),
          }).map(([id, value]) => [id, { [id]: value }]),
        ),
      });
      await Promise.all([
        postSigned(a.eventsUrl, submission, { signingSecret: SIGNING_SECRET }),
        postSigned(b.eventsUrl, submission, { signingSecret: SIGNING_SECRET, retryNum: 1 }),
      ]);
      const changes = () => sandbox.requests.count('shield.botDetection') - before;
      await expect.poll(changes, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
      // Settled once a replica has either ignored the duplicate or run the change a second time.
      const ignored = () => `${a.output()}${b.output()}`.includes('duplicate form submission ignored');
      await expect.poll(() => ignored() || changes() > 1, { timeout: 10_000 }).toBe(true);
      expect(changes()).toBe(1);
    }, 60_000);
  });

  describe('restarts', () => {
    it('a pending request survives a restart and can still be approved', async () => {
      const first = await start();
      const id = await requestReset(first, 308006);
      await first.stop();
      const second = await start();
      expect((await states([id]))[id]).toBe('pending');
      await approve(second, id, 'U0LEAD');
      await expect.poll(async () => (await states([id]))[id], { timeout: 10_000 }).toBe('succeeded');
      await second.stop();
    }, 60_000);

    it('a request approved but never started by a replica that died becomes unknown; its card and requester say it did not run', async () => {
      const first = await start({ EDGEOPS_EXECUTION_TIMEOUT: '1s' });
      const id = await requestReset(first, 410113);
      await expect.poll(() => cardStored(id), { timeout: 10_000 }).toBe(true);
      await first.kill();
      // The replica stored the approval and died before it claimed the execution.
      await sql(
        `UPDATE approvals SET state = 'approved', decided_by = 'U0LEAD', decided_at = 0, version = version + 1,
           approvals_json = '[{"userId":"U0LEAD","at":"2025-01-01T00:00:00.000Z"}]' WHERE id = ?`,
        [id],
      );
      const before = sandbox.requests.count('pullzone.resetSecurityKey');
      const second = await start({ EDGEOPS_EXECUTION_TIMEOUT: '1s' });
      await expect.poll(async () => (await states([id]))[id], { timeout: 10_000 }).toBe('unknown');
      const card = await fake.waitFor(
        'chat.update',
        (call) =>
          JSON.stringify(call.args.blocks).includes(id) && JSON.stringify(call.args).includes('Not run'),
        10_000,
      );
      expect(JSON.stringify(card.args.blocks)).toContain('before the change started');
      const dm = await fake.waitFor(
        'chat.postMessage',
        (call) => call.args.channel === fake.dmChannelFor('U0YOU') && JSON.stringify(call.args).includes(id),
        10_000,
      );
      expect(JSON.stringify(dm.args)).toContain('it did not run');
      expect(sandbox.requests.count('pullzone.resetSecurityKey')).toBe(before);
      // The lock is free again: a new request for the same pull zone is accepted.
      await postSigned(
        second.eventsUrl,
        slashCommand({ text: 'pullzone reset-key 410113 again', responseUrl: fake.responseUrl() }),
        { signingSecret: SIGNING_SECRET },
      );
      await fake.waitFor(
        'chat.postMessage',
        (call) =>
          call.args.channel === 'C0APPROVALS' &&
          JSON.stringify(call.args.blocks).includes('pull zone 410113"') &&
          !JSON.stringify(call.args.blocks).includes(id),
        10_000,
      );
      await second.stop();
    }, 60_000);

    it('an export whose process is killed mid-way is closed by the next replica: its message, its Cancel button, its audit trail', async () => {
      const first = await start();
      sandbox.faults.set('shield.export', { delayMs: 30_000, times: 1 });
      const channelId = `C0KILLED${backend.toUpperCase()}`;
      await postSigned(
        first.eventsUrl,
        slashCommand({ text: 'shield export 5101 --last 1h', channelId, responseUrl: fake.responseUrl() }),
        { signingSecret: SIGNING_SECRET },
      );
      const progress = await fake.waitFor(
        'chat.postMessage',
        (call) => call.args.channel === channelId && JSON.stringify(call.args.blocks).includes('Cancel'),
        15_000,
      );
      const ts = String(progress.response.ts);
      await expect
        .poll(() => rows('SELECT progress_ts FROM running_jobs'), { timeout: 10_000 })
        .toEqual([[ts]]);
      await first.kill();
      sandbox.faults.clear();
      // Its lease has run out (three sweeps without renewal, as no live replica misses).
      await sql('UPDATE running_jobs SET lease_expires_at = 0');
      const second = await start();
      const closed = await fake.waitFor(
        'chat.update',
        (call) => call.args.channel === channelId && call.args.ts === ts,
        15_000,
      );
      expect(JSON.stringify(closed.args.blocks)).toContain('stopped before it finished');
      expect(JSON.stringify(closed.args.blocks)).not.toContain('Cancel');
      expect(await rows('SELECT id FROM running_jobs')).toEqual([]);
      const trail = await rows(
        `SELECT outcome, detail FROM audit_log WHERE operation = 'shield.export' AND channel_id = ? ORDER BY id`,
        [channelId],
      );
      expect(trail).toEqual([
        ['started', null],
        ['failed', 'interrupted: the bot process running it stopped before it finished'],
      ]);
      await second.stop();
    }, 60_000);

    it('killing the process during execution leaves the request unknown after restart, never re-run', async () => {
      const first = await start({ EDGEOPS_EXECUTION_TIMEOUT: '1s' });
      const id = await requestReset(first, 410112);
      sandbox.faults.set('pullzone.resetSecurityKey', { delayMs: 30_000, times: 1 });
      await approve(first, id, 'U0LEAD');
      await expect.poll(async () => (await states([id]))[id], { timeout: 10_000 }).toBe('executing');
      await first.kill();
      sandbox.faults.clear();
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      // The interrupted call may or may not have been counted; nothing may be sent after it.
      const afterKill = sandbox.requests.count('pullzone.resetSecurityKey');
      const second = await start({ EDGEOPS_EXECUTION_TIMEOUT: '1s' });
      await expect.poll(async () => (await states([id]))[id], { timeout: 10_000 }).toBe('unknown');
      // The card is redrawn after the state is written: on a busy machine, a moment later.
      const lastCard = () =>
        JSON.stringify(
          fake
            .callsTo('chat.update')
            .filter((call) => JSON.stringify(call.args.blocks).includes(id))
            .at(-1)?.args.blocks ?? '',
        );
      await expect.poll(lastCard, { timeout: 10_000 }).toContain('Check the platform');
      await approve(second, id, 'U0LEAD2');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(sandbox.requests.count('pullzone.resetSecurityKey')).toBe(afterKill);
      expect((await states([id]))[id]).toBe('unknown');
      await second.stop();
    }, 60_000);
  });
});
