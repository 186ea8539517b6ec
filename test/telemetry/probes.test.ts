/**
 * The probe ports answer whatever reaches them: a request line no URL parser reads is a 400 at
 * once, never an exception thrown out of the server with the connection left open.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretRegistry } from '../../src/secrets/registry.js';
import { createLogger } from '../../src/telemetry/log.js';
import { HEALTH_ROUTE, type ProbeServer, serveProbes } from '../../src/telemetry/probes.js';
import { pinnedClock } from '../support/clock.js';

let server: ProbeServer;
const logs: string[] = [];
beforeAll(async () => {
  server = await serveProbes({
    routes: [HEALTH_ROUTE],
    port: 0,
    variable: 'METRICS_PORT',
    logger: createLogger({
      level: 'debug',
      secrets: new SecretRegistry(),
      clock: pinnedClock(),
      write: (line) => logs.push(line),
    }),
  });
});
afterAll(async () => {
  await server?.close();
});

/** The status line answered to a raw request line, or what became of the connection. */
function statusLineFor(target: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1', () =>
      socket.write(`GET ${target} HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n`),
    );
    let answer = '';
    socket.setTimeout(2_000, () => {
      socket.destroy();
      resolve(answer.split('\r\n')[0] || 'no answer');
    });
    socket.on('data', (data) => {
      answer += data.toString();
    });
    socket.on('close', () => resolve(answer.split('\r\n')[0] || 'closed without an answer'));
    socket.on('error', () => undefined);
  });
}

describe('a probe port', () => {
  it.each(['http://[', 'http://a b/healthz', 'http://:99999/healthz'])(
    'answers the request target %s, which is no URL, with 400',
    async (target) => {
      expect(await statusLineFor(target)).toBe('HTTP/1.1 400 Bad Request');
      expect(await statusLineFor('/healthz')).toBe('HTTP/1.1 200 OK');
    },
  );
});
