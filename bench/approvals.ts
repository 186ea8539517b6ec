/**
 * PRODUCT §8, approvals: two replicas of the bot (separate processes of the compiled entry
 * point) sharing one state database, first a `file:` database, then a libSQL server over HTTP
 * (a second sandbox's Hrana endpoint stands in for `sqld`, which cannot be installed here); 50
 * key-reset requests, then 200 concurrent Approve clicks spread over both replicas (four
 * approvers per request). Exactly 50 executions must reach the platform, counted from the
 * sandbox's request log; the clicks' p99 acknowledgement is reported against Slack's 3-second
 * deadline, and on the server against 250 ms, beside the acks of the 50 commands that opened
 * the requests, sent one at a time: the machine's own ack time, printed as the row's baseline.
 * Run alone: `npx tsx bench/approvals.ts`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { percentile } from './ack.js';
import { isMain } from './child.js';
import { type AppProcess, appEnv, BENCH_SIGNING_SECRET, spawnApp, startSandboxProcess } from './startup.js';
import type { BenchRow } from './types.js';

const REQUESTS = 50;
const APPROVERS = ['U0LEAD', 'U0LEAD2', 'U0LEAD3', 'U0LEAD4'];
const SLACK_ACK_DEADLINE_MS = 3_000;
/** The click ack on a libSQL server: clicks are acknowledged on arrival by the receiving thread. */
const SERVER_CLICK_P99_MS = 250;
const SETTLE_TIMEOUT_MS = 60_000;

const POLICY = `
roles:
  everyone: ["*"]
  leads: [${APPROVERS.join(', ')}]
grants:
  - ops: "*"
    roles: [everyone]
approvals:
  channel: C0APPROVALS
  rules:
    - ops: [pullzone.reset-key]
      approvers: [leads]
      required: 1
`;

export async function benchApprovals(log: (line: string) => void = () => undefined): Promise<BenchRow[]> {
  return [...(await benchApprovalsOn('file', log)), ...(await benchApprovalsOn('http', log))];
}

async function benchApprovalsOn(backend: 'file' | 'http', log: (line: string) => void): Promise<BenchRow[]> {
  const { compileForBench } = await import('./compiled.js');
  const { startFakeSlack } = await import('../test/support/fake-slack.js');
  const { blockActions, slashCommand } = await import('../test/support/payloads.js');
  const { postSigned } = await import('../test/support/signer.js');
  const compiled = await compileForBench();
  const dir = await mkdtemp(join(tmpdir(), 'edgeops-bench-approvals-'));
  const sandbox = await startSandboxProcess(compiled);
  const fake = await startFakeSlack({ validateBlocks: false });
  const replicas: AppProcess[] = [];
  const stateServer = backend === 'http' ? await startSandboxProcess(compiled) : undefined;
  const stateDatabase = stateServer?.database ?? { url: `file:${join(dir, 'state.db')}` };
  try {
    const policyPath = join(dir, 'policy.yml');
    await writeFile(policyPath, POLICY);
    const env = appEnv({
      slackApiUrl: fake.apiUrl,
      platform: sandbox.env,
      stateDatabaseUrl: stateDatabase.url,
      ...(stateServer ? { stateDatabaseAuthToken: stateServer.database.authToken } : {}),
      policyPath,
    });
    // One after the other: the first creates the shared database's tables.
    for (let i = 0; i < 2; i++) replicas.push(await spawnApp([compiled.script('src/main.ts')], env));
    const replica = (i: number) => replicas[i % replicas.length]!;

    // A pull zone for each request, so that no request meets another open one for its target;
    // they exist on the platform, since a request for an unknown target is refused at once.
    const zones = await sandbox.addPullZones(REQUESTS);
    const ids: string[] = [];
    /** Each request's `/edge` ack, one at a time: this machine's ack with nothing else to do. */
    const alone: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const zone = zones[i]!;
      const command = await postSigned(
        replica(i).eventsUrl,
        slashCommand({ text: `pullzone reset-key ${zone} bench`, responseUrl: fake.responseUrl() }),
        { signingSecret: BENCH_SIGNING_SECRET },
      );
      alone.push(command.elapsedMs);
      const card = await fake.waitFor(
        'chat.postMessage',
        (call) =>
          call.args.channel === 'C0APPROVALS' &&
          new RegExp(`pull zone ${zone}(?!\\d)`).test(JSON.stringify(call.args.blocks)),
        10_000,
      );
      const id = /ap_[0-9a-f]{16}/.exec(JSON.stringify(card.args.blocks))?.[0];
      if (!id) throw new Error(`no request id on the card for pull zone ${zone}`);
      ids.push(id);
    }

    const before = await sandbox.count('pullzone.resetSecurityKey');
    const started = performance.now();
    const clicks = await Promise.all(
      Array.from({ length: REQUESTS * APPROVERS.length }, (_, i) =>
        postSigned(
          replica(i).eventsUrl,
          blockActions({
            actionId: 'approvals:approve',
            value: ids[i % REQUESTS]!,
            userId: APPROVERS[Math.floor(i / REQUESTS)]!,
            channelId: 'C0APPROVALS',
            responseUrl: fake.responseUrl(),
          }),
          { signingSecret: BENCH_SIGNING_SECRET },
        ),
      ),
    );
    const state = createClient(stateDatabase);
    let open = REQUESTS;
    try {
      while (performance.now() - started < SETTLE_TIMEOUT_MS) {
        const rows = await state.execute(
          `SELECT count(*) AS open FROM approvals WHERE state IN ('pending', 'approved', 'executing')`,
        );
        open = Number(rows.rows[0]?.open ?? REQUESTS);
        if (open === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      state.close();
    }
    const settledMs = performance.now() - started;
    // A late click could still be on its way: give the platform's request log a moment.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const executions = (await sandbox.count('pullzone.resetSecurityKey')) - before;
    const latencies = clicks.map((click) => click.elapsedMs);
    const refused = clicks.filter((click) => click.status !== 200).length;
    const p99 = percentile(latencies, 0.99);
    const aloneP99 = percentile(alone, 0.99);
    log(
      `approvals on ${backend}: ${clicks.length} clicks on ${REQUESTS} requests over ${replicas.length} replicas; ${executions} executions, ` +
        `${open} still open, all settled after ${Math.round(settledMs)} ms; click ack p50 ${Math.round(percentile(latencies, 0.5))} ms, ` +
        `p99 ${Math.round(p99)} ms; ${refused} not answered 200; the ${REQUESTS} commands' acks one at a time p50 ${Math.round(percentile(alone, 0.5))} ms, p99 ${Math.round(aloneP99)} ms`,
    );
    return [
      {
        figure: `executions from ${clicks.length} concurrent clicks on ${REQUESTS} requests, 2 replicas, state on ${backend}`,
        value: executions,
        baseline: REQUESTS,
        ratio: executions / REQUESTS,
        target: `exactly ${REQUESTS}, none left open`,
        pass: executions === REQUESTS && open === 0,
      },
      {
        // The baseline is this machine's ack with nothing else to do, so a slower core shows in it.
        figure: `approval click ack p99, ${clicks.length} concurrent over 2 replicas, state on ${backend}, vs ${REQUESTS} commands' acks one at a time (ms)`,
        value: Math.round(p99),
        baseline: Math.round(aloneP99),
        ratio: p99 / aloneP99,
        target:
          backend === 'http'
            ? '≤ 250 ms on a libSQL server, every click answered'
            : "< Slack's 3 s ack deadline, every click answered",
        pass: p99 <= (backend === 'http' ? SERVER_CLICK_P99_MS : SLACK_ACK_DEADLINE_MS) && refused === 0,
      },
    ];
  } finally {
    for (const app of replicas) await app.stop();
    await fake.close();
    await sandbox.stop();
    await stateServer?.stop();
    await rm(dir, { recursive: true, force: true });
    await compiled.remove();
  }
}

if (isMain(import.meta.url)) {
  console.table(await benchApprovals((line) => process.stderr.write(`${line}\n`)));
}
