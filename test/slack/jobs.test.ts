/**
 * Long jobs are capped per person and per process, and their progress never floods Slack:
 * updates to one message are coalesced, and Slack's rate limits slow the bot down without
 * losing anything.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.js';

let h: Harness;
const MIN_GAP_MS = 500;

beforeAll(async () => {
  h = await startHarness({
    env: { EDGEOPS_MAX_JOBS_PER_USER: '2', EDGEOPS_MAX_JOBS: '3' },
    progress: { delayMs: 50, minGapMs: MIN_GAP_MS },
  });
});
afterAll(async () => {
  await h?.close();
});
afterEach(() => {
  h.sandbox.faults.clear();
  h.sandbox.knobs.clear();
  for (const job of h.runtime.services.jobs.running()) job.controller.abort(new Error('test over'));
});

async function privateAnswer(text: string, userId: string) {
  const { responseUrl } = await h.command(text, { userId });
  return (await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000)).body;
}

const running = () => h.runtime.services.jobs.running().length;

describe('caps on long jobs', () => {
  it('refuses a third job of one person and a job past the process cap, naming what runs', async () => {
    // The platform holds each log day back, so the jobs stay running.
    h.sandbox.faults.set('logs.origin', { delayMs: 20_000 });
    await h.command('logs 308006 yesterday', { userId: 'U0ANN' });
    await h.command('logs 410112 yesterday', { userId: 'U0ANN' });
    await expect.poll(running, { timeout: 5_000 }).toBe(2);

    const mine = JSON.stringify(await privateAnswer('logs 410113 yesterday', 'U0ANN'));
    expect(mine).toContain('You already have 2 long jobs running, the most one person may run at once');
    expect(mine).toContain('Origin errors of pull zone 308006');
    expect(mine).toContain('Origin errors of pull zone 410112');
    const cancels = [...mine.matchAll(/"action_id":"(logs:cancel[^"]*)","value":"(job_[0-9a-f]+)"/g)];
    expect(cancels).toHaveLength(2);
    await expect.poll(() => h.sandbox.requests.count('logs.origin'), { timeout: 2_000 }).toBe(2);

    await h.command('logs 410113 yesterday', { userId: 'U0BEN' });
    await expect.poll(running, { timeout: 5_000 }).toBe(3);
    const full = JSON.stringify(await privateAnswer('logs 410114 yesterday', 'U0CAT'));
    expect(full).toContain('The bot is already running 3 long jobs, the most it runs at once');
    expect(full).toContain('by <@U0ANN>');
    expect(full).not.toContain('logs:cancel');
    // The third job's first request is on its way: the refused fourth never sends one.
    await expect.poll(() => h.sandbox.requests.count('logs.origin'), { timeout: 2_000 }).toBe(3);

    const metrics = await fetch(`${h.metricsUrl}/metrics`).then((response) => response.text());
    expect(metrics).toMatch(/^edgeops_long_jobs_running 3$/m);

    // The refusal's Cancel button cancels that job, and the person may start another.
    const [, actionId, jobId] = cancels[0]!;
    const responseUrl = h.fake.responseUrl();
    await h.click(actionId!, jobId!, { userId: 'U0ANN', responseUrl });
    expect(
      JSON.stringify((await h.fake.waitForResponse((p) => responseUrl.endsWith(p.id), 5_000)).body),
    ).toContain('Cancelling');
    await expect.poll(running, { timeout: 5_000 }).toBe(2);
  });
});

describe('progress updates', () => {
  it('change one message at most once per gap, and the answer takes its place after the same gap', async () => {
    h.sandbox.knobs.setLogDay(900001, 300_000);
    const earlier = new Set(h.fake.calls);
    await h.command('logs 900001 today', { userId: 'U0DOT' });
    const progress = await h.fake.waitFor(
      'chat.postMessage',
      (call) =>
        !earlier.has(call) && JSON.stringify(call.args.blocks).includes('Origin errors of pull zone 900001'),
      10_000,
    );
    const ts = String(progress.response.ts);
    // The last word is the answer's headline, which takes the progress message's place.
    await h.fake.waitFor(
      'chat.update',
      (call) =>
        call.args.ts === ts && JSON.stringify(call.args).includes('origin errors* · pull zone 900001'),
      60_000,
    );
    const sends = [progress, ...h.fake.callsTo('chat.update').filter((call) => call.args.ts === ts)];
    expect(sends.length).toBeGreaterThan(2);
    for (let i = 1; i < sends.length; i++)
      expect(sends[i]!.receivedAt - sends[i - 1]!.receivedAt).toBeGreaterThanOrEqual(MIN_GAP_MS - 50);
  }, 90_000);

  it('a rate-limited update is sent again after Retry-After, and nothing is lost', async () => {
    h.sandbox.faults.set('logs.origin', { delayMs: 1_500, times: 1 });
    h.fake.fail('chat.update', { status: 429, retryAfter: 1, times: 1 });
    const earlier = new Set(h.fake.calls);
    await h.command('logs 308006 yesterday', { userId: 'U0EVE' });
    const progress = await h.fake.waitFor(
      'chat.postMessage',
      (call) =>
        !earlier.has(call) && JSON.stringify(call.args.blocks).includes('Origin errors of pull zone 308006'),
      10_000,
    );
    const ts = String(progress.response.ts);
    const done = await h.fake.waitFor(
      'chat.update',
      (call) =>
        call.args.ts === ts && JSON.stringify(call.args).includes('origin errors* · pull zone 308006'),
      20_000,
    );
    expect(done.status).toBe(200);
    expect(h.fake.callsTo('chat.update').some((call) => call.args.ts === ts && call.status === 429)).toBe(
      true,
    );
    const csv = await h.fake.waitForUpload(
      (file) => file.filename.startsWith('origin-errors-308006-'),
      20_000,
    );
    expect(csv.threadTs).toBe(ts);
  });

  it('a rate-limited response URL answer is sent again after a pause, and arrives', async () => {
    h.fake.fail('response_url', { status: 429, error: 'rate_limited', times: 1 });
    const { responseUrl } = await h.command('dns edgeops', { userId: 'U0GUS' });
    const shown = await h.fake.waitForResponse((post) => responseUrl.endsWith(post.id), 10_000);
    expect(JSON.stringify(shown.body)).toContain('edgeops.dev');
    expect(h.fake.refusedResponses.filter((post) => responseUrl.endsWith(post.id))).toHaveLength(1);
    expect(h.fake.callsTo('chat.postEphemeral')).toEqual([]);
  });

  it('a rate-limited form opens after Retry-After', async () => {
    h.fake.fail('views.open', { status: 429, retryAfter: 1, times: 1 });
    await h.command('shield export 5101', { userId: 'U0FAY' });
    const opened = await h.fake.waitFor('views.open', () => true, 10_000);
    expect(JSON.stringify(opened.args.view)).toContain('shield.export:window-and-filters');
  });
});
