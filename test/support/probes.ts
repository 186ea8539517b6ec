/**
 * What each port answers (PRODUCT §1): /healthz on both, /readyz and /metrics on METRICS_PORT only,
 * never on the public port Slack's events arrive at.
 */
import { expect } from 'vitest';

async function get(url: string): Promise<{ status: number; body: string; contentType: string | null }> {
  const response = await fetch(url);
  return {
    status: response.status,
    body: await response.text(),
    contentType: response.headers.get('content-type'),
  };
}

/** Checks both ports of a ready bot; `publicUrl` is undefined where nothing listens on PORT (the console). */
export async function expectProbesOnMetricsPortOnly(metricsUrl: string, publicUrl?: string): Promise<void> {
  expect(await get(`${metricsUrl}/healthz`)).toMatchObject({ status: 200, body: 'ok\n' });
  expect(await get(`${metricsUrl}/readyz`)).toMatchObject({ status: 200, body: 'ready\n' });
  const metrics = await get(`${metricsUrl}/metrics`);
  expect(metrics.status).toBe(200);
  expect(metrics.contentType).toContain('text/plain');
  expect(metrics.body).toContain('edgeops_commands_total');
  expect(metrics.body).toContain('edgeops_process_cpu_seconds_total');
  if (publicUrl === undefined) return;
  expect(publicUrl).not.toBe(metricsUrl);
  expect(await get(`${publicUrl}/healthz`)).toMatchObject({ status: 200, body: 'ok\n' });
  for (const path of ['/readyz', '/metrics']) {
    const answer = await get(`${publicUrl}${path}`);
    expect(answer.status, `${path} on PORT`).toBe(404);
    expect(answer.body, `${path} on PORT`).not.toMatch(/ready|edgeops_/);
  }
}
