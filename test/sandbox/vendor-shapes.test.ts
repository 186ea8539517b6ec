/**
 * The sandbox's vendor-shape knobs, set over its HTTP control API as a test or benchmark in
 * another process would, and the vendor rules it checks requests with on its own.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { jsonHeaders, NOW, startTestSandbox, TODAY_PATH } from './harness.js';

let sandbox: Sandbox;

beforeAll(async () => {
  ({ sandbox } = await startTestSandbox());
});
afterAll(async () => {
  await sandbox.close();
});
afterEach(async () => {
  await fetch(`${sandbox.apiUrl}/_sandbox/knobs`, { method: 'DELETE' });
});

const setShapes = (vendorShapes: Record<string, unknown>) =>
  fetch(`${sandbox.apiUrl}/_sandbox/knobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ vendorShapes }),
  });

const get = async (path: string) => {
  const response = await fetch(`${sandbox.apiUrl}${path}`, { headers: { AccessKey: sandbox.apiKey } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

const send = async (method: string, path: string, body: unknown) => {
  const response = await fetch(`${sandbox.apiUrl}${path}`, {
    method,
    headers: jsonHeaders(sandbox),
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> };
};

const botDetection = (shieldZoneId: number, complexEnabled: boolean | null = false) => ({
  shieldZoneId,
  executionMode: 1,
  requestIntegrity: { sensitivity: 2 },
  ipAddress: { sensitivity: 2 },
  browserFingerprint: { sensitivity: 2, aggression: 2, complexEnabled },
});

describe('vendor shapes over the control API', () => {
  it('refuses an unknown shape and an unknown origin-log body', async () => {
    expect((await setShapes({ turbo: true })).status).toBe(400);
    expect((await setShapes({ originLogBody: 'logs-missing' })).status).toBe(400);
  });

  it('dnsNulls: every nullable field of zones and records is null, Records too in the Lite view', async () => {
    expect((await setShapes({ dnsNulls: true })).status).toBe(204);
    const full = (await get('/dnszone?perPage=5')).body as { Items: Record<string, unknown>[] };
    const zone = full.Items[0]!;
    expect(zone).toMatchObject({
      Id: 710001,
      Domain: null,
      Nameserver1: null,
      Nameserver2: null,
      SoaEmail: null,
    });
    expect(zone.LogAnonymizationType).toBeNull();
    const records = zone.Records as Record<string, unknown>[];
    expect(records.length).toBeGreaterThan(0);
    expect(records[0]).toMatchObject({ Value: null, Name: null, Comment: null, IPGeoLocationInfo: null });
    expect(typeof records[0]!.Type).toBe('number');
    const lite = (await get('/dnszone?perPage=5&view=1')).body as { Items: Record<string, unknown>[] };
    expect(lite.Items.every((item) => item.Records === null)).toBe(true);
    // No zone has a domain to match.
    expect((await get('/dnszone?search=edgeops')).body).toMatchObject({ Items: [], TotalItems: 0 });

    await fetch(`${sandbox.apiUrl}/_sandbox/knobs`, { method: 'DELETE' });
    expect(
      ((await get('/dnszone?perPage=5')).body as { Items: { Domain: unknown }[] }).Items[0]?.Domain,
    ).toBe('edgeops.dev');
  });

  it.each([
    ['no-logs', {}],
    ['null-logs', { logs: null }],
    ['empty-logs', { logs: [] }],
  ])('originLogBody %s answers every day with %j', async (shape, expected) => {
    expect((await setShapes({ originLogBody: shape })).status).toBe(204);
    expect(await get(`/logging/${sandbox.ids.pullZone}/${TODAY_PATH}`)).toEqual({
      status: 200,
      body: expected,
    });
    // Auth, dates and unknown zones are still checked first.
    expect((await fetch(`${sandbox.loggingUrl}/${sandbox.ids.pullZone}/${TODAY_PATH}`)).status).toBe(401);
    const unknown = await fetch(`${sandbox.loggingUrl}/123/${TODAY_PATH}`, {
      headers: { AccessKey: sandbox.apiKey },
    });
    expect(unknown.status).toBe(404);
  });

  it('shieldNullMessage: envelope failures keep their errorKey and lose their message', async () => {
    expect((await setShapes({ shieldNullMessage: true })).status).toBe(204);
    const zone = sandbox.ids.basicShieldZone;
    const refused = await send('PATCH', `/shield/shield-zone/${zone}/bot-detection`, botDetection(zone));
    expect(refused).toEqual({
      status: 403,
      body: {
        error: {
          statusCode: 403,
          success: false,
          message: null,
          errorKey: 'invalid_plan_type.bot_detection',
        },
        data: null,
      },
    });
    const read = await get(`/shield/shield-zone/${zone}/bot-detection`);
    expect(read.status).toBe(202);
    expect(read.body.error).toMatchObject({ message: null, errorKey: 'invalid_plan_type.bot_detection' });
  });

  it('problemWithoutDetail: validation failures carry title and errors, no detail', async () => {
    const body = {
      from: NOW - 3_600_000,
      to: NOW,
      filters: [{ field: 'ip', op: 'cidr', value: ['10.0.0.0/33'] }],
    };
    const withDetail = await send('POST', `/shield/event-logs/${sandbox.ids.shieldZone}/export`, body);
    expect(withDetail.status).toBe(400);
    expect(withDetail.body.detail).toContain('is not an IPv4 or IPv6 CIDR range');

    expect((await setShapes({ problemWithoutDetail: true })).status).toBe(204);
    const problem = await send('POST', `/shield/event-logs/${sandbox.ids.shieldZone}/export`, body);
    expect(problem.status).toBe(400);
    expect(problem.body).not.toHaveProperty('detail');
    expect(problem.body).toMatchObject({
      title: 'One or more validation errors occurred.',
      status: 400,
      errors: { 'filters[0].value[0]': ['"10.0.0.0/33" is not an IPv4 or IPv6 CIDR range'] },
    });
  });

  it('sets several shapes at once and in steps, and clears them all', async () => {
    sandbox.knobs.setVendorShapes({ originLogBody: 'null-logs' });
    await setShapes({ dnsNulls: true });
    expect((await get(`/logging/${sandbox.ids.pullZone}/${TODAY_PATH}`)).body).toEqual({ logs: null });
    expect(
      ((await get('/dnszone?perPage=5')).body as { Items: { Domain: unknown }[] }).Items[0]?.Domain,
    ).toBeNull();
    sandbox.knobs.clear();
    expect(
      ((await get(`/logging/${sandbox.ids.pullZone}/${TODAY_PATH}`)).body.logs as unknown[]).length,
    ).toBeGreaterThan(0);
  });
});

describe('the sandbox’s own reading of the vendor’s request rules', () => {
  it.each([
    ['a range past the address width', '10.0.0.0/33'],
    ['a host that is not an address', 'example.com/24'],
    ['two prefixes', '10.0.0.0/8/8'],
  ])('refuses a cidr filter with %s', async (_what, value) => {
    const body = { from: NOW - 3_600_000, to: NOW, filters: [{ field: 'ip', op: 'cidr', value: [value] }] };
    const response = await send('POST', `/shield/event-logs/${sandbox.ids.shieldZone}/export`, body);
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual({
      'filters[0].value[0]': [`${JSON.stringify(value)} is not an IPv4 or IPv6 CIDR range`],
    });
  });

  it('accepts IPv6 ranges, single addresses, and a null query and filters', async () => {
    const filters = [{ field: 'ip', op: 'cidr', value: ['2001:db8::/32', '203.0.113.7'] }];
    const window = { from: NOW - 3_600_000, to: NOW };
    expect(
      (
        await fetch(`${sandbox.apiUrl}/shield/event-logs/${sandbox.ids.shieldZone}/export`, {
          method: 'POST',
          headers: jsonHeaders(sandbox),
          body: JSON.stringify({ ...window, filters }),
        })
      ).status,
    ).toBe(200);
    const nulls = await fetch(`${sandbox.apiUrl}/shield/event-logs/${sandbox.ids.shieldZone}/export`, {
      method: 'POST',
      headers: jsonHeaders(sandbox),
      body: JSON.stringify({ ...window, query: null, filters: null }),
    });
    expect(nulls.status).toBe(200);
    await nulls.body?.cancel();
  });

  it('accepts a null complexEnabled, which the vendor marks nullable, and echoes it', async () => {
    const zone = sandbox.ids.shieldZone;
    const response = await send(
      'PATCH',
      `/shield/shield-zone/${zone}/bot-detection`,
      botDetection(zone, null),
    );
    expect(response.status).toBe(200);
    expect(sandbox.botDetection(zone)?.browserFingerprint.complexEnabled).toBeNull();
  });

  it('picks a key itself when SecurityKey is null', async () => {
    const before = sandbox.pullZoneSecurityKey(sandbox.ids.pullZone);
    const response = await send('POST', `/pullzone/${sandbox.ids.pullZone}/resetSecurityKey`, {
      SecurityKey: null,
    });
    expect(response.status).toBe(204);
    expect(sandbox.pullZoneSecurityKey(sandbox.ids.pullZone)).not.toBe(before);
    expect(sandbox.pullZoneSecurityKey(sandbox.ids.pullZone)?.length).toBeGreaterThanOrEqual(8);
  });
});
