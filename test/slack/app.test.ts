import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SIGNING_SECRET, startHarness } from '../support/harness.js';
import { slashCommand } from '../support/payloads.js';
import { expectProbesOnMetricsPortOnly } from '../support/probes.js';
import { postSigned, slackRequestTimestamp } from '../support/signer.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const responseTo = (url: string) => h.fake.waitForResponse((post) => url.endsWith(post.id), 5_000);

describe('the Slack app in HTTP mode', () => {
  it('answers a signed /edge dns with the zones, acknowledging within 3 seconds', async () => {
    const { ack, responseUrl } = await h.command('dns');
    expect(ack.status).toBe(200);
    expect(ack.elapsedMs).toBeLessThan(3_000);
    const reply = await responseTo(responseUrl);
    const body = reply.body as unknown as { response_type: string; text: string; blocks: unknown[] };
    expect(body.response_type).toBe('ephemeral');
    expect(JSON.stringify(body.blocks)).toContain('DNS zones');
  });

  it('refuses an unsigned or stale request with 401 and sends nothing', async () => {
    const before = h.fake.calls.length + h.fake.responses.length;
    const request = slashCommand({ text: 'dns', responseUrl: h.fake.responseUrl() });
    const stale = await postSigned(h.eventsUrl, request, {
      signingSecret: SIGNING_SECRET,
      timestamp: slackRequestTimestamp() - 6 * 60,
    });
    expect(stale.status).toBe(401);
    const wrong = await postSigned(h.eventsUrl, request, { signingSecret: 'not-the-secret-at-all' });
    expect(wrong.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(h.fake.calls.length + h.fake.responses.length).toBe(before);
  });

  it('serves /healthz, /readyz and Prometheus /metrics on METRICS_PORT', async () => {
    expect((await fetch(`${h.metricsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${h.metricsUrl}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${h.metricsUrl}/metrics`)).text();
    expect(metrics).toContain('edgeops_commands_total');
    expect(metrics).toContain('edgeops_ack_seconds_bucket');
    expect(metrics).toContain('edgeops_approvals{state="pending"}');
    expect(metrics).toContain('edgeops_platform_call_seconds_bucket');
  });

  it('keeps /readyz and /metrics off the public port, where Slack posts its events; /healthz answers on both', async () => {
    await expectProbesOnMetricsPortOnly(h.metricsUrl, h.baseUrl);
  });
});
