import { createClient } from '@libsql/client';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { jsonHeaders, NOW, startTestSandbox } from './harness.js';

let sandbox: Sandbox;

beforeAll(async () => {
  ({ sandbox } = await startTestSandbox());
});
afterEach(() => {
  sandbox.faults.clear();
  sandbox.requests.clear();
});
afterAll(async () => {
  await sandbox.close();
});

const listKeys = () =>
  fetch(`${sandbox.apiUrl}/apikey?perPage=5`, { headers: { AccessKey: sandbox.apiKey } });

describe('faults', () => {
  it('answers with the given status only as many times as asked', async () => {
    sandbox.faults.set('apikey.list', { status: 500, times: 2 });
    expect((await listKeys()).status).toBe(500);
    const second = await listKeys();
    expect(second.status).toBe(500);
    expect(await second.text()).toBe('');
    expect((await listKeys()).status).toBe(200);
  });

  it('lets the first requests through when asked to apply after them', async () => {
    sandbox.faults.set('apikey.list', { status: 503, after: 2, times: 1 });
    expect((await listKeys()).status).toBe(200);
    expect((await listKeys()).status).toBe(200);
    expect((await listKeys()).status).toBe(503);
    expect((await listKeys()).status).toBe(200);
  });

  it('keeps answering until cleared when no count is given', async () => {
    sandbox.faults.set('apikey.list', {
      status: 502,
      body: { ErrorKey: 'gateway', Field: null, Message: 'down' },
    });
    for (let i = 0; i < 3; i++) {
      const response = await listKeys();
      expect(response.status).toBe(502);
      expect(await response.json()).toMatchObject({ Message: 'down' });
    }
    sandbox.faults.clear('apikey.list');
    expect((await listKeys()).status).toBe(200);
  });

  it('sends Retry-After, with 429 when no status is given', async () => {
    sandbox.faults.set('apikey.list', { retryAfter: 7, times: 1 });
    const limited = await listKeys();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    sandbox.faults.set('apikey.list', { status: 503, retryAfter: 2, times: 1 });
    const unavailable = await listKeys();
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('retry-after')).toBe('2');
  });

  it('drops the connection without an answer', async () => {
    sandbox.faults.set('apikey.list', { drop: true, times: 1 });
    await expect(listKeys()).rejects.toThrow();
    expect((await listKeys()).status).toBe(200);
  });

  it('delays the normal answer', async () => {
    sandbox.faults.set('apikey.list', { delayMs: 150, times: 1 });
    const started = performance.now();
    const response = await listKeys();
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(response.status).toBe(200);
  });

  it('cuts the normal answer off part-way through its body', async () => {
    sandbox.faults.set('apikey.list', { truncate: true, times: 1 });
    const response = await listKeys();
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });

  it('cuts a streamed answer off too', async () => {
    sandbox.faults.set('logs.origin', { truncate: true, times: 1 });
    const response = await request(`${sandbox.loggingUrl}/${sandbox.ids.pullZone}/11-20-2026`, {
      headers: { AccessKey: sandbox.apiKey },
    });
    expect(response.statusCode).toBe(200);
    await expect(response.body.text()).rejects.toThrow();
  });

  it('sends a JSON content type with a body that is not JSON', async () => {
    sandbox.faults.set('dnszone.list', { malformedJson: true, times: 1 });
    const response = await fetch(`${sandbox.apiUrl}/dnszone`, { headers: { AccessKey: sandbox.apiKey } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    await expect(response.json()).rejects.toThrow(SyntaxError);
  });

  it('applies before authentication and validation', async () => {
    sandbox.faults.set('videolibrary.create', { status: 503, times: 1 });
    const response = await fetch(`${sandbox.apiUrl}/videolibrary`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(503);
  });

  it('reaches the database endpoint as well', async () => {
    sandbox.faults.set('database.pipeline', { status: 500, times: 1 });
    const client = createClient({ url: sandbox.databaseUrl, authToken: sandbox.databaseTokens.fullAccess });
    try {
      await expect(client.execute('SELECT 1')).rejects.toThrow(/500/);
      expect((await client.execute('SELECT 1')).rows).toHaveLength(1);
    } finally {
      client.close();
    }
  });

  it('refuses a fault for an unknown route or with an unknown knob', () => {
    expect(() => sandbox.faults.set('apikey.list', { status: 99 })).toThrow();
    expect(() => sandbox.faults.set('apikey.list', { explode: true } as never)).toThrow();
  });
});

describe('the request log', () => {
  it('shows that nothing was sent', async () => {
    await listKeys();
    expect(sandbox.requests.count('videolibrary.create')).toBe(0);
    expect(sandbox.requests.count('apikey.list')).toBe(1);
  });

  it('shows exactly one request for a write that failed with 500', async () => {
    sandbox.faults.set('pullzone.resetSecurityKey', { status: 500 });
    const response = await fetch(`${sandbox.apiUrl}/pullzone/${sandbox.ids.pullZone}/resetSecurityKey`, {
      method: 'POST',
      headers: jsonHeaders(sandbox),
      body: JSON.stringify({ SecurityKey: 'abcdefgh12345678' }),
    });
    expect(response.status).toBe(500);
    expect(sandbox.requests.count('pullzone.resetSecurityKey')).toBe(1);
    expect(sandbox.requests.last('pullzone.resetSecurityKey')?.status).toBe(500);
  });

  it('records method, path, query, headers without secrets and the parsed body', async () => {
    await fetch(`${sandbox.apiUrl}/shield/event-logs/${sandbox.ids.shieldZone}/export?x=1`, {
      method: 'POST',
      headers: jsonHeaders(sandbox),
      body: JSON.stringify({ from: NOW - 60_000, to: NOW }),
    }).then((response) => response.text());
    const entry = sandbox.requests.last('shield.export');
    expect(entry).toMatchObject({
      method: 'POST',
      path: `/shield/event-logs/${sandbox.ids.shieldZone}/export`,
      query: { x: '1' },
      body: { from: NOW - 60_000, to: NOW },
      status: 200,
      time: NOW,
    });
    expect(JSON.stringify(entry)).not.toContain(sandbox.apiKey);
  });

  it('does not keep database tokens', async () => {
    const client = createClient({ url: sandbox.databaseUrl, authToken: sandbox.databaseTokens.readOnly });
    await client.execute('SELECT 1');
    client.close();
    expect(JSON.stringify(sandbox.requests.all())).not.toContain(sandbox.databaseTokens.readOnly);
  });
});

describe('control over HTTP', () => {
  it('sets and clears faults and reports request counts', async () => {
    const set = await fetch(`${sandbox.apiUrl}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ route: 'apikey.list', status: 503, retryAfter: 1, times: 5 }),
    });
    expect(set.status).toBe(204);
    expect((await listKeys()).status).toBe(503);
    expect((await fetch(`${sandbox.apiUrl}/_sandbox/faults`, { method: 'DELETE' })).status).toBe(204);
    expect((await listKeys()).status).toBe(200);

    const counts = await fetch(`${sandbox.apiUrl}/_sandbox/requests`);
    expect(await counts.json()).toEqual({ total: 2, counts: { 'apikey.list': 2 } });
  });

  it('refuses a fault for a route that does not exist', async () => {
    const response = await fetch(`${sandbox.apiUrl}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ route: 'nope.nope', status: 500 }),
    });
    expect(response.status).toBe(400);
  });

  it('adds pull zones, which the platform then serves, and refuses a count out of range', async () => {
    const add = (count: unknown) =>
      fetch(`${sandbox.apiUrl}/_sandbox/pullzones`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ count }),
      });
    const response = await add(3);
    expect(response.status).toBe(200);
    const { ids } = (await response.json()) as { ids: number[] };
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    const reset = (id: number) =>
      fetch(`${sandbox.apiUrl}/pullzone/${id}/resetSecurityKey`, {
        method: 'POST',
        headers: { AccessKey: sandbox.apiKey },
      });
    expect((await reset(ids[2]!)).status).toBe(204);
    expect((await reset(ids[2]! + 1)).status).toBe(404);
    for (const bad of [0, 1.5, 20_001, 'many']) expect((await add(bad)).status).toBe(400);
    // 20,000 in all, however they are asked for.
    expect((await add(19_997)).status).toBe(200);
    const past = await add(1);
    expect(past.status).toBe(400);
    expect(await past.text()).toContain('at most 20000 pull zones are added in all');
  });

  it('sets size knobs', async () => {
    const response = await fetch(`${sandbox.apiUrl}/_sandbox/knobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ logDay: { pullZoneId: 4242, entries: 3 } }),
    });
    expect(response.status).toBe(204);
    const day = await fetch(`${sandbox.loggingUrl}/4242/01-01-2026`, {
      headers: { AccessKey: sandbox.apiKey },
    });
    expect(((await day.json()) as { logs: unknown[] }).logs).toHaveLength(3);
    await fetch(`${sandbox.apiUrl}/_sandbox/knobs`, { method: 'DELETE' });
    expect(
      (await fetch(`${sandbox.loggingUrl}/4242/01-01-2026`, { headers: { AccessKey: sandbox.apiKey } }))
        .status,
    ).toBe(404);
  });
});
