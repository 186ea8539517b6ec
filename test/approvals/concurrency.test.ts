import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApprovalRequest } from '../../src/approvals/machine.js';
import type { ApprovalService } from '../../src/approvals/service.js';
import { DEFAULT_INSTANT } from '../support/clock.js';
import { type ApprovalFixture, approvalFixture, LEADS, resetKeyRequest, testClock } from './support.js';

let fixture: ApprovalFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function requested(service: ApprovalService, overrides = {}): Promise<ApprovalRequest> {
  const result = await service.request(resetKeyRequest(overrides));
  if (!result.ok) throw new Error(`request refused: ${result.reason} (${result.existing.id})`);
  return result.request;
}

const approvers = (count: number) => Array.from({ length: count }, (_, i) => `U0LEAD${i}`);

describe('concurrent clicks in one process', () => {
  it('50 concurrent approve-and-execute attempts on one request run the executor exactly once', async () => {
    fixture = await approvalFixture();
    const { service, newService } = fixture;
    const request = await requested(service);
    // Two services on one store stand for two replicas' handlers; no in-process lock is shared.
    const replicas = [service, newService()];
    let calls = 0;
    const results = await Promise.all(
      approvers(50).map(async (userId, i) => {
        const replica = replicas[i % 2] ?? service;
        const clicked = await replica.click({
          requestId: request.id,
          userId,
          action: 'approve',
          isApprover: true,
          correlationId: `corr-${i}`,
        });
        const report = await replica.executeApproved(request.id, async () => {
          calls++;
          await new Promise((resolve) => setTimeout(resolve, 5));
          return { ok: true, detail: 'done' };
        });
        return { clicked, report };
      }),
    );
    expect(calls).toBe(1);
    expect(results.filter((r) => r.clicked.ok)).toHaveLength(1);
    expect(results.filter((r) => r.report.ran)).toHaveLength(1);
    expect(results.filter((r) => !r.clicked.ok && r.clicked.reason === 'not-pending')).toHaveLength(49);
    expect(await service.get(request.id)).toMatchObject({ state: 'succeeded', version: 3 });
    expect(await fixture.audit.verify()).toMatchObject({ ok: true });
  });

  it('a concurrent double click by the same approver counts once', async () => {
    fixture = await approvalFixture();
    const { service, newService } = fixture;
    const request = await requested(service, { requirement: { ...LEADS, required: 2 } });
    const replicas = [service, newService()];
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (replicas[i % 2] ?? service).click({
          requestId: request.id,
          userId: 'U0BOB',
          action: 'approve',
          isApprover: true,
          correlationId: `corr-${i}`,
        }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === 'duplicate-approval')).toHaveLength(9);
    expect(await service.get(request.id)).toMatchObject({
      state: 'pending',
      approvals: [{ userId: 'U0BOB' }],
    });
  });

  it('distinct approvers clicking at once on a 3-of-5 request record exactly three approvals', async () => {
    fixture = await approvalFixture();
    const { service } = fixture;
    const request = await requested(service, { requirement: { ...LEADS, required: 3 } });
    const results = await Promise.all(
      approvers(5).map((userId) =>
        service.click({
          requestId: request.id,
          userId,
          action: 'approve',
          isApprover: true,
          correlationId: userId,
        }),
      ),
    );
    expect(results.filter((r) => r.ok && r.outcome === 'approval-recorded')).toHaveLength(2);
    expect(results.filter((r) => r.ok && r.outcome === 'approved')).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === 'not-pending')).toHaveLength(2);
    const stored = await service.get(request.id);
    expect(stored?.state).toBe('approved');
    expect(new Set(stored?.approvals.map((vote) => vote.userId)).size).toBe(3);
  });
});

const WORKER = fileURLToPath(new URL('./fixtures/approval-worker.ts', import.meta.url));

const WorkerReportSchema = z.object({
  name: z.string(),
  approved: z.number(),
  ran: z.number(),
  refusals: z.record(z.string(), z.number()),
});

interface Worker {
  child: ChildProcess;
  reached(line: string): Promise<void>;
  done: Promise<z.infer<typeof WorkerReportSchema>>;
}

function startWorker(url: string, name: string, users: string[], ids: string[]): Worker {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WORKER, url, name, users.join(','), ids.join(',')],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      // The workers' clock: the same pinned instant as the requests were made at.
      env: { ...process.env, PINNED_NOW: DEFAULT_INSTANT },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  const reached = async (line: string) => {
    while (!stdout.split('\n').includes(line)) {
      const next = await Promise.race([
        once(child.stdout ?? child, 'data').then(() => 'data'),
        exited.then(() => 'exit'),
      ]);
      if (next === 'exit' && !stdout.split('\n').includes(line))
        throw new Error(`worker ${name} exited before "${line}": ${stderr}`);
    }
  };
  const done = exited.then(([code]) => {
    if (code !== 0) throw new Error(`worker ${name} exited with ${String(code)}: ${stderr}`);
    return WorkerReportSchema.parse(JSON.parse(stdout.trim().split('\n').at(-1) ?? ''));
  });
  return { child, reached, done };
}

async function together(workers: Worker[], step: string): Promise<void> {
  await Promise.all(workers.map((worker) => worker.reached(step)));
  for (const worker of workers) worker.child.stdin?.write('go\n');
}

describe('two processes sharing one state file', () => {
  it('200 concurrent clicks over 50 one-approval requests execute each request exactly once', async () => {
    fixture = await approvalFixture(testClock(DEFAULT_INSTANT));
    const { service, store, audit, db } = fixture;
    await store.client.execute('CREATE TABLE executions (request_id TEXT NOT NULL, process TEXT NOT NULL)');
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push((await requested(service, { target: `pz-${i}` })).id);

    // Two approvers per process and per request: four clicks on each request, 200 in all.
    const workers = [
      startWorker(db.url, 'alpha', ['U0LEAD1', 'U0LEAD2'], ids),
      startWorker(db.url, 'beta', ['U0LEAD3', 'U0LEAD4'], ids),
    ];
    try {
      await together(workers, 'ready');
      await together(workers, 'opened');
      const reports = await Promise.all(workers.map((worker) => worker.done));

      const executions = await store.client.execute(
        'SELECT COUNT(*) AS runs, COUNT(DISTINCT request_id) AS requests FROM executions',
      );
      expect({ ...executions.rows[0] }).toEqual({ runs: 50, requests: 50 });
      expect(reports.reduce((sum, report) => sum + report.approved, 0)).toBe(50);
      expect(reports.reduce((sum, report) => sum + report.ran, 0)).toBe(50);
      // Every click was answered: an approval or a refusal, never an error.
      for (const report of reports)
        expect(report.approved + Object.values(report.refusals).reduce((sum, n) => sum + n, 0)).toBe(100);
      const states = await store.client.execute('SELECT state, COUNT(*) AS n FROM approvals GROUP BY state');
      expect(states.rows.map((row) => ({ ...row }))).toEqual([{ state: 'succeeded', n: 50 }]);
      expect(await audit.verify()).toMatchObject({ ok: true });
    } finally {
      for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill();
    }
  });
});
