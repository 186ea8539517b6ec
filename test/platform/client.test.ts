import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformClient, type PlatformClient } from '../../src/platform/client.js';
import { PlatformError } from '../../src/platform/errors.js';
import { JsonArraySplitter } from '../../src/reports/json-entries.js';
import type { RouteId } from '../../src/sandbox/router.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pinnedClock } from '../support/clock.js';
import { heapOutsideNewSpace } from '../support/heap.js';

const clock = pinnedClock();

let sandbox: Sandbox;
let client: PlatformClient;
const sleeps: number[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ now: clock });
  client = createPlatformClient({
    apiUrl: sandbox.apiUrl,
    apiKey: sandbox.apiKey,
    loggingUrl: sandbox.loggingUrl,
    databaseApiUrl: sandbox.databaseApiUrl,
    headersTimeoutMs: 1_000,
    now: clock,
    // Record the backoff instead of waiting it out.
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});
afterEach(() => {
  sandbox.faults.clear();
  sleeps.length = 0;
});

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PlatformError) return error;
    throw error;
  }
  throw new Error('expected a PlatformError');
}

const recentWindow = () => ({ from: clock() - 3_600_000, to: clock() - 60_000 });

async function drain(stream: AsyncIterable<unknown>): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream) bytes += (chunk as Buffer).length;
  return bytes;
}

describe('platform client against the sandbox', () => {
  describe('the lists used to find ids', () => {
    it('lists pull zones, paged and searched, with their hostnames', async () => {
      const all = await client.listPullZones({ perPage: 5 });
      expect(all.Items.map((zone) => zone.Id)).toEqual(sandbox.pullZoneIds.slice(0, 5));
      expect(all.TotalItems).toBe(sandbox.pullZoneIds.length);
      expect(all.HasMoreItems).toBe(sandbox.pullZoneIds.length > 5);
      expect((await client.listPullZones({ page: 2, perPage: 5 })).Items).toHaveLength(
        sandbox.pullZoneIds.length - 5,
      );
      const www = await client.listPullZones({ search: 'www' });
      expect(www.Items.map((zone) => [zone.Id, zone.Name])).toEqual([[sandbox.ids.pullZone, 'www-example']]);
      expect(www.Items[0]!.Hostnames).toContain('www-example.b-cdn.net');
    });

    it('reads one pull zone, keeping its hostnames and origin and none of its secrets', async () => {
      const zone = await client.getPullZone(sandbox.ids.pullZone);
      expect(zone).toEqual({
        id: sandbox.ids.pullZone,
        name: 'www-example',
        originUrl: expect.stringMatching(/^https?:\/\//),
        hostnames: expect.arrayContaining([{ value: 'www-example.b-cdn.net', system: true }]),
      });
      expect(zone.hostnames.some((hostname) => !hostname.system)).toBe(true);
      expect(JSON.stringify(zone)).not.toMatch(/secret|token|key/i);
      const missing = await failure(client.getPullZone(999_999_999));
      expect(missing.userMessage).toBe(
        'No pull zone 999999999 was found on the platform. Check the id, or find it with /edge pullzones.',
      );
    });

    it('lists Shield zones with the pull zone each guards', async () => {
      const list = await client.listShieldZones();
      expect(list.data.map((zone) => [zone.shieldZoneId, zone.pullZoneId])).toContainEqual([
        sandbox.ids.shieldZone,
        sandbox.ids.pullZone,
      ]);
      expect(list.page?.totalCount).toBe(sandbox.shieldZoneIds.length);
    });

    it('reads what the vendor may leave out: no data, no paging, zones without fields', async () => {
      sandbox.faults.set('shieldzone.list', { status: 200, body: { data: null }, times: 1 });
      expect((await client.listShieldZones()).data).toEqual([]);
      sandbox.faults.set('pullzone.list', {
        status: 200,
        body: { Items: [{}, { Id: 7, Hostnames: null }] },
        times: 1,
      });
      const zones = await client.listPullZones();
      expect(zones.Items.map((zone) => zone.Hostnames)).toEqual([[], []]);
      expect(zones.TotalItems).toBeUndefined();
    });

    it('reports a Shield envelope failure on the list', async () => {
      sandbox.faults.set('shieldzone.list', {
        status: 200,
        body: {
          data: null,
          error: { success: false, statusCode: 403, message: 'No Shield on this account', errorKey: null },
        },
        times: 1,
      });
      const error = await failure(client.listShieldZones());
      expect(error.userMessage).toContain('No Shield on this account');
    });
  });

  describe('success', () => {
    it('creates a video library (201) with its keys', async () => {
      const library = await client.createVideoLibrary({
        Name: 'launch videos',
        EnabledResolutions: '720p,1080p',
      });
      expect(library.Id).toBeGreaterThan(0);
      expect(library.Name).toBe('launch videos');
      expect(library.ApiKey).toBeTruthy();
      expect(library.PullZoneId).toBeGreaterThan(0);
    });

    it('lists API keys with the page and perPage query names', async () => {
      const list = await client.listApiKeys({ page: 2, perPage: 5 });
      expect(list.CurrentPage).toBe(2);
      expect(list.Items.length).toBeLessThanOrEqual(5);
      expect(sandbox.requests.last('apikey.list')?.query).toEqual({ page: '2', perPage: '5' });
    });

    it('resets a pull zone security key (204)', async () => {
      await client.resetPullZoneSecurityKey(sandbox.ids.pullZone, 'k'.repeat(32));
      expect(sandbox.pullZoneSecurityKey(sandbox.ids.pullZone)).toBe('k'.repeat(32));
    });

    it('lists DNS zones with search and the Lite view', async () => {
      const full = await client.listDnsZones({ perPage: 100 });
      expect(full.Items.some((zone) => zone.Records.length > 0)).toBe(true);
      await client.listDnsZones({ search: 'example', view: 1 });
      expect(sandbox.requests.last('dnszone.list')?.query).toMatchObject({ search: 'example', view: '1' });
    });

    it('updates bot detection and returns the configuration from the envelope', async () => {
      const config = await client.updateBotDetection({
        shieldZoneId: sandbox.ids.shieldZone,
        executionMode: 1,
        requestIntegrity: { sensitivity: 2 },
        ipAddress: { sensitivity: 1 },
        browserFingerprint: { sensitivity: 3, aggression: 2, complexEnabled: true },
      });
      expect(config.browserFingerprint?.sensitivity).toBe(3);
      expect(sandbox.botDetection(sandbox.ids.shieldZone)?.executionMode).toBe(1);
    });

    it('reads a zone’s current bot detection, and fails with the errorKey on a plan without it', async () => {
      const current = await client.getBotDetection(sandbox.ids.shieldZone);
      expect(current).toEqual(sandbox.botDetection(sandbox.ids.shieldZone));
      const error = await failure(client.getBotDetection(sandbox.ids.basicShieldZone));
      expect(error).toMatchObject({ kind: 'shield-error', errorKey: 'invalid_plan_type.bot_detection' });
      expect((await failure(client.getBotDetection(4_040_404))).kind).toBe('not-found');
    });

    it('reads the WAF enums', async () => {
      const enums = await client.getWafEnums();
      expect(enums.length).toBeGreaterThan(1);
      expect(enums[0]?.enumValues.length).toBeGreaterThan(0);
    });

    it('streams an event-log export as CSV', async () => {
      const result = await client.exportShieldEventLogs(sandbox.ids.shieldZone, recentWindow());
      expect(result.contentType).toContain('text/csv');
      let text = '';
      for await (const chunk of result.body) text += (chunk as Buffer).toString('utf8');
      expect(text.split('\n')[0]).toContain('timestamp');
    });

    it('streams an origin-log day, entry by entry', async () => {
      const result = await client.getOriginErrorLogs(sandbox.ids.pullZone, new Date(clock()));
      const splitter = new JsonArraySplitter('logs');
      let entries = 0;
      for await (const chunk of result.body) entries += splitter.push(chunk as Buffer).length;
      splitter.end();
      expect(entries).toBeGreaterThan(0);
      expect(sandbox.requests.last('logs.origin')?.path).toMatch(/\/308006\/\d{2}-\d{2}-\d{4}$/);
    });

    it('formats the origin-log date as MM-dd-yyyy of the UTC day', async () => {
      const result = await client.getOriginErrorLogs(
        sandbox.ids.quietPullZone,
        new Date(Date.UTC(2026, 10, 21, 23, 59)),
      );
      await drain(result.body);
      expect(sandbox.requests.last('logs.origin')?.path.endsWith('/11-21-2026')).toBe(true);
    });

    it('generates and revokes database tokens', async () => {
      const token = await client.generateDatabaseToken(sandbox.databaseId, { authorization: 'read-only' });
      expect(token.token.length).toBeGreaterThan(10);
      await client.revokeDatabaseTokens(sandbox.databaseId);
      expect(sandbox.requests.last('database.tokens.revoke')?.status).toBe(204);
    });
  });

  describe('requests refused before anything is sent', () => {
    const cases: [string, RouteId, () => Promise<unknown>][] = [
      [
        'an extra library field',
        'videolibrary.create',
        () => client.createVideoLibrary({ Name: 'x', Bogus: 1 } as never),
      ],
      ['an empty library name', 'videolibrary.create', () => client.createVideoLibrary({ Name: '' })],
      [
        'an unknown resolution',
        'videolibrary.create',
        () => client.createVideoLibrary({ Name: 'x', EnabledResolutions: '720p,4k' }),
      ],
      ['page 0', 'apikey.list', () => client.listApiKeys({ page: 0 })],
      ['perPage 4', 'dnszone.list', () => client.listDnsZones({ perPage: 4 })],
      ['perPage 1001', 'apikey.list', () => client.listApiKeys({ perPage: 1001 })],
      ['view 2', 'dnszone.list', () => client.listDnsZones({ view: 2 as never })],
      [
        'a short security key',
        'pullzone.resetSecurityKey',
        () => client.resetPullZoneSecurityKey(1, 'short'),
      ],
      [
        'sensitivity 4',
        'shield.botDetection',
        () =>
          client.updateBotDetection({
            shieldZoneId: 1,
            executionMode: 0,
            requestIntegrity: { sensitivity: 4 },
            ipAddress: { sensitivity: 0 },
            browserFingerprint: { sensitivity: 0, aggression: 0, complexEnabled: false },
          }),
      ],
      [
        'to before from',
        'shield.export',
        () => client.exportShieldEventLogs(1, { from: clock() - 1000, to: clock() - 2000 }),
      ],
      [
        'a window older than 72 hours',
        'shield.export',
        () =>
          client.exportShieldEventLogs(1, {
            from: clock() - 80 * 3_600_000,
            to: clock() - 75 * 3_600_000,
          }),
      ],
      [
        'cidr on a field other than ip',
        'shield.export',
        () =>
          client.exportShieldEventLogs(1, {
            ...recentWindow(),
            filters: [{ field: 'url', op: 'cidr', value: ['10.0.0.0/8'] }],
          }),
      ],
      ['an invalid date', 'logs.origin', () => client.getOriginErrorLogs(1, new Date('nope'))],
      [
        'a bad token mode',
        'database.tokens.generate',
        () => client.generateDatabaseToken('db_1', { authorization: 'admin' as never }),
      ],
    ];
    it.each(cases)('%s', async (_name, route, call) => {
      const before = sandbox.requests.count(route);
      const error = await failure(call());
      expect(error.kind).toBe('invalid-request');
      expect(error.userMessage.length).toBeGreaterThan(5);
      expect(sandbox.requests.count(route)).toBe(before);
    });
  });

  describe('error shapes become typed errors with a message a user can act on', () => {
    it('ApiErrorData 400 carries Message, Field and ErrorKey', async () => {
      const error = await failure(
        client.createVideoLibrary({ Name: 'x', OutputCodecs: 'vp9', EncodingTier: 0 }),
      );
      expect(error.kind).toBe('bad-request');
      expect(error.status).toBe(400);
      expect(error.field).toBeTruthy();
      expect(error.userMessage).toContain('Field:');
    });

    it('401 points at PLATFORM_API_KEY', async () => {
      const wrong = createPlatformClient({
        apiUrl: sandbox.apiUrl,
        apiKey: 'not-the-key-at-all',
        loggingUrl: sandbox.loggingUrl,
        databaseApiUrl: sandbox.databaseApiUrl,
        now: clock,
      });
      try {
        const error = await failure(wrong.listDnsZones());
        expect(error.kind).toBe('unauthorized');
        expect(error.userMessage).toContain('PLATFORM_API_KEY');
        expect(error.attempts).toBe(1);
        expect((await failure(wrong.getWafEnums())).kind).toBe('unauthorized');
      } finally {
        await wrong.close();
      }
    });

    it('404 names the missing object', async () => {
      const error = await failure(client.resetPullZoneSecurityKey(999_999, 'k'.repeat(32)));
      expect(error.kind).toBe('not-found');
      expect(error.userMessage).toContain('No pull zone 999999 was found');
    });

    it('a Shield envelope with success=false is a failure with its errorKey', async () => {
      const error = await failure(
        client.updateBotDetection({
          shieldZoneId: sandbox.ids.basicShieldZone,
          executionMode: 0,
          requestIntegrity: { sensitivity: 1 },
          ipAddress: { sensitivity: 1 },
          browserFingerprint: { sensitivity: 1, aggression: 1, complexEnabled: false },
        }),
      );
      expect(error.kind).toBe('shield-error');
      expect(error.errorKey).toBe('invalid_plan_type.bot_detection');
    });

    it('a problem document shows its detail', async () => {
      sandbox.faults.set('shield.export', {
        status: 400,
        body: {
          type: 'about:blank',
          title: 'Bad Request',
          status: 400,
          detail: 'The window is too wide',
          instance: '/x',
        },
        times: 1,
      });
      const error = await failure(client.exportShieldEventLogs(sandbox.ids.shieldZone, recentWindow()));
      expect(error.kind).toBe('problem');
      expect(error.userMessage).toBe('The window is too wide');
    });

    it('a status object from the WAF enums maps by its statusCode', async () => {
      sandbox.faults.set('shield.wafEnums', { status: 403, body: { statusCode: 403 }, times: 1 });
      expect((await failure(client.getWafEnums())).kind).toBe('forbidden');
    });

    it('a database API error shows its text', async () => {
      const error = await failure(client.generateDatabaseToken('db_unknown', { authorization: 'read-only' }));
      expect(error.kind).toBe('not-found');
    });

    it('malformed JSON is an invalid response, not retried', async () => {
      sandbox.faults.set('apikey.list', { malformedJson: true, times: 1 });
      const before = sandbox.requests.count('apikey.list');
      const error = await failure(client.listApiKeys());
      expect(error.kind).toBe('invalid-response');
      expect(sandbox.requests.count('apikey.list') - before).toBe(1);
    });
  });

  describe('retries', () => {
    it('a read that fails with 500 twice and then succeeds returns the result', async () => {
      sandbox.faults.set('dnszone.list', { status: 500, times: 2 });
      const before = sandbox.requests.count('dnszone.list');
      const list = await client.listDnsZones();
      expect(list.Items.length).toBeGreaterThan(0);
      expect(sandbox.requests.count('dnszone.list') - before).toBe(3);
      expect(sleeps).toHaveLength(2);
    });

    it('a read gives up after 3 tries and says so', async () => {
      sandbox.faults.set('apikey.list', { status: 503 });
      const before = sandbox.requests.count('apikey.list');
      const error = await failure(client.listApiKeys());
      expect(error.kind).toBe('server');
      expect(error.attempts).toBe(3);
      expect(sandbox.requests.count('apikey.list') - before).toBe(3);
    });

    it('429 waits as long as Retry-After says', async () => {
      sandbox.faults.set('shield.wafEnums', { retryAfter: 7, times: 1 });
      await client.getWafEnums();
      expect(sleeps).toEqual([7_000]);
    });

    it('a server error that asks for a wait longer than the policy allows is reported, not waited for', async () => {
      sandbox.faults.set('dnszone.list', { status: 503, retryAfter: 3_600, times: 1 });
      const before = sandbox.requests.count('dnszone.list');
      const error = await failure(client.listDnsZones());
      expect(error).toMatchObject({ kind: 'server', attempts: 1, retryAfterSeconds: 3_600 });
      expect(sandbox.requests.count('dnszone.list') - before).toBe(1);
      expect(sleeps).toEqual([]);
    });

    it('stopped while it waits to try again, it is cancelled with the platform’s answer as its cause', async () => {
      const stop = new AbortController();
      const stopping = createPlatformClient({
        apiUrl: sandbox.apiUrl,
        apiKey: sandbox.apiKey,
        loggingUrl: sandbox.loggingUrl,
        databaseApiUrl: sandbox.databaseApiUrl,
        now: clock,
        // The caller's signal ends the wait, as a form's time limit would.
        sleep: async () => {
          stop.abort();
          throw new DOMException('This operation was aborted', 'AbortError');
        },
      });
      try {
        sandbox.faults.set('shield.botDetection.get', { status: 503, times: 1 });
        const error = await failure(
          stopping.getBotDetection(sandbox.ids.shieldZone, { signal: stop.signal }),
        );
        expect(error.kind).toBe('aborted');
        expect(error.cause).toBeInstanceOf(PlatformError);
        expect(error.cause).toMatchObject({ kind: 'server', status: 503 });
        expect(error.attempts).toBe(1);
      } finally {
        await stopping.close();
      }
    });

    it('backs off with jitter between tries', async () => {
      sandbox.faults.set('dnszone.list', { status: 502, times: 2 });
      await client.listDnsZones();
      expect(sleeps[0]).toBeGreaterThanOrEqual(125);
      expect(sleeps[0]).toBeLessThanOrEqual(250);
      expect(sleeps[1]).toBeGreaterThanOrEqual(250);
      expect(sleeps[1]).toBeLessThanOrEqual(500);
    });

    it('a dropped connection on a read is retried', async () => {
      sandbox.faults.set('apikey.list', { drop: true, times: 1 });
      await expect(client.listApiKeys()).resolves.toBeDefined();
    });

    it('a body cut short on a read is retried', async () => {
      sandbox.faults.set('dnszone.list', { truncate: true, times: 1 });
      await expect(client.listDnsZones()).resolves.toBeDefined();
    });

    it('a timeout on a read is retried and then reported as a network failure', async () => {
      // Well past the 1 s header timeout: undici's timers are coarse (about half a second).
      sandbox.faults.set('apikey.list', { delayMs: 4_000 });
      const error = await failure(client.listApiKeys());
      expect(error.kind).toBe('network');
      expect(error.attempts).toBe(3);
    });

    it.each([
      ['videolibrary.create', () => client.createVideoLibrary({ Name: 'never twice' })],
      [
        'pullzone.resetSecurityKey',
        () => client.resetPullZoneSecurityKey(sandbox.ids.pullZone, 'z'.repeat(32)),
      ],
      ['database.tokens.revoke', () => client.revokeDatabaseTokens(sandbox.databaseId)],
    ] as [RouteId, () => Promise<unknown>][])('a write (%s) is never retried on 500', async (route, call) => {
      sandbox.faults.set(route, { status: 500 });
      const before = sandbox.requests.count(route);
      const error = await failure(call());
      expect(error.kind).toBe('server');
      expect(sandbox.requests.count(route) - before).toBe(1);
      expect(sleeps).toHaveLength(0);
    });

    it('a write is not retried on 429 either', async () => {
      sandbox.faults.set('videolibrary.create', { retryAfter: 1 });
      const before = sandbox.requests.count('videolibrary.create');
      expect((await failure(client.createVideoLibrary({ Name: 'x' }))).kind).toBe('rate-limited');
      expect(sandbox.requests.count('videolibrary.create') - before).toBe(1);
    });
  });

  describe('streaming', () => {
    it('a streamed body cut short fails as a platform error that says what happened', async () => {
      sandbox.faults.set('shield.export', { truncate: true, times: 1 });
      const result = await client.exportShieldEventLogs(sandbox.ids.shieldZone, recentWindow());
      const error = await drain(result.body).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(PlatformError);
      expect((error as PlatformError).kind).toBe('network');
      expect((error as PlatformError).userMessage).toMatch(
        /^Could not reach the platform \(.+\)\. Try again/,
      );
      // The next export reads whole.
      expect(
        await drain((await client.exportShieldEventLogs(sandbox.ids.shieldZone, recentWindow())).body),
      ).toBeGreaterThan(0);
    });

    it('consumes a 200,000-entry origin-log day entry by entry without holding the body', async () => {
      sandbox.knobs.setLogDay(sandbox.ids.apiPullZone, 200_000);
      try {
        global.gc?.();
        const heapBefore = heapOutsideNewSpace();
        let peak = heapBefore;
        // Yesterday is over: the whole day is served, where today ends at the clock's now.
        const result = await client.getOriginErrorLogs(
          sandbox.ids.apiPullZone,
          new Date(clock() - 86_400_000),
        );
        const splitter = new JsonArraySplitter('logs');
        let entries = 0;
        let bytes = 0;
        for await (const chunk of result.body) {
          bytes += (chunk as Buffer).length;
          entries += splitter.push(chunk as Buffer).length;
          if (entries % 20_000 < 200) peak = Math.max(peak, heapOutsideNewSpace());
        }
        splitter.end();
        expect(entries).toBe(200_000);
        expect(bytes).toBeGreaterThan(40_000_000);
        // The sandbox runs in this process too, so allow for both sides' buffers.
        expect(peak - heapBefore).toBeLessThan(bytes / 2);
      } finally {
        sandbox.knobs.clear();
      }
    }, 60_000);
  });
  describe('answers the vendor allows and no example shows (sandbox knobs)', () => {
    afterEach(() => sandbox.knobs.clear());

    /** The entries and whether the body listed them, read with the same splitter the report worker uses. */
    async function originDay(pullZoneId: number) {
      const result = await client.getOriginErrorLogs(pullZoneId, new Date(clock()));
      const splitter = new JsonArraySplitter('logs');
      const entries: unknown[] = [];
      for await (const chunk of result.body) entries.push(...splitter.push(chunk as Buffer));
      splitter.end();
      return { entries, listed: splitter.listed };
    }

    it('reads DNS zones whose Domain and every other nullable field are null', async () => {
      sandbox.knobs.setVendorShapes({ dnsNulls: true });
      const full = await client.listDnsZones({ perPage: 100 });
      expect(full.Items.length).toBeGreaterThan(5);
      expect(full.Items.every((zone) => zone.Domain === null && zone.Nameserver1 === null)).toBe(true);
      const records = full.Items.flatMap((zone) => zone.Records);
      expect(records.length).toBeGreaterThan(10);
      expect(records.every((record) => record.Value === null && record.Name === null)).toBe(true);
      const lite = await client.listDnsZones({ perPage: 100, view: 1 });
      expect(lite.Items.every((zone) => zone.Records.length === 0)).toBe(true);
    });

    it.each([
      ['no-logs', '{}', false],
      ['null-logs', '{"logs":null}', false],
      ['empty-logs', '{"logs":[]}', true],
    ] as const)(
      'reads an origin-log day answered %s (%s) as a day without entries',
      async (shape, _body, listed) => {
        sandbox.knobs.setVendorShapes({ originLogBody: shape });
        expect(await originDay(sandbox.ids.pullZone)).toEqual({ entries: [], listed });
        sandbox.knobs.setVendorShapes({ originLogBody: 'entries' });
        expect((await originDay(sandbox.ids.pullZone)).entries.length).toBeGreaterThan(0);
      },
    );

    it('words a Shield envelope whose message is null by its errorKey', async () => {
      sandbox.knobs.setVendorShapes({ shieldNullMessage: true });
      const error = await failure(
        client.updateBotDetection({
          shieldZoneId: sandbox.ids.basicShieldZone,
          executionMode: 0,
          requestIntegrity: { sensitivity: 1 },
          ipAddress: { sensitivity: 1 },
          browserFingerprint: { sensitivity: 1, aggression: 1, complexEnabled: false },
        }),
      );
      expect(error.kind).toBe('shield-error');
      expect(error.errorKey).toBe('invalid_plan_type.bot_detection');
      expect(error.userMessage).toBe(
        'The plan of this Shield zone does not include bot detection; upgrade the zone’s plan to use it. (invalid_plan_type.bot_detection)',
      );
    });

    it('shows an unknown errorKey as it is when the message is null', async () => {
      sandbox.faults.set('shield.botDetection', {
        status: 403,
        body: { error: { statusCode: 403, success: false, message: null, errorKey: 'quota.rules_exceeded' } },
        times: 1,
      });
      const error = await failure(
        client.updateBotDetection({
          shieldZoneId: sandbox.ids.shieldZone,
          executionMode: 0,
          requestIntegrity: { sensitivity: 1 },
          ipAddress: { sensitivity: 1 },
          browserFingerprint: { sensitivity: 1, aggression: 1, complexEnabled: false },
        }),
      );
      expect(error.userMessage).toBe(
        'The Shield API refused the request (status 403). Error key: quota.rules_exceeded.',
      );
    });

    it('shows the field errors of a validation problem that has a title and errors but no detail', async () => {
      sandbox.knobs.setVendorShapes({ problemWithoutDetail: true });
      const error = await failure(
        client.exportShieldEventLogs(sandbox.ids.shieldZone, {
          ...recentWindow(),
          filters: [{ field: 'ip', op: 'cidr', value: ['203.0.113.0/24', '10.0.0.0/33'] }],
        }),
      );
      expect(error.kind).toBe('problem');
      expect(error.status).toBe(400);
      expect(error.field).toBe('filters[0].value[1]');
      expect(error.userMessage).toBe(
        'One or more validation errors occurred. filters[0].value[1]: "10.0.0.0/33" is not an IPv4 or IPv6 CIDR range',
      );
    });
  });
});

describe('purges against the sandbox', () => {
  it('purges one URL with exactPath and without async, and the sandbox records it for its zone', async () => {
    const before = sandbox.purges().length;
    await client.purgeUrl('https://www.example.com/assets/app.3f9c1a.js');
    const sent = sandbox.requests.last('purge.url')!;
    expect(sent.method).toBe('POST');
    expect(sent.query).toEqual({ url: 'https://www.example.com/assets/app.3f9c1a.js', exactPath: 'true' });
    expect(sandbox.purges().slice(before)).toEqual([
      { at: clock(), pullZoneId: sandbox.ids.pullZone, url: 'https://www.example.com/assets/app.3f9c1a.js' },
    ]);
  });

  it('refuses to send a URL that is not absolute http(s)', async () => {
    const calls = sandbox.requests.count('purge.url');
    const refused = await failure(client.purgeUrl('ftp://www.example.com/a'));
    expect(refused.kind).toBe('invalid-request');
    expect(sandbox.requests.count('purge.url')).toBe(calls);
  });

  it('purges a zone whole (no body) or one cache tag, and names a missing zone', async () => {
    const before = sandbox.purges().length;
    await client.purgePullZoneCache(sandbox.ids.pullZone);
    expect(sandbox.requests.last('pullzone.purgeCache')!.body).toBeUndefined();
    await client.purgePullZoneCache(sandbox.ids.pullZone, 'product-42');
    expect(sandbox.requests.last('pullzone.purgeCache')!.body).toEqual({ CacheTag: 'product-42' });
    expect(sandbox.purges().slice(before)).toEqual([
      { at: clock(), pullZoneId: sandbox.ids.pullZone },
      { at: clock(), pullZoneId: sandbox.ids.pullZone, cacheTag: 'product-42' },
    ]);
    const missing = await failure(client.purgePullZoneCache(999_999_999));
    expect(missing.userMessage).toBe(
      'No pull zone 999999999 was found on the platform. Check the id, or find it with /edge pullzones.',
    );
  });

  it('never retries a purge that failed on the platform', async () => {
    sandbox.faults.set('purge.url', { status: 503, times: 1 });
    const calls = sandbox.requests.count('purge.url');
    const failed = await failure(client.purgeUrl('https://www.example.com/index.html'));
    expect(failed.kind).toBe('server');
    expect(sandbox.requests.count('purge.url')).toBe(calls + 1);
    sandbox.faults.set('pullzone.purgeCache', { status: 500, times: 1 });
    const zoneCalls = sandbox.requests.count('pullzone.purgeCache');
    await failure(client.purgePullZoneCache(sandbox.ids.pullZone));
    expect(sandbox.requests.count('pullzone.purgeCache')).toBe(zoneCalls + 1);
    expect(sleeps).toEqual([]);
  });

  it('answers 401 for a wrong key and 400 for a missing url, as the vendor does', async () => {
    const wrong = await fetch(`${sandbox.apiUrl}/purge?url=https://www.example.com/`, {
      method: 'POST',
      headers: { AccessKey: 'wrong' },
    });
    expect(wrong.status).toBe(401);
    const zone = await fetch(`${sandbox.apiUrl}/pullzone/${sandbox.ids.pullZone}/purgeCache`, {
      method: 'POST',
      headers: { AccessKey: 'wrong' },
    });
    expect(zone.status).toBe(401);
    const missing = await fetch(`${sandbox.apiUrl}/purge`, {
      method: 'POST',
      headers: { AccessKey: sandbox.apiKey },
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ Field: 'url' });
  });
});
