import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BotDetectionConfigSchema,
  type BotDetectionUpdate,
  ProblemDocumentSchema,
  shieldEnvelope,
  WafEnumsResponseSchema,
} from '../../src/platform/schemas.js';
import { EXPORT_COLUMNS } from '../../src/sandbox/event-logs.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { jsonHeaders, NOW, startTestSandbox } from './harness.js';

let sandbox: Sandbox;

beforeAll(async () => {
  ({ sandbox } = await startTestSandbox());
});
afterAll(async () => {
  await sandbox.close();
});

const BotDetectionEnvelope = shieldEnvelope(BotDetectionConfigSchema);

const config = (shieldZoneId: number): BotDetectionUpdate => ({
  shieldZoneId,
  executionMode: 1,
  requestIntegrity: { sensitivity: 3 },
  ipAddress: { sensitivity: 1 },
  browserFingerprint: { sensitivity: 2, aggression: 4, complexEnabled: true },
});

describe('PATCH /shield/shield-zone/{id}/bot-detection', () => {
  const patch = (id: number | string, body: unknown, headers = jsonHeaders(sandbox)) =>
    fetch(`${sandbox.apiUrl}/shield/shield-zone/${id}/bot-detection`, {
      method: 'PATCH',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('stores the configuration and echoes it in a successful envelope', async () => {
    const zone = sandbox.ids.shieldZone;
    const response = await patch(zone, config(zone));
    expect(response.status).toBe(200);
    const envelope = BotDetectionEnvelope.parse(await response.json());
    expect(envelope.error).toMatchObject({ success: true, statusCode: 200 });
    expect(envelope.data).toEqual(config(zone));
    expect(sandbox.botDetection(zone)).toEqual(config(zone));

    const read = await fetch(`${sandbox.apiUrl}/shield/shield-zone/${zone}/bot-detection`, {
      headers: { AccessKey: sandbox.apiKey },
    });
    expect(BotDetectionEnvelope.parse(await read.json()).data).toEqual(config(zone));
  });

  it.each(['text/json', 'application/problem+json', 'application/json; charset=utf-8'])(
    'accepts the %s content type',
    async (contentType) => {
      const zone = sandbox.ids.shieldZone;
      const response = await patch(zone, config(zone), jsonHeaders(sandbox, contentType));
      expect(response.status).toBe(200);
    },
  );

  it('refuses a zone whose plan lacks bot detection with success=false and the plan errorKey', async () => {
    const zone = sandbox.ids.basicShieldZone;
    const response = await patch(zone, config(zone));
    expect(response.status).toBe(403);
    const envelope = BotDetectionEnvelope.parse(await response.json());
    expect(envelope.error).toMatchObject({ success: false, errorKey: 'invalid_plan_type.bot_detection' });
    expect(envelope.error?.message).toBeTruthy();
  });

  it('answers an unknown zone with a 404 envelope', async () => {
    const response = await patch(4242, config(4242));
    expect(response.status).toBe(404);
    expect(BotDetectionEnvelope.parse(await response.json()).error?.success).toBe(false);
  });

  it.each([
    ['a missing field', { shieldZoneId: 5101, executionMode: 0 }],
    ['an out-of-range sensitivity', { ...config(5101), ipAddress: { sensitivity: 9 } }],
    ['an unknown field', { ...config(5101), turbo: true }],
    ['a zone id that differs from the path', config(5102)],
    ['a body that is not JSON', '{"shieldZoneId":'],
  ])('answers %s with a 400 problem document', async (_what, body) => {
    const response = await patch(sandbox.ids.shieldZone, body);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    const problem = ProblemDocumentSchema.parse(await response.json());
    expect(problem).toMatchObject({
      status: 400,
      instance: `/shield/shield-zone/${sandbox.ids.shieldZone}/bot-detection`,
    });
    expect(problem.title).toBeTruthy();
    expect(problem.type).toBeTruthy();
    expect(problem.detail).toBeTruthy();
  });

  it('answers a bad AccessKey with a 401 problem document', async () => {
    const response = await patch(sandbox.ids.shieldZone, config(sandbox.ids.shieldZone), {
      ...jsonHeaders(sandbox),
      AccessKey: 'nope',
    });
    expect(response.status).toBe(401);
    expect(ProblemDocumentSchema.parse(await response.json()).status).toBe(401);
  });

  it('refuses a body sent as text/plain with 415', async () => {
    const zone = sandbox.ids.shieldZone;
    const response = await patch(zone, config(zone), jsonHeaders(sandbox, 'text/plain'));
    expect(response.status).toBe(415);
  });
});

describe('GET /shield/waf/enums', () => {
  it('lists several enumerations with full value elements', async () => {
    const response = await fetch(`${sandbox.apiUrl}/shield/waf/enums`, {
      headers: { AccessKey: sandbox.apiKey },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { enumValues: Record<string, unknown>[] }[] };
    const enums = WafEnumsResponseSchema.parse(body).data;
    expect(enums.length).toBeGreaterThanOrEqual(4);
    expect(enums.map((entry) => entry.enumName)).toContain('Operator');
    for (const value of body.data.flatMap((entry) => entry.enumValues)) {
      expect(Object.keys(value).sort()).toEqual(
        ['isPremium', 'name', 'optionalInput', 'recommendedOperator', 'supportedValues', 'value'].sort(),
      );
    }
  });

  it('answers a bad AccessKey with {statusCode: 401}', async () => {
    const response = await fetch(`${sandbox.apiUrl}/shield/waf/enums`, { headers: { AccessKey: 'nope' } });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ statusCode: 401 });
  });
});

describe('POST /shield/event-logs/{id}/export', () => {
  const HOUR = 3_600_000;
  const exportCsv = (body: unknown, id: number = sandbox.ids.shieldZone, contentType = 'application/json') =>
    fetch(`${sandbox.apiUrl}/shield/event-logs/${id}/export`, {
      method: 'POST',
      headers: jsonHeaders(sandbox, contentType),
      body: JSON.stringify(body),
    });
  const rowsOf = async (response: Response) =>
    parse(await response.text(), { columns: true }) as Record<(typeof EXPORT_COLUMNS)[number], string>[];

  it('streams a CSV of the window with a header row and RFC 4180 quoting', async () => {
    const response = await exportCsv({ from: NOW - 2 * HOUR, to: NOW - HOUR });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/csv');
    expect(response.headers.get('content-length')).toBeNull();
    const text = await response.text();
    expect(text.split('\r\n')[0]).toBe(EXPORT_COLUMNS.join(','));
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(rows.length).toBeGreaterThan(100);
    for (const row of rows) {
      const time = Date.parse(row.timestamp ?? '');
      expect(time).toBeGreaterThanOrEqual(NOW - 2 * HOUR);
      expect(time).toBeLessThanOrEqual(NOW - HOUR);
    }
  });

  it('contains cells that would ping Slack or run in a spreadsheet', async () => {
    const rows = await rowsOf(await exportCsv({ from: NOW - 2 * HOUR, to: NOW - HOUR }));
    const cells = rows.flatMap((row) => Object.values(row));
    expect(cells).toContain('/<!channel>');
    expect(cells.some((cell) => cell.startsWith('=HYPERLINK('))).toBe(true);
    expect(cells.some((cell) => cell.startsWith('+'))).toBe(true);
    expect(cells.some((cell) => cell.startsWith('-'))).toBe(true);
    expect(cells.some((cell) => cell.startsWith('@'))).toBe(true);
    expect(cells.some((cell) => cell.includes('"') && cell.includes(',') && cell.includes('\n'))).toBe(true);
  });

  it('gives the same rows for the same window', async () => {
    const body = { from: NOW - 30 * 60_000, to: NOW };
    expect(await (await exportCsv(body)).text()).toBe(await (await exportCsv(body)).text());
  });

  it('applies filters with AND across filters and OR within values, and the free-text query', async () => {
    const window = { from: NOW - 3 * HOUR, to: NOW };
    const blocked = await rowsOf(
      await exportCsv({
        ...window,
        filters: [
          { field: 'action', op: 'eq', value: ['Block'] },
          { field: 'country', op: 'in', value: ['DE', 'US'] },
        ],
      }),
    );
    expect(blocked.length).toBeGreaterThan(0);
    expect(blocked.every((row) => row.action === 'Block' && ['DE', 'US'].includes(row.country))).toBe(true);

    const cidr = await rowsOf(
      await exportCsv({ ...window, filters: [{ field: 'ip', op: 'cidr', value: ['203.0.113.0/24'] }] }),
    );
    expect(cidr.length).toBeGreaterThan(0);
    expect(cidr.every((row) => row.ip.startsWith('203.0.113.'))).toBe(true);

    const wildcard = await rowsOf(
      await exportCsv({ ...window, filters: [{ field: 'ua', op: 'wildcard', value: ['sqlmap*'] }] }),
    );
    expect(wildcard.length).toBeGreaterThan(0);
    expect(wildcard.every((row) => row.userAgent.startsWith('sqlmap'))).toBe(true);

    const query = await rowsOf(await exportCsv({ ...window, query: 'libinjection' }));
    expect(query.length).toBeGreaterThan(0);
    expect(query.every((row) => row.ruleName.includes('libinjection'))).toBe(true);
  });

  it.each([
    ['to before from', { from: NOW - 1000, to: NOW - 2000 }, 'to must be after from'],
    ['a window older than 72 hours', { from: NOW - 80 * HOUR, to: NOW - 79 * HOUR }, '72 hours'],
    ['a missing from', { to: NOW }, 'from'],
    [
      'an unknown filter field',
      { from: NOW - HOUR, to: NOW, filters: [{ field: 'colour', op: 'eq', value: ['x'] }] },
      'filters',
    ],
  ])('answers %s with a problem document saying what is wrong', async (_what, body, expected) => {
    const response = await exportCsv(body);
    expect(response.status).toBe(400);
    const problem = ProblemDocumentSchema.parse(await response.json());
    expect(problem.status).toBe(400);
    expect(problem.detail).toContain(expected);
  });

  it('accepts application/*+json bodies', async () => {
    const response = await exportCsv(
      { from: NOW - 60_000, to: NOW },
      sandbox.ids.shieldZone,
      'application/vnd.api+json',
    );
    expect(response.status).toBe(200);
  });

  it('answers an unknown zone with a 404 problem document', async () => {
    const response = await exportCsv({ from: NOW - HOUR, to: NOW }, 777);
    expect(response.status).toBe(404);
    expect(ProblemDocumentSchema.parse(await response.json()).status).toBe(404);
  });

  it('answers a bad AccessKey with a 401 problem document', async () => {
    const response = await fetch(`${sandbox.apiUrl}/shield/event-logs/${sandbox.ids.shieldZone}/export`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: NOW - 1000, to: NOW }),
    });
    expect(response.status).toBe(401);
    expect(ProblemDocumentSchema.parse(await response.json()).status).toBe(401);
  });
});
