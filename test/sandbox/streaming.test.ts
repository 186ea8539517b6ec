import { type Dispatcher, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { heapOutsideNewSpace } from '../support/heap.js';
import { jsonHeaders, NOW, startTestSandbox } from './harness.js';

let sandbox: Sandbox;

beforeAll(async () => {
  ({ sandbox } = await startTestSandbox());
});
afterAll(async () => {
  await sandbox.close();
});

/**
 * Reads a body chunk by chunk, discarding it, and reports its size, how often `needle` occurs, and
 * how far this process's heap (sandbox included: it runs in-process) rose above where it started.
 */
async function consume(send: () => Promise<Dispatcher.ResponseData>, needle: string) {
  // The baseline comes before the request: a body built whole would exist before its first byte is sent.
  const start = heapOutsideNewSpace();
  const response = await send();
  expect(response.statusCode).toBe(200);
  let peak = start;
  let bytes = 0;
  let matches = 0;
  let carry = '';
  let head = '';
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    const text = carry + chunk.toString('latin1');
    if (head.length < 64) head += text.slice(0, 64);
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) matches++;
    carry = text.slice(-(needle.length - 1));
    peak = Math.max(peak, heapOutsideNewSpace());
  }
  return { bytes, matches, growth: peak - start, head, tail: carry };
}

describe('streamed bodies', () => {
  it('serves a 200,000-entry log day without the heap growing anywhere near its size', async () => {
    sandbox.knobs.setLogDay(sandbox.ids.quietPullZone, 200_000);
    const { bytes, matches, growth, head, tail } = await consume(
      () =>
        request(`${sandbox.loggingUrl}/${sandbox.ids.quietPullZone}/11-20-2026`, {
          headers: { AccessKey: sandbox.apiKey },
        }),
      '"logId":',
    );
    expect(matches).toBe(200_000);
    expect(head.startsWith('{"logs":[{"logId":')).toBe(true);
    expect(tail.endsWith('}]}')).toBe(true);
    expect(bytes).toBeGreaterThan(50_000_000);
    expect(growth).toBeLessThan(bytes / 2);
  });

  it('streams a ~50 MB export without the heap growing anywhere near its size', async () => {
    sandbox.knobs.setExportBytes(sandbox.ids.shieldZone, 50_000_000);
    const { bytes, matches, growth } = await consume(
      () =>
        request(`${sandbox.apiUrl}/shield/event-logs/${sandbox.ids.shieldZone}/export`, {
          method: 'POST',
          headers: jsonHeaders(sandbox),
          body: JSON.stringify({ from: NOW - 72 * 3_600_000 + 60_000, to: NOW }),
        }),
      '\r\n',
    );
    expect(bytes).toBeGreaterThanOrEqual(50_000_000);
    expect(bytes).toBeLessThan(50_000_000 + 200_000);
    expect(matches).toBeGreaterThan(150_000);
    expect(growth).toBeLessThan(bytes / 2);
  });

  it('stops generating when the client goes away', async () => {
    sandbox.knobs.setLogDay(sandbox.ids.quietPullZone, 5_000_000);
    const response = await request(`${sandbox.loggingUrl}/${sandbox.ids.quietPullZone}/11-20-2026`, {
      headers: { AccessKey: sandbox.apiKey },
    });
    let received = 0;
    for await (const chunk of response.body) {
      received += chunk.length;
      if (received > 1_000_000) break;
    }
    // The next request is served at once: the abandoned day is not still being produced.
    sandbox.knobs.clear();
    const started = performance.now();
    const next = await request(`${sandbox.apiUrl}/apikey`, { headers: { AccessKey: sandbox.apiKey } });
    await next.body.text();
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('serves the big seeded zones without any knob', async () => {
    const firstBytes = async (response: Dispatcher.ResponseData) => {
      let text = '';
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        text += chunk.toString('utf8');
        if (text.length > 200_000) break;
      }
      return text;
    };
    const day = await request(`${sandbox.loggingUrl}/${sandbox.ids.bigPullZone}/01-01-2026`, {
      headers: { AccessKey: sandbox.apiKey },
    });
    const dayStart = await firstBytes(day);
    expect(dayStart.startsWith('{"logs":[{"logId":')).toBe(true);
    // Entries are spread evenly over the day: a million of them are about 86 ms apart.
    const stamps = [...dayStart.matchAll(/"timestamp":(\d+)/g)].map((match) => Number(match[1]));
    expect((stamps.at(-1) ?? 0) - (stamps[0] ?? 0)).toBeLessThan(stamps.length * 200);

    const csv = await request(`${sandbox.apiUrl}/shield/event-logs/${sandbox.ids.bigShieldZone}/export`, {
      method: 'POST',
      headers: jsonHeaders(sandbox),
      body: JSON.stringify({ from: NOW - 3_600_000, to: NOW }),
    });
    const rows = (await firstBytes(csv)).split('\r\n');
    // A normal zone has about 500 events an hour; the big one has far more in its first 200 kB alone.
    expect(rows.length).toBeGreaterThan(600);
  });
});
